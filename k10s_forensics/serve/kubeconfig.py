"""A kubeconfig pointing kubectl (or the kubernetes client) at a running ``k10s serve``."""

from __future__ import annotations

import json
import os
from pathlib import Path


def kubeconfig_text(url: str, name: str = "k10s-serve", namespace: str = "default") -> str:
    """YAML text (strings JSON-quoted, which YAML accepts) for a plain-HTTP server."""
    q = json.dumps
    return "\n".join(
        [
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            f"- name: {q(name)}",
            "  cluster:",
            f"    server: {q(url)}",
            "users:",
            f"- name: {q(name)}",
            "  user: {}",
            "contexts:",
            f"- name: {q(name)}",
            "  context:",
            f"    cluster: {q(name)}",
            f"    user: {q(name)}",
            f"    namespace: {q(namespace)}",
            f"current-context: {q(name)}",
            "preferences: {}",
            "",
        ]
    )


def write_kubeconfig(path: str | os.PathLike[str], url: str, name: str = "k10s-serve", namespace: str = "default") -> Path:
    """Write the kubeconfig (mode 0600, as kubectl likes) and return its path."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(kubeconfig_text(url, name, namespace), encoding="utf-8")
    target.chmod(0o600)
    return target


__all__ = ["kubeconfig_text", "write_kubeconfig"]
