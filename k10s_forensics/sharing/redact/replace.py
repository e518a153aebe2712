"""One pass over a text replacing every vocabulary name, IPv4/IPv6 address and IP-embedding
hostname with its pseudonym.

The names are compiled into one regex shaped like a trie (shared prefixes factored, longer
continuations tried first), bounded by characters that cannot be part of a name:
``job-worker-1`` never matches inside ``job-worker-10``, but does inside
``job-worker-1.job.ns.svc`` or ``pytorchjob-job-worker-1-abc`` (dots and dashes are
boundaries), so a name embedded in a longer identifier is still replaced.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from k10s_forensics.sharing.redact.pseudonym import Pseudonymizer

_LEFT = r"(?<![A-Za-z0-9_])"
_RIGHT = r"(?![A-Za-z0-9_])"
_OCT = r"(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)"
_HOST_IP = rf"(?<![A-Za-z0-9.-])((?i:ip-)?)({_OCT})-({_OCT})-({_OCT})-({_OCT})(?![0-9]|-[0-9])"
_IPV4 = rf"(?<![0-9.])({_OCT}\.{_OCT}\.{_OCT}\.{_OCT})(?![0-9]|\.[0-9])"
_H = r"[0-9A-Fa-f]{1,4}"
_IPV6 = rf"(?<![0-9A-Za-z:.])((?:{_H}:){{7}}{_H}|(?:{_H}:){{1,6}}:(?:{_H}:){{0,5}}{_H}|(?:{_H}:){{2,7}}:)(?![0-9A-Za-z:.])"


def trie_regex(words: list[str]) -> str:
    """A regex matching exactly ``words``, longest first, as a factored trie."""
    trie: dict[str, Any] = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = True
    return _emit(trie)


def _emit(node: dict[str, Any]) -> str:
    end = "" in node
    branches = []
    for ch in sorted((k for k in node if k), key=lambda c: c):
        child = node[ch]
        # Collapse single-child chains into one literal run.
        run = re.escape(ch)
        while len(child) == 1 and "" not in child:
            (nxt, child), = child.items()
            run += re.escape(nxt)
        branches.append(run + _emit(child) if child and set(child) != {""} else run)
    if not branches:
        return ""
    body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
    if end:
        return "(?:" + body + ")?"
    return body


class TextReplacer:
    """Replaces names and addresses in text; counts replacements per kind."""

    def __init__(self, pseudo: Pseudonymizer, names: dict[str, str]):
        self.pseudo = pseudo
        self.names = names  # value -> kind
        self.tokens = {value: pseudo.name(value, kind) for value, kind in sorted(names.items())}
        self.counts: Counter[str] = Counter()
        self.distinct: dict[str, set[str]] = {}
        self._events: list[tuple[str, str]] = []
        parts = []
        if names:
            parts.append(f"{_LEFT}({trie_regex(sorted(names, key=lambda w: (-len(w), w)))}){_RIGHT}")
        else:
            parts.append(r"(\Zx)")  # never matches; keeps group numbers stable
        parts += [_HOST_IP, _IPV4, _IPV6]
        self.regex = re.compile("|".join(parts))

    def _seen(self, kind: str, value: str) -> None:
        self._events.append((kind, value))

    def commit(self, events: list[tuple[str, str]], times: int = 1) -> None:
        """Count ``events`` (what one replacement saw) ``times`` times."""
        for kind, value in events:
            self.counts[kind] += times
            self.distinct.setdefault(kind, set()).add(value)

    def replace_events(self, text: str, exact: bool = False) -> tuple[str, list[tuple[str, str]]]:
        """``replace`` (or ``replace_exact``) of ``text`` and the (kind, value) replacements it made, uncounted.

        Lets callers replace each distinct value once and count it as often as it occurs.
        """
        self._events = []
        token = self.tokens.get(text) if exact else None
        if token is not None:
            self._seen(self.names[text], text)
            out = token
        else:
            out = self.regex.sub(self._sub, text) if text else text
        events, self._events = self._events, []
        return out, events

    def _sub(self, m: re.Match[str]) -> str:
        name = m.group(1)
        if name is not None:
            self._seen(self.names[name], name)
            return self.tokens[name]
        if m.group(3) is not None:
            dotted = ".".join(m.group(i) for i in range(3, 7))
            mapped = self.pseudo.ipv4(dotted)
            if mapped == dotted:
                return m.group(0)
            self._seen("host-ip", m.group(0))
            return m.group(2) + mapped.replace(".", "-")
        if m.group(7) is not None:
            mapped = self.pseudo.ipv4(m.group(7))
            if mapped != m.group(7):
                self._seen("ip", m.group(7))
            return mapped
        text = m.group(8)
        mapped = self.pseudo.ipv6(text)
        if mapped != text:
            self._seen("ip", text)
        return mapped

    def replace(self, text: str | None) -> str | None:
        if not text:
            return text
        out, events = self.replace_events(text)
        self.commit(events)
        return out

    def replace_exact(self, text: str | None) -> str | None:
        """A whole field that is one name (pod, namespace, node column): dict lookup first."""
        if not text:
            return text
        out, events = self.replace_events(text, exact=True)
        self.commit(events)
        return out

    def distinct_counts(self) -> dict[str, int]:
        return {kind: len(values) for kind, values in sorted(self.distinct.items())}


__all__ = ["TextReplacer", "trie_regex"]
