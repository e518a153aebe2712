"""Kubernetes' human durations (``5m``, ``3h12m``, ``2d4h``) and ages relative to the served moment."""

from __future__ import annotations

import datetime as dt

from k10s_forensics.store.bundle import parse_iso


def human_duration(seconds: float) -> str:
    """Kubernetes' ``duration.HumanDuration`` (``5m``, ``3h12m``, ``2d4h``)."""
    s = int(seconds)
    if s < -1:
        return "<invalid>"
    if s < 0:
        return "0s"
    if s < 120:
        return f"{s}s"
    minutes = s // 60
    if minutes < 10:
        return f"{minutes}m" if s % 60 == 0 else f"{minutes}m{s % 60}s"
    if minutes < 180:
        return f"{minutes}m"
    hours = s // 3600
    if hours < 8:
        return f"{hours}h" if minutes % 60 == 0 else f"{hours}h{minutes % 60}m"
    if hours < 48:
        return f"{hours}h"
    if hours < 24 * 8:
        return f"{hours // 24}d" if hours % 24 == 0 else f"{hours // 24}d{hours % 24}h"
    if hours < 24 * 365 * 2:
        return f"{hours // 24}d"
    if hours < 24 * 365 * 8:
        years, days = hours // 24 // 365, (hours // 24) % 365
        return f"{years}y" if days == 0 else f"{years}y{days}d"
    return f"{hours // 24 // 365}y"


def since(text: str | None, now: dt.datetime) -> str:
    ts = parse_iso(text) if text else None
    return human_duration((now - ts).total_seconds()) if ts else "<unknown>"


__all__ = ["human_duration", "since"]
