"""What the seventh set of real launcher recordings (tests/data/torch-runs ``t7-*``: MPICH's mpiexec,
torchx, structured logs, DDP's own errors) taught the parsers and rules, each with its wording
variants and the cases where nothing may be named:

* a structured (JSON) log record is read as its message, or the last line of the traceback it holds,
  with the rank the record names (parsers/log_json.py);
* torchx's ``<role>/<replica id> `` prefix and torchrun's ``[N]:`` tee prefix of an empty role (a local
  rank); ``k10s import-logs`` splits torchx's one stream into one node per replica;
* DDP's check that every rank built the same model is a ``collective-mismatch`` of the rank that raised
  it (every rank raising it: no single culprit);
* a silent rank whose own pod's other processes saw its connection close ended on its own (``lost_peer``),
  also when its launcher reports no rank (mpiexec).
"""

from __future__ import annotations

import json
import re

import pytest

from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_json import unjson
from k10s_forensics.parsers.log_normalize import normalize
from k10s_forensics.parsers.log_pod_prefix import split_replicas
from torch_runs_kit import RUNS, findings_of_texts, named, plain

V = RUNS / "2.13.0"
TB = "Traceback (most recent call last):\n  File \"/workspace/train.py\", line 9, in <module>\n    main()\nKeyError: 'labels'"


_findings, _named = findings_of_texts, named  # node logs through import-logs; (cause, ranks) named


def _logs(run: str, version: str = "2.13.0") -> list[str]:
    return [plain(p.read_text(encoding="utf-8")) for p in sorted((RUNS / version / run).glob("node*.log"))]


# ---- structured (JSON) records -------------------------------------------------------------------
@pytest.mark.parametrize("record,want", [
    ({"levelname": "ERROR", "message": "training failed", "exc_info": TB, "rank": 2}, ("KeyError: 'labels'", 2, None)),
    ({"event": "step failed", "exception": TB, "global_rank": "3", "local_rank": 1}, ("KeyError: 'labels'", 3, 1)),
    ({"severity": "ERROR", "msg": TB, "RANK": 0}, ("KeyError: 'labels'", 0, None)),  # the traceback in the message
    ({"level": "INFO", "msg": "step 3 loss 0.5000", "rank": 1}, ("step 3 loss 0.5000", 1, None)),
    ({"text": "epoch 2 done\nmore", "rank": True}, ("epoch 2 done", None, None)),  # a boolean is no rank
])
def test_a_json_record_is_its_message_or_exception_and_rank(record, want):
    assert unjson(json.dumps(record)) == want


@pytest.mark.parametrize("line", ['{"a": 1, "rank": 2}', "{not json}", '["msg", 1]', '{"msg": 3}', "plain text", '{"msg": ""}'])
def test_what_is_no_json_record_is_left_alone(line):
    assert unjson(line) is None


@pytest.mark.parametrize("prefix", ["", "2026-11-28T23:28:56.191318Z ", "[default1]:", "t7_worker/1 [1]:"])
def test_a_json_traceback_is_the_ranks_exception(prefix):
    line = prefix + json.dumps({"level": "ERROR", "rank": 2, "msg": "training failed", "exc_info": TB})
    assert (normalize(line).text, normalize(line).rank) == ("KeyError: 'labels'", 2)
    [ev] = classify(line)
    assert (ev["kind"], ev["subkind"], ev["error_type"], ev["rank"]) == ("python_exception", "raised", "KeyError", 2)


@pytest.mark.parametrize("key", ["rank", "global_rank"])
def test_a_json_logged_keyerror_names_its_rank(tmp_path, key):
    """t7-trun-jsonlog-keyerror-rank2: every traceback inside a JSON line (2.13.0: torchrun's first
    observed failure is a victim's, rank 1); the record's rank field names rank 2."""
    texts = [t.replace('"rank":', f'"{key}":') for t in _logs("t7-trun-jsonlog-keyerror-rank2")]
    assert _named(_findings(tmp_path, texts)) == [("python-exception", [2])]


def test_json_records_without_a_rank_name_no_other_rank(tmp_path):
    texts = [re.sub(r', "rank": \d+', "", t) for t in _logs("t7-trun-jsonlog-keyerror-rank2")]
    assert all(ranks == [2] for _, ranks in _named(_findings(tmp_path, texts)))


# ---- torchx --------------------------------------------------------------------------------------
@pytest.mark.parametrize("line,want", [
    ("t7_worker/1 [1]:[rank3]: KeyError: 'labels'", ("KeyError: 'labels'", 3, 1)),
    ("trainer/0 [0]:step 3 loss 0.1", ("step 3 loss 0.1", None, 0)),
    ("ddp-app/12 [default2]:step 3", ("step 3", None, 2)),
    ("[0]:", ("[0]:", None, None)),  # torchrun's failure table: an entry's header, no prefix
    ("[1]: params[0] in this process", ("[1]: params[0] in this process", None, None)),  # a message, not torchrun's prefix
    ("Epoch 1/10 loss 0.3", ("Epoch 1/10 loss 0.3", None, None)),
])
def test_torchx_and_empty_role_tee_prefixes(line, want):
    n = normalize(line)
    assert (n.text, n.rank, n.local_rank) == want


