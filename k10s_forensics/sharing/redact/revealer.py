"""Reveal: map pseudonyms in a text (a support engineer's reply) back to the originals.

Name tokens (``pod-3fa2c1d0``) are looked up in the map beside the key file; IPv4
addresses and IP-embedding hostnames are inverted with the key itself (the mapping is a
keyed permutation); IPv6 tokens come from the map.
"""

from __future__ import annotations

import re

from k10s_forensics.sharing.redact.pseudonym import PREFIXES, Pseudonymizer
from k10s_forensics.sharing.redact.replace import _HOST_IP, _IPV4, _IPV6

_TOKEN = re.compile(r"(?<![A-Za-z0-9_])((?:" + "|".join(sorted(set(PREFIXES.values()))) + r")-[0-9a-f]{8,64})(?![A-Za-z0-9_])")
_ADDR = re.compile("|".join((_HOST_IP, _IPV4, _IPV6)))


def reveal_text(text: str, key: bytes, token_map: dict[str, tuple[str, str]]) -> tuple[str, int]:
    """``text`` with every known token replaced by its original; and how many were."""
    pseudo = Pseudonymizer(key)
    count = 0

    def name(m: re.Match[str]) -> str:
        nonlocal count
        entry = token_map.get(m.group(1))
        if entry is None:
            return m.group(0)
        count += 1
        return entry[0]

    def addr(m: re.Match[str]) -> str:
        nonlocal count
        if m.group(2) is not None:
            dotted = ".".join(m.group(i) for i in range(2, 6))
            original = pseudo.reveal_ipv4(dotted)
            count += original != dotted
            return m.group(1) + original.replace(".", "-")
        if m.group(6) is not None:
            original = pseudo.reveal_ipv4(m.group(6))
            count += original != m.group(6)
            return original
        entry = token_map.get(m.group(7))
        if entry is None:
            return m.group(0)
        count += 1
        return entry[0]

    out = _ADDR.sub(addr, _TOKEN.sub(name, text))
    return out, count


__all__ = ["reveal_text"]
