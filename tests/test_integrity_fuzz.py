"""Fuzzing (hypothesis): parsers, the whole rebuild, serve request parsing and archive unpacking.

Inputs are mutations of every real sample in tests/data/real-samples and of simulated raw
rows (bit flips, truncation, splices, huge lines, invalid UTF-8, deep nesting, huge numbers,
NaN, negative counters, out-of-range times, duplicated keys). Zero crashes, zero hangs (each
input is time-bounded), losses counted in parse_errors. Short budget always; the long one
with ``K10S_FUZZ=long`` (see tests/fuzz_kit.py and docs/sharing.md for case counts).
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

from k10s_forensics.store.bundle import RAW_NAMES, Bundle, write_json_atomic, write_raw_table
from k10s_forensics.errors import BundleError

from conftest import REAL_SAMPLES, SAMPLE_BUNDLES
from fuzz_kit import CASES, FUZZ_SETTINGS, REBUILD_SETTINGS, mutate, ops_strategy, time_bound

T0 = dt.datetime(2026, 11, 21, 10, 0, tzinfo=dt.timezone.utc)


def _texts(folder: str, pattern: str = "*") -> list[str]:
    root = REAL_SAMPLES / folder
    if not root.is_dir():
        return []
    return [p.read_text(encoding="utf-8", errors="replace") for p in sorted(root.rglob(pattern)) if p.is_file()]


def _sim_exec(source: str) -> list[str]:
    table = pq.read_table(SAMPLE_BUNDLES / "nccl-hang" / "raw" / "exec.parquet", columns=["source", "stdout"]).to_pylist()
    return [r["stdout"] for r in table if r["source"] == source and r["stdout"]][:3]


SEEDS: dict[str, list[str]] = {
    "dcgm": _texts("dcgm-exporter"),
    "nvidia-smi-csv": _texts("nvidia-smi-csv"),
    "nvidia-smi-xml": _texts("nvidia-smi-xml"),
    "dmesg": _sim_exec("dmesg") or ["[Thu Nov 21 10:00:00 2026] NVRM: Xid (PCI:0000:3b:00): 79, pid=1, GPU has fallen off the bus.\n"],
    "log": _texts("logs") + [t for t in _texts("incidents", "log.txt")][:10],
    "prometheus": [json.dumps({"status": "success", "data": {"resultType": "matrix", "result": [
        {"metric": {"__name__": "DCGM_FI_DEV_GPU_UTIL", "Hostname": "n1", "UUID": "GPU-1", "gpu": "0"},
         "values": [[1763719200, "97"], [1763719230, "12"]]}]}})],
}


def _parse(kind: str, text: str):
    if kind == "dcgm":
        from k10s_forensics.parsers.dcgm import parse_dcgm_text

        return parse_dcgm_text(text, node="n1", captured_at=T0)
    if kind == "nvidia-smi-csv":
        from k10s_forensics.parsers.nvidia_smi_csv import parse_nvidia_smi_csv

        return parse_nvidia_smi_csv(text, None, T0)
    if kind == "nvidia-smi-xml":
        from k10s_forensics.parsers.nvidia_smi_xml import parse_nvidia_smi_xml

        return parse_nvidia_smi_xml(text)
    if kind == "dmesg":
        from k10s_forensics.parsers.dmesg import parse_dmesg

        return parse_dmesg(text, T0)
    if kind == "prometheus":
        from k10s_forensics.parsers.prometheus import parse_prometheus_query

        return parse_prometheus_query(text, "http://prom/api/v1/query_range")
    from k10s_forensics.parsers.log_classify import classify

    return [classify(line) for line in text.splitlines()[:2000]]


@pytest.mark.parametrize("kind", sorted(SEEDS))
def test_text_parsers_never_crash_or_hang(kind: str, real_samples) -> None:
    seeds = SEEDS[kind]
    assert seeds, f"no seed inputs for {kind}"

    @FUZZ_SETTINGS
    @given(st.integers(0, len(seeds) - 1), st.integers(0, len(seeds) - 1), ops_strategy())
    def check(i: int, j: int, ops) -> None:
        text = mutate(seeds[i], ops, seeds[j])
        CASES[f"parser {kind}"] += 1
        with time_bound():
            out = _parse(kind, text)
        assert out is not None

    check()


# ---- the whole rebuild on mutated raw rows ----------------------------------------------------
TEXT_COLUMNS = {"objects": "body", "exec": "stdout", "scrapes": "body", "logs": "body"}


def _seed_rows() -> dict[str, list[dict]]:
    src = SAMPLE_BUNDLES / "oom-crashloop" / "raw"
    rows = {}
    for name in RAW_NAMES:
        table = pq.read_table(src / f"{name}.parquet").to_pylist()
        # a few rows of every kind/source, so each parser sees something
        key = "kind" if name == "objects" else "source" if name in ("exec", "scrapes") else "container"
        seen: dict = {}
        for r in table:
            seen.setdefault(r.get(key), []).append(r)
        rows[name] = [r for group in seen.values() for r in group[:2]]
    for text in _texts("ss"):
        rows["exec"].append({**rows["exec"][0], "source": "ss", "command": "ss -tin", "stdout": text})
    return rows


@pytest.fixture(scope="module")
def seed_rows() -> dict[str, list[dict]]:
    return _seed_rows()


@REBUILD_SETTINGS
@given(st.sampled_from(RAW_NAMES), st.integers(0, 1 << 20), st.integers(0, 1 << 20), ops_strategy(3), st.booleans())
def test_rebuild_never_crashes_on_mutated_raw_rows(tmp_path_factory, seed_rows, name, pick, other, ops, negate_times) -> None:
    from k10s_forensics.rebuild.run import derive_tables

    root = tmp_path_factory.mktemp("fz")
    rows = {n: [dict(r) for r in rs] for n, rs in seed_rows.items()}
    column = TEXT_COLUMNS[name]
    target = rows[name][pick % len(rows[name])]
    donor = rows[name][other % len(rows[name])]
    target[column] = mutate(target.get(column) or "", ops, donor.get(column) or "")
    if negate_times:
        target["captured_at"] = dt.datetime(1970, 1, 1, tzinfo=dt.timezone.utc)
    for n, rs in rows.items():
        write_raw_table(root, n, rs)
    manifest = json.loads((SAMPLE_BUNDLES / "oom-crashloop" / "manifest.json").read_text())
    manifest["files"] = {}
    write_json_atomic(root / "manifest.json", manifest)
    out = root / "out"
    out.mkdir()
    CASES["rebuild (all parsers)"] += 1
    with time_bound(60):
        issues = derive_tables(Bundle.open(root), out)
    crashed = [f"{b.source}: {b.reason} {b.examples[:1]}" for b in issues.buckets() if b.source.startswith("parser:")]
    assert not crashed, crashed
    assert (out / "parse_errors.parquet").is_file()
    shutil.rmtree(root, ignore_errors=True)


# ---- serve request parsing ------------------------------------------------------------------
@FUZZ_SETTINGS
@given(st.text(max_size=300), st.text(alphabet=st.sampled_from("/apinamespacesv1podslog.%&=?-_ab"), max_size=120))
def test_serve_request_parsing_never_crashes(text: str, path: str) -> None:
    from k10s_forensics.serve.api import decode_continue, parse_route
    from k10s_forensics.serve.selectors import SelectorError, field_predicate, label_predicate
    from k10s_forensics.serve.wire import parse_query

    CASES["serve request parsing"] += 1
    with time_bound(5):
        for parse in (label_predicate, field_predicate):
            try:
                parse(text)
            except SelectorError:
                pass
        try:
            decode_continue(text)
        except ValueError:
            pass
        parse_route(path + text)
        parse_query(text)
        parse_query(path)


# ---- archive unpacking ----------------------------------------------------------------------
@pytest.fixture(scope="module")
def archive_plain(tmp_path_factory) -> Path:
    """The uncompressed tar stream of a packed sample bundle (a path: hypothesis need not print it)."""
    import gzip

    from k10s_forensics.sharing.pack import pack

    root = tmp_path_factory.mktemp("arch")
    shutil.copytree(SAMPLE_BUNDLES / "pending-taint", root / "b", ignore=shutil.ignore_patterns("tables", ".k10s.lock"))
    plain = root / "b.tar"
    plain.write_bytes(gzip.decompress(pack(root / "b", root / "b.tar.gz").path.read_bytes()))
    return plain


BYTE_OPS = st.lists(st.tuples(st.sampled_from(("flip", "truncate", "set", "zero")), st.integers(0, 1 << 30), st.integers(0, 255)),
                    min_size=1, max_size=4)


def _apply(data: bytearray, ops) -> bytearray:
    for op, pos, value in ops:
        i = pos % max(len(data), 1)
        if op == "flip" and data:
            data[i] ^= 1 << (value % 8)
        elif op == "truncate":
            del data[i:]
        elif op == "set" and data:
            data[i] = value
        elif op == "zero":
            data[i : i + 512] = bytes(min(512, max(len(data) - i, 0)))
    return data


@FUZZ_SETTINGS
@given(BYTE_OPS, BYTE_OPS)
def test_archive_unpacking_never_crashes_or_escapes(tmp_path_factory, archive_plain: Path, tar_ops, gzip_ops) -> None:
    """Mutate the tar stream (reaches the member checks), compress it, then mutate the gzip bytes."""
    import gzip

    from k10s_forensics.store.archive import safe_unpack

    data = _apply(bytearray(gzip.compress(bytes(_apply(bytearray(archive_plain.read_bytes()), tar_ops)), mtime=0)), gzip_ops)
    root = tmp_path_factory.mktemp("unp")
    archive = root / "a.tar.gz"
    archive.write_bytes(bytes(data))
    before = set(root.iterdir())
    CASES["archive unpacking"] += 1
    with time_bound(30):
        try:
            safe_unpack(archive, root / "target", collect=True)
        except BundleError:
            pass
    assert set(root.iterdir()) - before <= {root / "target"}, "nothing lands outside the target"
    shutil.rmtree(root, ignore_errors=True)


def test_zz_report_counts(capsys) -> None:
    """Print how many cases each fuzz target ran (the numbers in docs/sharing.md come from here)."""
    with capsys.disabled():
        print("\nfuzz cases:", ", ".join(f"{k}={v}" for k, v in sorted(CASES.items())))


# ---- regressions found by the long fuzz run ---------------------------------------------------
def test_a_three_byte_gzip_is_a_bundle_error(tmp_path: Path) -> None:
    from k10s_forensics.store.archive import safe_unpack

    archive = tmp_path / "a.tar.gz"
    archive.write_bytes(b"\x1f\x8b\x08")  # tarfile itself raised TypeError here
    with pytest.raises(BundleError, match="not a readable tar archive"):
        safe_unpack(archive, tmp_path / "t")


def test_a_huge_label_block_is_counted_not_slow(real_samples) -> None:
    import time

    from k10s_forensics.parsers.dcgm import parse_dcgm_text

    base = (real_samples / "dcgm-exporter" / "h100-80gb-hbm3_pod-labels-populated_dcgm-exporter-issue272-comment_excerpt.prom").read_text()
    i = base.index('UUID="') + 8
    started = time.process_time()
    rows, stats = parse_dcgm_text(base[:i] + "A" * (10 << 20) + base[i:], node="n1", captured_at=T0)
    assert time.process_time() - started < 5, "a 10 MB label value must not cost seconds of regex"
    assert stats["bad_labels"] == 1 and len(rows) >= 1


def test_a_garbage_gpu_instance_label_does_not_crash_the_dcgm_parser() -> None:
    from k10s_forensics.parsers.dcgm import parse_dcgm_text
    from k10s_forensics.parsers.gpu_common import mig_key

    assert mig_key("GPU-1", "\ufffd(\ufffd1") is None and mig_key("GPU-1", "nan") is None and mig_key("GPU-1", "inf") is None
    assert mig_key("GPU-1", "3") == "MIG-GPU-1/3"
    text = 'DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-1",GPU_I_ID="\ufffd(x",Hostname="n1"} 97\n'
    rows, _stats = parse_dcgm_text(text, node="n1", captured_at=T0)
    assert rows and rows[0]["gpu_uuid"] == "GPU-1"


def test_huge_and_infinite_numbers_in_dcgm_labels_are_not_crashes() -> None:
    from k10s_forensics.parsers.dcgm import parse_dcgm_text
    from k10s_forensics.parsers.gpu_common import int_or_none

    assert int_or_none("9" * 400) is None and int_or_none("inf") is None and int_or_none("1e30") is None and int_or_none("7") == 7
    for gpu in ("9" * 30, "9" * 400, "-" + "9" * 25, "inf"):
        text = f'DCGM_FI_DEV_GPU_UTIL{{gpu="{gpu}",UUID="GPU-1",Hostname="n1"}} 97\n'
        rows, _stats = parse_dcgm_text(text, node="n1", captured_at=T0)
        assert rows and rows[0]["gpu_uuid"] == "GPU-1", gpu
