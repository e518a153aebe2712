"""``k10s watch`` configuration: a YAML file with the same keys as the flags (flags win).

Unknown keys are an error (one line, exit 2): a typo must not silently widen the scope or
turn a limit off.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from k10s_forensics.errors import InputError

KINDS = ("PyTorchJob", "TrainJob", "JobSet", "MPIJob", "RayJob")
_SIZE = re.compile(r"(\d+(?:\.\d+)?)\s*(Ki|Mi|Gi|Ti|K|M|G|T|B)?", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1000, "m": 1000**2, "g": 1000**3, "t": 1000**4,
          "ki": 1 << 10, "mi": 1 << 20, "gi": 1 << 30, "ti": 1 << 40}


def parse_bytes(value: Any) -> int:
    """``20GiB``, ``500Mi``, ``1048576`` -> bytes."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    text = str(value).strip()
    if len(text) > 1 and text[-1] in "bB" and text[-2].isalpha():
        text = text[:-1]  # GiB -> Gi, MB -> M
    m = _SIZE.fullmatch(text)
    if not m:
        raise InputError(f"{value!r} is not a size (use e.g. 20GiB, 500Mi, 1048576)")
    return int(float(m.group(1)) * _UNITS[(m.group(2) or "").lower()])


@dataclass
class Retention:
    max_bundles: int = 50
    max_age_h: float = 168.0
    max_bytes: int = 20 << 30


@dataclass
class CaptureSettings:
    duration_s: float = 60.0
    deadline_s: float = 300.0
    second_round_after_s: float = 120.0
    interval_s: float = 15.0
    since_s: float = 6 * 3600.0
    table_jobs: int = 1


@dataclass
class WatchConfig:
    """Everything the watcher needs; every key of the YAML file is a field here."""

    namespaces: tuple[str, ...] = ()
    selector: str = ""
    kinds: tuple[str, ...] = KINDS
    out: Path = Path("/var/lib/k10s/bundles")
    listen: str = "0.0.0.0:8080"
    prometheus: str | None = None
    notify_url: str | None = None
    events: bool = False
    cooldown_s: float = 600.0
    max_concurrent: int = 2
    rate_per_job_per_h: int = 4
    rate_cluster_per_h: int = 20
    retention: Retention = field(default_factory=Retention)
    capture: CaptureSettings = field(default_factory=CaptureSettings)
    log_follow_bytes_per_pod: int = 1 << 20
    log_follow: bool = True
    log_retry_s: float = 10.0
    watch_timeout_s: float = 300.0
    backoff_max_s: float = 30.0


_NESTED = {"retention": Retention, "capture": CaptureSettings}


def _typed(name: str, value: Any, default: Any) -> Any:
    if name in ("max_bytes", "log_follow_bytes_per_pod"):
        return parse_bytes(value)
    if isinstance(default, bool):
        if not isinstance(value, bool):
            raise InputError(f"config key {name}: expected true or false, got {value!r}")
        return value
    if isinstance(default, (int, float)):
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise InputError(f"config key {name}: expected a number >= 0, got {value!r}")
        return type(default)(value)
    if isinstance(default, tuple):
        items = [value] if isinstance(value, str) else list(value) if isinstance(value, tuple) else value
        if not isinstance(items, list) or not all(isinstance(v, str) for v in items):
            raise InputError(f"config key {name}: expected a list of names, got {value!r}")
        return tuple(items)
    if isinstance(default, Path):
        return Path(str(value))
    if value is not None and not isinstance(value, str):
        raise InputError(f"config key {name}: expected a string, got {value!r}")
    return value


def _apply(target: Any, data: dict[str, Any], where: str) -> None:
    known = {f.name for f in fields(target)}
    for key, value in data.items():
        if key not in known:
            raise InputError(f"{where}: unknown key {key!r} (known: {', '.join(sorted(known))})")
        if key in _NESTED and isinstance(target, WatchConfig):
            if not isinstance(value, dict):
                raise InputError(f"{where}: {key} must be a mapping")
            _apply(getattr(target, key), value, f"{where} {key}")
        else:
            setattr(target, key, _typed(key, value, getattr(target, key)))


def load(path: str | None, flags: dict[str, Any]) -> WatchConfig:
    """The file's keys, then the flags that were given (None / empty = not given)."""
    cfg = WatchConfig()
    if path:
        import yaml

        try:
            data = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError, UnicodeDecodeError) as exc:
            raise InputError(f"config {path}: {str(exc).splitlines()[0]}") from None
        if not isinstance(data, dict):
            raise InputError(f"config {path}: not a mapping of keys")
        _apply(cfg, data, f"config {path}")
    given = {k: v for k, v in flags.items() if v not in (None, (), "", False)}
    _apply(cfg, given, "flags")
    unknown = [k for k in cfg.kinds if k not in KINDS]
    if unknown:
        raise InputError(f"kinds: unknown job kind {unknown[0]!r} (known: {', '.join(KINDS)})")
    if cfg.max_concurrent < 1:
        raise InputError("max_concurrent must be at least 1")
    return cfg


def listen_address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not port.isdigit() or int(port) > 65535:
        raise InputError(f"listen: {text!r} is not HOST:PORT")
    return host.strip("[]") or "0.0.0.0", int(port)


__all__ = ["CaptureSettings", "KINDS", "Retention", "WatchConfig", "listen_address", "load", "parse_bytes"]
