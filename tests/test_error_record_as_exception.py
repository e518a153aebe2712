"""A failed rank's own last ERROR/CRITICAL-level record just before its launcher reports its non-zero, non-signal exit,
with no traceback of its own, is that rank's exception text (docs/rules.md, "Session 65: a handler's ERROR record";
parsers/log_error_records.py, queries/_failure_line.sql's ``said_exit``): the cause from the message's wording (a CUDA
OOM, a ``MemoryError``) else python-exception, the message in the finding. Positives: the fifty-ninth set's recorded
``logger.error(f"rank {rank}: {e}")`` + ``sys.exit(2)`` run (DeepSpeed's ``[ERROR]`` format, both ways) and small
torchrun node logs in several logger formats. Contrasts: an ERROR after which the rank trains on (its later exit stays
``exit-2``; t54's red herrings), every rank's same ERROR then exit (no rank), victims' peer ERRORs only (the culprit's
exit stays ``exit-2``; a victim's peer ERROR keeps its exit a victim's wording), a signal exit after an ERROR (the
signal's cause), and a progress line with the word ERROR in it (no record).
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_error_records import record
from torch_runs_kit import import_run, load_runs, podlog_run
from torchrun_node_kit import node_log

NOW = dt.datetime(2026, 12, 6, 21, 0, tzinfo=dt.timezone.utc)
PEER = "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:14735"


def _node(lines: list[str], first: int, code: int, others: dict[int, int] | None = None) -> str:
    """One node of 4 processes: its lines (progress lines with Lightning's ``[rank: N]`` field), then the agent's report
    of local rank ``first``'s ``code`` and its failure table (tests/torchrun_node_kit.py)."""
    return node_log(lines, first, code, others, day="1206 20", step_field=True)


def _findings(tmp_path, text: str) -> list[dict]:
    bundle, _ = import_logs([LogSource("node0.log", text)], tmp_path / "b", nproc_per_node=4, world_size=4, nodes=1,
                            job="train", namespace="team-a", now=NOW)
    return analyze(bundle)["findings"]


def _gist(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def _culprit(findings: list[dict]) -> tuple:
    named = naming_findings(findings)
    assert len(named) == 1, _gist(findings)
    return named[0]["cause"], named[0]["ranks"], named[0]["summary"]


@pytest.mark.parametrize("line,cause,said", [
    ("[2026-12-06 20:45:38,420] [ERROR] [engine.py:112:step] rank 3: batch 17 at step 7 has 7 features per sample; "
     "the model expects 8", "python-exception", "the model expects 8"),
    ("[default3]:ERROR:train:Training failed: shard data/train/shard-00003.bin is truncated", "python-exception",
     "shard-00003.bin is truncated"),
    ("2026-12-06 20:45:38.420 | ERROR    | __main__:main:42 - [rank: 3] CUDA out of memory. Tried to allocate 2.00 GiB. "
     "GPU 3 has a total capacity of 79.15 GiB of which 1.02 GiB is free.", "cuda-oom", "CUDA out of memory"),
    ("12/06/2026 20:45:38 - ERROR - __main__ - rank 3: MemoryError: Unable to allocate 1.00 PiB for an array",
     "host-oom", "Unable to allocate"),
    ("[2026-12-06 20:45:38,420][train][CRITICAL] - [rank: 3] loss is nan at step 7", "python-exception", "loss is nan"),
])
def test_the_last_error_record_before_the_exit_is_its_exception(tmp_path, line, cause, said):
    victims = [f"[2026-12-06 20:45:39,9{r}0] [ERROR] [engine.py:112:step] rank {r}: {PEER}" for r in range(3)]
    got = _culprit(_findings(tmp_path, _node([line] + victims, 3, 2)))
    assert got[:2] == (cause, [3]), got
    assert cause == "cuda-oom" or (said in got[2] and "ERROR-level record" in got[2]), got  # a CUDA OOM's own reading


def test_a_recorded_handler_s_error_record_both_ways(tmp_path_factory):
    """t59's DeepSpeed-like ``logger.error(f"rank {rank}: {e}")`` of a MemoryError (its message empty): rank 3's own
    record read as its exception (truth host-oom: the empty message does not say so, so python-exception)."""
    runs = [r for r in load_runs() if r.name == "t59-trun-2x2-memoryerror-rank3-step4-error-deepspeed"]
    assert len(runs) == 2
    for run in runs:
        for way in (import_run, podlog_run):
            got = _culprit(analyze(way(run, tmp_path_factory.mktemp("run")))["findings"])
            assert got[:2] == ("python-exception", [3]), (run.id, way.__name__, got)


def test_an_error_after_which_the_rank_trains_on_is_no_cause(tmp_path):
    lines = ["[default3]:ERROR:train:could not push metrics to the tracker: HTTP 503"]
    lines += [f"[default{r}]:[rank: {r}] step {s}/10 loss 0.2" for s in (3, 4) for r in range(4)]
    got = _culprit(_findings(tmp_path, _node(lines, 3, 2)))
    assert got[:2] == ("exit-2", [3]), got
    assert "push metrics" not in got[2]


def test_a_herring_s_error_names_not_its_rank(tmp_path):
    """rank 1 logs an ERROR and trains on (t54's red herring); rank 3 exits 2 with nothing said."""
    lines = ["[default1]:ERROR:train:skipping bad sample 1234: KeyError: 'labels'"]
    lines += [f"[default{r}]:[rank: {r}] step {s}/10 loss 0.2" for s in (3, 4) for r in range(4)]
    got = _culprit(_findings(tmp_path, _node(lines, 3, 2)))
    assert got[:2] == ("exit-2", [3]), got


def test_every_rank_s_same_error_names_no_rank(tmp_path):
    lines = [f"[default{r}]:ERROR:train:rank {r}: config key 'optimizer.lr' is missing" for r in range(4)]
    findings = _findings(tmp_path, _node(lines, 0, 2, {1: 2, 2: 2, 3: 2}))
    assert naming_findings(findings) == [], _gist(findings)


@pytest.mark.parametrize("first", [3, 0])
def test_victims_peer_errors_stay_victims(tmp_path, first):
    """Every record a peer's wording: the first exit (the culprit's, silent; or a victim's own peer error first) is
    read by its status alone."""
    lines = [f"[2026-12-06 20:45:39,9{r}0] [ERROR] [engine.py:112:step] rank {r}: {PEER}" for r in range(4) if r != 3]
    got = _culprit(_findings(tmp_path, _node(lines, first, 2)))
    assert got[:2] == ("exit-2", [first]), got


@pytest.mark.parametrize("code,cause", [(-9, "host-oom-kill"), (-11, "segfault")])
def test_a_signal_exit_after_an_error_keeps_the_signal(tmp_path, code, cause):
    lines = ["[default3]:ERROR:train:rank 3: dataloader stalled for 30 s"]
    got = _culprit(_findings(tmp_path, _node(lines, 3, code)))
    assert got[:2] == (cause, [3]), got


@pytest.mark.parametrize("line", ["[default0]:step 5 ERROR rate 0.1", "[default1]:[rank: 1] step 6/10 loss 0.05",
                                  "E1206 20:45:43.256000 10240 torch/distributed/elastic/multiprocessing/api.py:1002] failed",
                                  "[default1]:rank 3: batch 17 at step 7 has 7 features per sample; the model expects 8",
                                  "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 31)",
                                  "[2023-11-13 16:59:55,650] [ERROR] [launch.py:320:sigkill_handler] ['python', '--local_rank=1']"])
def test_lines_that_are_no_error_record(line):
    assert record(line) is None