def test_torchx_replicas_are_split_in_replica_order():
    lines = ["torchx 2026-11-29 02:46:21 INFO     Waiting for the app to finish..."]
    lines += [f"trainer/{i} [0]:step 1" for i in (10, 2, 0, 1)] + ["trainer/2 [1]:done", "torchx 2026-11-29 02:46:40 ERROR  AppStatus:"]
    pods = split_replicas("\n".join(lines))
    assert [p.pod for p in pods] == ["trainer/0", "trainer/1", "trainer/2", "trainer/10"]
    assert pods[2].lines == ["[0]:step 1", "[1]:done", "torchx 2026-11-29 02:46:40 ERROR  AppStatus:"]


@pytest.mark.parametrize("text", ["a/0 [0]:x\nb/1 [0]:y\n", "a/0 [0]:x\nplain\nplain\nplain\n", "a/0 [0]:x\na/0 [1]:y\n"])
def test_other_streams_are_not_split(text):
    """Two roles, too few prefixed lines, one replica."""
    assert split_replicas(text) is None


@pytest.mark.parametrize("role", ["t7_worker", "trainer"])
def test_torchx_keyerror_on_replica_1_names_global_rank_3(tmp_path, role):
    """t7-torchx-2x2-keyerror-rank3: replica 1's local rank 1 is rank 3 (before: read as rank 1)."""
    texts = [t.replace("t7_worker/", f"{role}/") for t in _logs("t7-torchx-2x2-keyerror-rank3")]
    assert _named(_findings(tmp_path, texts)) == [("python-exception", [3])]


# ---- DDP's model check across ranks --------------------------------------------------------------
SHAPE = re.compile(r"params\[0\] in this process with sizes \[6, 8\] appears not to match sizes of the same param in process 0\.")
VARIANTS = ["params[0] in this process with sizes [6, 8] appears not to match sizes of the same param in process 0.",
            "params[3] in this process with sizes [1024] appears not to match strides of the same param in process 0.",
            "DDP expects same model across all ranks, but Rank 1 has 5 params, while rank 0 has inconsistent 4 params."]


@pytest.mark.parametrize("wording", VARIANTS)
def test_the_rank_whose_model_differs_is_a_collective_mismatch(tmp_path, wording):
    texts = [SHAPE.sub(lambda _m: wording, t) for t in _logs("t7-trun-ddp-shape-mismatch-rank1")]
    assert _named(_findings(tmp_path, texts)) == [("collective-mismatch", [1])]


def test_every_other_rank_failing_the_check_names_no_one(tmp_path):
    """Rank 0 is the odd one: ranks 1 and 3 (rank 2 SIGTERMed before it printed) each raise that their
    parameter differs from process 0's. (The TCPStore warnings after rank 3's line are left out: glued to
    a long line before them, they read as its wrapped tail.)"""
    closed = re.compile(r"^(\[default\d\]:\[rank([23])\]: )RuntimeError: .*Connection closed by peer.*$", re.M)
    store = re.compile(r"^(?:\[W\d{4} .*TCPStore.*|Exception raised from .*|frame #.*|<omitting python frames>)\n", re.M)
    texts = [closed.sub(lambda m: f"{m.group(1)}RuntimeError: [{m.group(2)}]: {VARIANTS[0]}", store.sub("", t))
             for t in _logs("t7-trun-ddp-shape-mismatch-rank1")]
    assert _named(_findings(tmp_path, texts)) == []


# ---- mpiexec: the rank that ended without a word -------------------------------------------------
@pytest.mark.parametrize("version", ["2.13.0", "2.14.1"])
@pytest.mark.parametrize("wording", ["Connection closed by peer", "Connection reset by peer"])
def test_the_rank_its_pod_mates_saw_go_is_named(tmp_path, version, wording):
    """t7-hydra-3-exit0-early-rank1: mpiexec reports no rank (2.14.1: no report at all); ranks 0 and 2,
    in the same pod, saw rank 1's connection close."""
    texts = [t.replace("Connection closed by peer", wording) for t in _logs("t7-hydra-3-exit0-early-rank1", version)]
    assert _named(_findings(tmp_path, texts)) == [("never-joined", [1])]


def test_two_silent_ranks_in_one_pod_name_no_one(tmp_path):
    """Rank 2's traceback cut from the paste: ranks 1 and 2 both silent."""
    texts = ["\n".join(ln for ln in t.split("\n") if not ln.startswith("[rank2]")) + "\n"
             for t in _logs("t7-hydra-3-exit0-early-rank1", "2.14.1")]
    assert _named(_findings(tmp_path, texts)) == []



def test_beside_a_launcher_that_reports_its_report_is_needed(tmp_path):
    """A torchrun agent's SIGTERM line in the job: a launcher that names processes would have reported the
    silent rank's exit; without that report it may have died with its node (docs/rules.md "gloo hangs")."""
    texts = _logs("t7-hydra-3-exit0-early-rank1", "2.14.1")
    texts[0] += "W1129 02:49:20.757000 30213 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 4909 closing signal SIGTERM\n"
    assert ("never-joined", [1]) not in _named(_findings(tmp_path, texts))
