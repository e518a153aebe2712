"""Pseudonym mapping properties (hypothesis), text replacement boundaries, redact/reveal CLI."""

from __future__ import annotations

import ipaddress
import json
import os
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
from hypothesis import given, settings
from hypothesis import strategies as st

from k10s_forensics.sharing.redact.pseudonym import Pseudonymizer
from k10s_forensics.sharing.redact.replace import TextReplacer
from k10s_forensics.sharing.redact.revealer import reveal_text
from k10s_forensics.sharing.redact.secrets import SecretScanner
from canary_kit import IDENTITIES, SECRETS, build_canary_bundle, find_leaks

KEYS = st.binary(min_size=16, max_size=48)
NAMES = st.from_regex(r"[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?", fullmatch=True)
IPV4 = st.integers(min_value=0, max_value=2**32 - 1).map(lambda n: str(ipaddress.IPv4Address(n)))


@given(KEYS, NAMES)
def test_names_are_deterministic(key: bytes, name: str) -> None:
    assert Pseudonymizer(key).name(name, "pod") == Pseudonymizer(key).name(name, "pod")


@given(KEYS, st.lists(NAMES, min_size=2, max_size=40, unique=True), st.integers(min_value=1, max_value=8))
def test_names_are_injective_even_with_forced_collisions(key: bytes, names: list[str], hex_len: int) -> None:
    p = Pseudonymizer(key, hex_len=hex_len)
    tokens = [p.name(n, "pod") for n in names]
    assert len(set(tokens)) == len(names)
    assert [p.name(n, "pod") for n in names] == tokens  # stable once issued


@given(KEYS, KEYS, NAMES)
def test_names_depend_on_the_key(key1: bytes, key2: bytes, name: str) -> None:
    if key1 != key2:
        assert Pseudonymizer(key1).name(name, "node") != Pseudonymizer(key2).name(name, "node")


@given(KEYS, st.lists(IPV4, min_size=1, max_size=30, unique=True))
@settings(max_examples=60)
def test_ipv4_is_an_injective_reversible_structure_keeping_map(key: bytes, ips: list[str]) -> None:
    p = Pseudonymizer(key)
    mapped = [p.ipv4(ip) for ip in ips]
    assert len(set(mapped)) == len(ips)
    assert [Pseudonymizer(key).ipv4(ip) for ip in ips] == mapped
    for ip, out in zip(ips, mapped):
        assert p.reveal_ipv4(out) == ip
        a, b = ipaddress.IPv4Address(ip), ipaddress.IPv4Address(out)
        assert a.is_private == b.is_private and a.is_global == b.is_global
        assert int(a) & 0xFF in (0, 255) or 0 < int(b) & 0xFF < 255
    for i, x in enumerate(ips):
        for j, y in enumerate(ips):
            same24 = x.rsplit(".", 1)[0] == y.rsplit(".", 1)[0]
            assert same24 == (mapped[i].rsplit(".", 1)[0] == mapped[j].rsplit(".", 1)[0])


@given(KEYS, IPV4)
def test_ipv4_depends_on_the_key(key: bytes, ip: str) -> None:
    a = ipaddress.IPv4Address(ip)
    if not (a.is_loopback or a.is_link_local or a.is_multicast or a.is_reserved or int(a) >> 24 == 0 or a.is_unspecified):
        other = Pseudonymizer(key + b"x").ipv4(ip)
        assert Pseudonymizer(key).ipv4(ip) != other or ip.endswith((".0", ".255"))


def _replacer(key: bytes = b"k" * 32, names: dict[str, str] | None = None) -> TextReplacer:
    names = names or {"job-worker-1": "pod", "job-worker-10": "pod", "job": "job", "team-a": "namespace"}
    return TextReplacer(Pseudonymizer(key), names)


def test_prefix_names_keep_their_boundaries() -> None:
    r = _replacer()
    t = r.tokens
    out = r.replace("job-worker-1 job-worker-10 job-worker-11 job-worker-1.job.team-a.svc pytorchjob-job-x job_worker")
    assert out.split() == [t["job-worker-1"], t["job-worker-10"], f"{t['job']}-worker-11",
                           f"{t['job-worker-1']}.{t['job']}.{t['team-a']}.svc", f"pytorchjob-{t['job']}-x", "job_worker"]


def test_hostnames_embedding_ips_follow_the_ip_mapping() -> None:
    r = _replacer()
    mapped = r.pseudo.ipv4("10.0.3.17")
    out = r.replace("ip-10-0-3-17.ec2.internal 10.0.3.17:29500 10-0-3-17.team-a.pod abc-10.0.3.17")
    dashed = mapped.replace(".", "-")
    assert out.split() == [f"ip-{dashed}.ec2.internal", f"{mapped}:29500", f"{dashed}.{r.tokens['team-a']}.pod", f"abc-{mapped}"]


