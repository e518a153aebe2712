"""Helpers for capture's end-to-end tests: simulate → serve → capture, and comparing bundles."""

from __future__ import annotations

import io
import json
import re
from collections import defaultdict
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics.store.bundle import RAW_SCHEMAS, Bundle, read_raw

OCI_NO_SS = ('OCI runtime exec failed: exec failed: unable to start container process: exec: "ss": executable file not '
             "found in $PATH: unknown\r\n")


def rows(bundle_path: Path, name: str) -> list[dict]:
    return read_raw(Bundle.open(bundle_path), name).to_pylist()


def last_listing(bundle_path: Path) -> dict[tuple, dict]:
    """(api_version, kind, namespace, name) -> body of the last listing of each kind (what serve serves)."""
    by_kind: dict[tuple, list[dict]] = defaultdict(list)
    for r in rows(bundle_path, "objects"):
        by_kind[(r["api_version"], r["kind"])].append(r)
    out = {}
    for kind_rows in by_kind.values():
        last = max(r["captured_at"] for r in kind_rows)
        for r in kind_rows:
            if (last - r["captured_at"]).total_seconds() <= 5:
                out[(r["api_version"], r["kind"], r["namespace"], r["name"])] = json.loads(r["body"])
    return out


def captured_objects(bundle_path: Path) -> dict[tuple, dict]:
    return {(r["api_version"], r["kind"], r["namespace"], r["name"]): json.loads(r["body"]) for r in
            sorted(rows(bundle_path, "objects"), key=lambda r: r["captured_at"])}


def recordings(bundle_path: Path, name: str, key_cols: tuple[str, ...]) -> dict[tuple, list[dict]]:
    out: dict[tuple, list[dict]] = defaultdict(list)
    for r in sorted(rows(bundle_path, name), key=lambda r: r["captured_at"]):
        out[tuple(r[c] for c in key_cols)].append(r)
    return dict(out)


EXEC_KEY = ("namespace", "pod", "container", "command")


def make_pod_lack_ss(bundle_path: Path, pod: str) -> str:
    """Rewrite a pod's ss recordings as a container without iproute2 (exit 126, OCI message)."""
    path = bundle_path / "raw" / "exec.parquet"
    table = pq.read_table(path).to_pylist()
    for r in table:
        if r["source"] == "ss" and r["pod"] == pod and r["error"] is None:
            r.update(exit_code=126, stdout="", stderr=OCI_NO_SS)
    pq.write_table(pa.Table.from_pylist(table, schema=RAW_SCHEMAS["exec"]), path, compression="zstd")
    return pod


REQUEST = re.compile(r'"([A-Z]+) (\S+) HTTP/1\.[01]" (\d+)')


def requests_from_log(log: io.StringIO) -> list[tuple[str, str, int]]:
    return [(m.group(1), m.group(2), int(m.group(3))) for m in REQUEST.finditer(log.getvalue())]
