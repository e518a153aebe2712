"""k10s redact opens Flight Recorder dumps (base64 pickles) so names inside them are redacted
too, refuses hostile ones, and the redacted bundle still names the hang's culprit."""

from __future__ import annotations

import base64
import json
import os
import pickle

import pyarrow as pa
import pyarrow.parquet as pq

from k10s_forensics.analyze.runner import prepare
from k10s_forensics.store.bundle import Bundle
from k10s_forensics.parsers.fr_unpickle import loads_data
from k10s_forensics.rebuild.run import rebuild
from k10s_forensics.sharing.redact import redact
from k10s_forensics.simulate import simulate


class _Hostile:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


def _exec_rows(path):
    return pq.read_table(path / "raw" / "exec.parquet").to_pylist()


def test_strict_redaction_rewrites_names_inside_dumps(tmp_path):
    original = tmp_path / "orig"
    truth = simulate("hang-flight-recorder", original, seed=3, nodes=2, gpus_per_node=2, minutes=5, interval_s=30)
    culprit = truth["hang_evidence"][0]["culprit_ranks"]
    rows = _exec_rows(original)
    fr = [r for r in rows if r["source"] == "flight-recorder"]
    node, pod = fr[0]["node"], fr[0]["pod"]
    marker = tmp_path / "ran"
    env = json.loads(fr[0]["stdout"])
    first = next(f for f in env["files"] if "b64" in f)
    doc = loads_data(base64.b64decode(first["b64"])) if base64.b64decode(first["b64"])[:1] == b"\x80" else json.loads(base64.b64decode(first["b64"]))
    doc["entries"][-1]["frames"] = [{"name": "train_step", "filename": f"/home/{node}/{pod}/train.py", "line": 12}]
    first["b64"] = base64.b64encode(pickle.dumps(doc, protocol=2)).decode()
    env["files"].append({"path": env["prefix"] + "999", "bytes": 10, "b64": base64.b64encode(pickle.dumps([_Hostile(marker)])).decode()})
    fr[0]["stdout"] = json.dumps(env)
    path = original / "raw" / "exec.parquet"
    pq.write_table(pa.Table.from_pylist(rows, schema=pq.read_schema(path)), path, compression="zstd")
    rebuild(Bundle.open(original))
    red = tmp_path / "red"
    redact(original, red, level="strict", key_file=tmp_path / "k.key", rebuild_tables=True)
    assert not marker.exists()
    out = [r for r in _exec_rows(red) if r["source"] == "flight-recorder"]
    text = "\n".join(r["stdout"] for r in out)
    assert '"b64"' not in text and "train_step" in text
    assert node not in text and pod not in text
    assert "withheld by redaction" in text
    con = prepare(Bundle.open(red))
    try:
        named = [r for r in con.sql("SELECT culprit_ranks FROM k10s_hang_evidence_fr").fetchall() if r[0]]
    finally:
        con.close()
    assert named == [(culprit,)]


def test_standard_level_opens_dumps_too(tmp_path):
    original = tmp_path / "orig"
    simulate("hang-flight-recorder", original, seed=5, nodes=2, gpus_per_node=1, minutes=4, interval_s=30)
    redact(original, tmp_path / "red", level="standard", key_file=tmp_path / "k.key")
    out = [r for r in _exec_rows(tmp_path / "red") if r["source"] == "flight-recorder"]
    assert out and all('"b64"' not in r["stdout"] for r in out)