@given(st.sampled_from(["password", "DB_PASSWORD", "api_key", "SECRET", "auth_token", "private_key"]),
       st.from_regex(r"[A-Za-z0-9!#%+/=_.~-]{6,40}", fullmatch=True), st.sampled_from(["=", ": ", " = ", '": "']))
def test_named_secrets_always_go(name: str, value: str, sep: str) -> None:
    text = f'prefix {name}{sep}{value} suffix'
    out = SecretScanner().scan(text)
    assert value not in out.split("REDACTED")[-1] and "[REDACTED:" in out


def test_gpu_ids_timestamps_and_metrics_stay() -> None:
    line = 'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-8f0e1a2b-1c2d-3e4f-5a6b-7c8d9e0f1a2b",pod="job-worker-1"} 97 1740823200000'
    out = _replacer().replace(SecretScanner().scan(line))
    assert "GPU-8f0e1a2b-1c2d-3e4f-5a6b-7c8d9e0f1a2b" in out and out.endswith(" 97 1740823200000") and "job-worker-1" not in out
    ts = "2026-03-01T10:00:00.123456Z [rank3]:[E ProcessGroupNCCL.cpp:616] [Rank 3] Timeout(ms)=600000"
    assert _replacer().replace(SecretScanner().scan(ts)) == ts


def test_reveal_round_trip() -> None:
    r = _replacer()
    text = "rank 3 of job-worker-10 in team-a on ip-10-0-3-17 at 10.0.3.17"
    red = r.replace(text)
    token_map = {tok: (val, kind) for tok, (val, kind) in r.pseudo.issued.items()}
    back, count = reveal_text(red, r.pseudo.key, token_map)
    assert back == text and count == 4


def _k10s(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "K10S_CACHE_DIR": str(cwd / "cache")}
    return subprocess.run([sys.executable, "-m", "k10s_forensics", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=180)


def test_cli_redact_strict_reveal_and_verify(tmp_path: Path) -> None:
    bundle = build_canary_bundle(tmp_path / "b")
    key = tmp_path / "keys" / "k10s.key"
    done = _k10s("redact", str(bundle), "-o", str(tmp_path / "out.tar.gz"), "--level", "strict", "--key-file", str(key), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert key.is_file() and oct(key.stat().st_mode & 0o777) == "0o600"
    assert "key id" in done.stdout and not (tmp_path / "out").exists()
    checked = _k10s("verify", str(tmp_path / "out.tar.gz"), cwd=tmp_path)
    assert checked.returncode == 0 and "redacted (strict" in checked.stdout, checked.stdout
    unpacked = next(p for p in (tmp_path / "cache").iterdir() if p.is_dir())
    assert find_leaks(unpacked, {**SECRETS, **IDENTITIES}) == []
    pods = pq.read_table(unpacked / "raw" / "logs.parquet", columns=["pod"]).column("pod").to_pylist()
    back = _k10s("redact", "--reveal", f"slow rank on {pods[-1]}", "--key-file", str(key), cwd=tmp_path)
    assert back.returncode == 0 and back.stdout.strip() == f"slow rank on {IDENTITIES['job']}-worker-10"
    unknown = _k10s("redact", "--reveal", "pod-00000000", "--key-file", str(key), cwd=tmp_path)
    assert unknown.returncode == 1 and "no token" in unknown.stderr
    again = _k10s("redact", str(bundle), "-o", str(tmp_path / "out.tar.gz"), cwd=tmp_path)
    assert again.returncode == 1 and "already exists" in again.stderr
    inside = _k10s("redact", str(bundle), "-o", str(tmp_path / "o2"), "--level", "strict", "--key-file", str(bundle / "k.key"), cwd=tmp_path)
    assert inside.returncode == 1 and "outside the bundles" in inside.stderr and not (tmp_path / "o2").exists()


def test_same_key_same_tokens_across_bundles(tmp_path: Path) -> None:
    from k10s_forensics.sharing.redact import redact

    bundle = build_canary_bundle(tmp_path / "b")
    key = tmp_path / "k.key"
    redact(bundle, tmp_path / "r1", level="strict", key_file=key)
    redact(bundle, tmp_path / "r2", level="strict", key_file=key)
    redact(bundle, tmp_path / "r3", level="strict", key_file=tmp_path / "other.key")
    read = lambda p: pq.read_table(p / "raw" / "objects.parquet", columns=["name"]).column("name").to_pylist()  # noqa: E731
    assert read(tmp_path / "r1") == read(tmp_path / "r2")
    assert set(read(tmp_path / "r1")).isdisjoint(read(tmp_path / "r3"))
    manifest = json.loads((tmp_path / "r1" / "manifest.json").read_text())
    assert manifest["redaction"]["key_id"] == json.loads((tmp_path / "r2" / "manifest.json").read_text())["redaction"]["key_id"]
