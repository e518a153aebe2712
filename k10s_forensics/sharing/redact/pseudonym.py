"""Keyed, consistent, injective pseudonyms for names and IP addresses.

Names: ``<prefix>-<hex>`` where hex is the start of HMAC-SHA256(key, value) (8 hex digits,
longer only when two values of one bundle would collide), e.g. ``node-3fa2c1d0``,
``ns-…``, ``pod-…``. The prefix says what the value was; the digits depend only on the value
and the key, so the same value gets the same digits in every bundle redacted with that key.
Reveal needs the map written beside the key file (HMAC is one-way).

IPv4 (reversible with the key alone): the address keeps its class and its /24 structure.
Each /24 prefix is permuted within its class by a keyed Feistel permutation (10/8 stays in
10/8, 172.16/12 in 172.16/12, 192.168/16 in 192.168/16, 100.64/10 in 100.64/10, public
prefixes among public prefixes, by cycle walking), and the host octet by a keyed
permutation of 1..254 that depends on the prefix (.0 and .255 stay). Loopback, link-local,
multicast, reserved and 0.0.0.0/8 addresses carry no identity and stay. Two addresses in
one /24 land in one /24; distinct addresses stay distinct (a permutation is injective).

IPv6: the /64 network maps to a ULA ``fdxx:…/64`` and the interface id to keyed digits
(link-local ``fe80::/64`` keeps its prefix); reveal through the map.

Hostnames that embed an IPv4 (``ip-10-0-3-17.ec2.internal``, ``10-0-3-17.ns.pod``) map the
embedded address like the address itself, so they still agree with it.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
from collections.abc import Callable

PREFIXES = {
    "node": "node", "namespace": "ns", "job": "job", "pod": "pod", "host": "host", "registry": "reg",
    "cluster": "cluster", "workload": "wl", "queue": "queue", "label": "lbl", "object": "obj",
}

# (first address, prefix bits of the class, bits of /24 prefix inside the class)
_V4_CLASSES: tuple[tuple[str, int, int], ...] = (
    ("10.0.0.0", 8, 16),
    ("172.16.0.0", 12, 12),
    ("192.168.0.0", 16, 8),
    ("100.64.0.0", 10, 14),
)
_V4_KEEP = tuple(
    ipaddress.ip_network(n)
    for n in ("0.0.0.0/8", "127.0.0.0/8", "169.254.0.0/16", "224.0.0.0/4", "240.0.0.0/4", "192.0.2.0/24", "198.51.100.0/24", "203.0.113.0/24")
)
_V4_CLASS_NETS = tuple(ipaddress.ip_network(f"{base}/{bits}") for base, bits, _ in _V4_CLASSES)


def key_id(key: bytes) -> str:
    """First 8 hex digits of SHA-256(key): names the key without revealing it."""
    return hashlib.sha256(key).hexdigest()[:8]


class Pseudonymizer:
    """Maps names and addresses to tokens with one key; remembers what it issued."""

    def __init__(self, key: bytes, *, hex_len: int = 8, known: dict[str, str] | None = None):
        if len(key) < 16:
            raise ValueError("the redaction key must be at least 16 bytes")
        self.key = key
        self.hex_len = hex_len
        self.by_value: dict[str, str] = {}
        self.by_token: dict[str, str] = {}
        self.issued: dict[str, tuple[str, str]] = {}  # token -> (value, kind), new this run
        self._v4: dict[str, str] = {}
        self._v6: dict[str, str] = {}
        for token, value in (known or {}).items():
            self.by_value.setdefault(value, token)
            self.by_token.setdefault(token, value)

    # ---- names ------------------------------------------------------------------
    def digest(self, value: str) -> str:
        return hmac.new(self.key, b"k10s-name\x00" + value.encode("utf-8"), hashlib.sha256).hexdigest()

    def name(self, value: str, kind: str) -> str:
        """The token of ``value`` (``kind`` picks the prefix on first sight)."""
        token = self.by_value.get(value)
        if token is not None:
            return token
        prefix = PREFIXES.get(kind, kind)
        digest = self.digest(value)
        length = self.hex_len
        while True:
            token = f"{prefix}-{digest[:length]}"
            owner = self.by_token.get(token)
            if owner is None or owner == value:
                break
            length += 4  # a collision: take more digits (still deterministic for this value)
        self.by_value[value] = token
        self.by_token[token] = value
        self.issued[token] = (value, kind)
        return token

    # ---- IPv4 ---------------------------------------------------------------------
    def _round(self, tweak: str, i: int, half: int, x: int) -> int:
        mac = hmac.new(self.key, f"k10s-ip4|{tweak}|{i}|{x}".encode(), hashlib.sha256).digest()
        return int.from_bytes(mac[:4], "big") & ((1 << half) - 1)

    def _feistel(self, x: int, bits: int, tweak: str, inverse: bool = False) -> int:
        half = bits // 2
        mask = (1 << half) - 1
        left, right = x >> half, x & mask
        if not inverse:
            for i in range(4):
                left, right = right, left ^ self._round(tweak, i, half, right)
        else:
            for i in reversed(range(4)):
                left, right = right ^ self._round(tweak, i, half, left), left
        return (left << half) | right

    def _permute(self, x: int, bits: int, tweak: str, inside: Callable[[int], bool], inverse: bool = False) -> int:
        y = self._feistel(x, bits, tweak, inverse)
        while not inside(y):  # cycle walking keeps the permutation inside the subset
            y = self._feistel(y, bits, tweak, inverse)
        return y

    def ipv4(self, text: str) -> str:
        """The pseudonymous IPv4 address for ``text`` (dotted quad); kept classes unchanged."""
        cached = self._v4.get(text)
        if cached is not None:
            return cached
        try:
            addr = ipaddress.IPv4Address(text)
        except ValueError:
            return text
        out = str(self._map_v4(addr, inverse=False))
        self._v4[text] = out
        return out

    def reveal_ipv4(self, text: str) -> str:
        return str(self._map_v4(ipaddress.IPv4Address(text), inverse=True))

    def _map_v4(self, addr: ipaddress.IPv4Address, inverse: bool) -> ipaddress.IPv4Address:
        if any(addr in net for net in _V4_KEEP):
            return addr
        value = int(addr)
        prefix24, host = value >> 8, value & 0xFF
        for (base, cbits, pbits), net in zip(_V4_CLASSES, _V4_CLASS_NETS):
            if addr in net:
                base24 = int(ipaddress.IPv4Address(base)) >> 8
                inner = prefix24 - base24
                tweak = f"class:{base}"
                inner2 = self._permute(inner, pbits, tweak, lambda y: True, inverse)
                new_prefix = base24 + inner2
                break
        else:
            new_prefix = self._permute(prefix24, 24, "public", _is_public_prefix, inverse)
        orig_prefix = new_prefix if inverse else prefix24
        if host in (0, 255):
            new_host = host
        else:
            new_host = self._permute(host, 8, f"host:{orig_prefix}", lambda y: 0 < y < 255, inverse)
        return ipaddress.IPv4Address((new_prefix << 8) | new_host)

    # ---- IPv6 -----------------------------------------------------------------------
    def ipv6(self, text: str) -> str:
        cached = self._v6.get(text)
        if cached is not None:
            return cached
        try:
            addr = ipaddress.IPv6Address(text)
        except ValueError:
            return text
        if addr.is_loopback or addr.is_unspecified or addr.is_multicast or addr.ipv4_mapped is not None:
            return text
        value = int(addr)
        net, iid = value >> 64, value & ((1 << 64) - 1)
        if addr.is_link_local:
            new_net = net
        else:
            mac = hmac.new(self.key, f"k10s-ip6-net|{net}".encode(), hashlib.sha256).digest()
            new_net = (0xFD << 56) | int.from_bytes(mac[:7], "big")
        mac = hmac.new(self.key, f"k10s-ip6-iid|{net}|{iid}".encode(), hashlib.sha256).digest()
        out = str(ipaddress.IPv6Address((new_net << 64) | int.from_bytes(mac[:8], "big")))
        self._v6[text] = out
        if out not in self.by_token:
            self.by_token[out] = str(addr)
            self.issued[out] = (str(addr), "ip")
        return out


def _is_public_prefix(prefix24: int) -> bool:
    addr = ipaddress.IPv4Address(prefix24 << 8)
    return not any(addr in net for net in _V4_KEEP) and not any(addr in net for net in _V4_CLASS_NETS)


__all__ = ["Pseudonymizer", "PREFIXES", "key_id"]
