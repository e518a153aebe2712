"""Redacting values: JSON object bodies, free text, whole-name fields, the manifest.

Secrets go first (by field name where the structure says what a value is: env
``{name, value}`` pairs, annotation keys, ``--password VALUE`` argument pairs, any JSON key
such as ``password`` or ``private_key``; then by pattern in every string), then, at the
strict level, identities by vocabulary and address patterns.

``kubectl.kubernetes.io/last-applied-configuration`` holds a second copy of the object as
JSON text: it is parsed and redacted like the object (or dropped when it does not parse).
"""

from __future__ import annotations

import json
from typing import Any

from k10s_forensics.sharing.redact.replace import TextReplacer
from k10s_forensics.sharing.redact.secrets import SecretScanner, is_sensitive_name, kind_for_name, mask, value_is_secret

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
_NAME_MAPS = frozenset({"labels", "annotations", "nodeSelector", "matchLabels"})
_LABEL_MAPS = frozenset({"labels", "matchLabels", "nodeSelector"})
_ARG_LISTS = frozenset({"args", "command"})
#: Manifest keys whose values are the format's own words, never cluster text.
_MANIFEST_KEEP = frozenset(
    {"format", "format_version", "created_at", "tool", "window", "complete", "files", "status", "started_at",
     "finished_at", "rows", "parser_version", "tables_built_at", "redaction", "name", "duration_ms"}
)


class Redactor:
    """Applies secret masking and (strict) pseudonymisation to every kind of value."""

    def __init__(self, scanner: SecretScanner, replacer: TextReplacer | None):
        self.scanner = scanner
        self.replacer = replacer
        self.unparsed_bodies = 0

    # ---- text ----------------------------------------------------------------------
    def text(self, value: str | None) -> str | None:
        if not value:
            return value
        value = self.scanner.scan(value)
        if self.replacer is not None:
            value = self.replacer.replace(value)
        return value

    def exact(self, value: str | None) -> str | None:
        """A field holding one name (namespace, pod, node): replaced as a whole when known."""
        if not value:
            return value
        value = self.scanner.scan(value)
        if self.replacer is not None:
            value = self.replacer.replace_exact(value)
        return value

    def field(self, name: str, value: str) -> str:
        """The value of a field called ``name`` (masked whole when the name says secret)."""
        if is_sensitive_name(name) and value_is_secret(name, value):
            kind = kind_for_name(name)
            self.scanner.counts[kind] += 1
            return mask(kind)
        return self.text(value) or value

    # ---- JSON ------------------------------------------------------------------------
    def object_body(self, body: str | None) -> str | None:
        """A Kubernetes object as JSON text, redacted and re-serialised (compact)."""
        if not body:
            return body
        try:
            obj = json.loads(body)
        except (json.JSONDecodeError, RecursionError):
            self.unparsed_bodies += 1
            return self.text(body)
        return json.dumps(self.json_value(obj), ensure_ascii=False, separators=(",", ":"))

    def json_value(self, value: Any, parent_key: str = "", depth: int = 0) -> Any:
        if depth > 200:
            return "[REDACTED:too-deep]"
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            if parent_key in _ARG_LISTS:
                return self._args(value, depth)
            return [self.json_value(v, parent_key, depth + 1) for v in value]
        if not isinstance(value, dict):
            return value
        env_name = value.get("name") if isinstance(value.get("name"), str) and "value" in value else None
        out: dict[str, Any] = {}
        for key, item in value.items():
            new_key = key
            if parent_key in _NAME_MAPS and self.replacer is not None:
                new_key = self.replacer.replace(key) or key
            if key == LAST_APPLIED and isinstance(item, str):
                out[new_key] = self._last_applied(item, depth)
            elif key == "value" and env_name is not None and isinstance(item, str):
                out[new_key] = self.field(env_name, item)
            elif isinstance(item, str):
                out[new_key] = self._keyed_string(key, item, parent_key)
            else:
                out[new_key] = self.json_value(item, key, depth + 1)
        return out

    def _keyed_string(self, key: str, item: str, parent_key: str) -> str:
        if key in ("key", "operator", "effect", "kind", "apiVersion", "uid", "resourceVersion", "type") or parent_key in _LABEL_MAPS:
            return self.text(item) or item  # structural fields and labels: never secret by name, still scanned
        if parent_key == "data" or parent_key == "stringData" or parent_key == "annotations" or parent_key == "":
            return self.field(key, item)
        if key in ("name", "namespace", "nodeName", "hostname"):
            return self.exact(item) or item
        return self.field(key, item)

    def _args(self, items: list[Any], depth: int) -> list[Any]:
        out: list[Any] = []
        secret_next, prev = False, ""
        for item in items:
            if not isinstance(item, str):
                out.append(self.json_value(item, "", depth + 1))
                secret_next = False
                continue
            if secret_next and not item.startswith("-") and value_is_secret(prev, item):
                kind = kind_for_name(prev)
                self.scanner.counts[kind] += 1
                out.append(mask(kind))
                secret_next = False
                continue
            secret_next = item.startswith("-") and "=" not in item and is_sensitive_name(item)
            prev = item
            out.append(self.text(item))
        return out

    def _last_applied(self, text: str, depth: int) -> str:
        try:
            inner = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            self.scanner.counts["last-applied-configuration"] += 1
            return mask("last-applied-configuration")
        return json.dumps(self.json_value(inner, "", depth + 1), ensure_ascii=False, separators=(",", ":")) + "\n"

    # ---- manifest ------------------------------------------------------------------------
    def manifest(self, manifest: dict[str, Any]) -> dict[str, Any]:
        """A copy of the manifest with every cluster-derived string redacted."""
        out: dict[str, Any] = {}
        for key, value in manifest.items():
            if key in ("files", "parse_errors", "redaction"):
                continue  # rewritten by the redaction itself
            if key in _MANIFEST_KEEP:
                out[key] = value
            elif key == "collectors" and isinstance(value, list):
                out[key] = [self._collector(c) for c in value]
            else:
                out[key] = self.json_value(value, "", 1)
        return out

    def _collector(self, entry: Any) -> Any:
        if not isinstance(entry, dict):
            return self.json_value(entry, "", 1)
        return {k: (v if k in _MANIFEST_KEEP else self.json_value(v, "", 1)) for k, v in entry.items()}


__all__ = ["Redactor", "LAST_APPLIED"]
