"""Label and field selectors with the Kubernetes grammar.

Label selectors: ``k=v``, ``k==v``, ``k!=v``, ``k in (a,b)``, ``k notin (a,b)``, ``k``
(exists), ``!k`` (does not exist), comma-separated (all must hold).
Field selectors: ``path=v``, ``path==v``, ``path!=v`` on any dotted path of the object
(``spec.nodeName``, ``metadata.name``, ``status.phase``, ``involvedObject.uid``, ...); a
missing field compares as the empty string, as the API server does for ``spec.nodeName=``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

Predicate = Callable[[dict[str, Any]], bool]


class SelectorError(ValueError):
    """A selector that does not parse (answered with 400 BadRequest)."""


@dataclass(frozen=True)
class Requirement:
    key: str
    op: str  # "=", "!=", "in", "notin", "exists", "!"
    values: tuple[str, ...] = ()

    def matches(self, labels: dict[str, str]) -> bool:
        present = self.key in labels
        value = labels.get(self.key)
        if self.op == "exists":
            return present
        if self.op == "!":
            return not present
        if self.op == "=":
            return present and value == self.values[0]
        if self.op == "!=":
            return not present or value != self.values[0]
        if self.op == "in":
            return present and value in self.values
        return not present or value not in self.values  # notin


def _split_top(text: str) -> list[str]:
    """Split on commas outside parentheses."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                raise SelectorError(f"unbalanced ')' in {text!r}")
        if ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    if depth:
        raise SelectorError(f"unbalanced '(' in {text!r}")
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


_KEY = r"[A-Za-z0-9]([-A-Za-z0-9_./]*[A-Za-z0-9])?"
_SET_RE = re.compile(rf"^({_KEY})\s+(in|notin)\s*\(([^)]*)\)$")
_EQ_RE = re.compile(rf"^({_KEY})\s*(==|!=|=)\s*(.*)$")
_KEY_RE = re.compile(rf"^(!?)\s*({_KEY})$")


def parse_label_selector(text: str | None) -> list[Requirement]:
    """Parse a label selector; an empty or absent selector matches everything."""
    reqs: list[Requirement] = []
    for part in _split_top(text or ""):
        if m := _SET_RE.match(part):
            values = tuple(v.strip() for v in m.group(4).split(",") if v.strip())
            reqs.append(Requirement(m.group(1), m.group(3), values))
        elif m := _EQ_RE.match(part):
            op = "=" if m.group(3) in ("=", "==") else "!="
            reqs.append(Requirement(m.group(1), op, (m.group(4).strip(),)))
        elif m := _KEY_RE.match(part):
            reqs.append(Requirement(m.group(2), "!" if m.group(1) else "exists"))
        else:
            raise SelectorError(f"unable to parse requirement: {part!r}")
    return reqs


def label_predicate(text: str | None) -> Predicate:
    reqs = parse_label_selector(text)

    def pred(obj: dict[str, Any]) -> bool:
        labels = (obj.get("metadata") or {}).get("labels") or {}
        return all(r.matches(labels) for r in reqs)

    return pred


def _split_escaped(text: str, sep: str) -> list[str]:
    parts, cur, i = [], [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            cur.append(text[i : i + 2])
            i += 2
            continue
        if ch == sep:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
        i += 1
    parts.append("".join(cur))
    return parts


def _unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def field_value(obj: dict[str, Any], path: str) -> str:
    """The text of a dotted field path; absent fields are ``""``; booleans as true/false."""
    cur: Any = obj
    for part in path.split("."):
        if not isinstance(cur, dict) or part not in cur:
            return ""
        cur = cur[part]
    if cur is None:
        return ""
    if isinstance(cur, bool):
        return "true" if cur else "false"
    return str(cur)


def parse_field_selector(text: str | None) -> list[tuple[str, str, str]]:
    """(path, op, value) triples; op is ``=`` or ``!=``."""
    out = []
    for part in _split_escaped(text or "", ","):
        part = part.strip()
        if not part:
            continue
        m = re.match(r"^([A-Za-z0-9_.\-]+)\s*(==|!=|=)(.*)$", part)
        if not m:
            raise SelectorError(f"invalid field selector: {part!r}")
        op = "!=" if m.group(2) == "!=" else "="
        out.append((m.group(1), op, _unescape(m.group(3).strip())))
    return out


def field_predicate(text: str | None) -> Predicate:
    terms = parse_field_selector(text)

    def pred(obj: dict[str, Any]) -> bool:
        for path, op, value in terms:
            equal = field_value(obj, path) == value
            if equal != (op == "="):
                return False
        return True

    return pred


__all__ = [
    "Requirement",
    "SelectorError",
    "field_predicate",
    "field_value",
    "label_predicate",
    "parse_field_selector",
    "parse_label_selector",
]
