"""Ray's log deduplication note: a failure line ending `` [repeated 7x across cluster]`` is N + 1 processes failing alike.

Ray (>= 2.3, ``RAY_DEDUP_LOGS=1`` by default) prints a line its workers print alike once, then the note: the line stood for
that many more processes, their numbers (pids, ranks, IPs) masked when Ray compared them, so the rank or pid the line shows is
only the first copy's. The parser reads the note apart (the message is the same with and without it, its count kept in the
event's ``repeated``); the incident decision reads a first failure with the note as N + 1 processes alike: no single culprit
(docs/rules.md, "Session 59: Ray's dedup note"). Variants: after a traceback, after an ``ERROR`` record (its pid the worker
group's rank), a ``[rankN]:`` tag inside Ray's ``(… pid=…, ip=…)`` prefix, ANSI colours.

Contrasts that keep their reading: the same line without the note names rank 3; the note on an INFO or progress line changes
nothing; a teardown line with the note (``Connection closed by peer``, the repeats are victims) beside one rank's own,
distinct failure names that rank; an earlier, different failure of another rank without the note is read as ever.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, pasted
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_normalize import ray_repeated

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)
NOTE = " [repeated 7x across cluster]"
HINT = (" (Ray deduplicates logs by default. Set RAY_DEDUP_LOGS=0 to disable log deduplication, or see https://docs.ray.io/"
        "en/master/ray-observability/user-guides/configure-logging.html#log-deduplication for more options.)")
RAY3 = "(RayTrainWorker pid=4410, ip=10.0.0.7) [rank3]: "
RAY0 = "(RayTrainWorker pid=4407, ip=10.0.0.7) [rank0]: "
RAY5 = "(RayTrainWorker pid=4412, ip=10.0.0.7) [rank5]: "
IMA = "RuntimeError: CUDA error: an illegal memory access was encountered"
TB3 = [RAY3 + "Traceback (most recent call last):", RAY3 + '  File "train.py", line 9, in <module>']
#: Ray Train's worker group: pid 4410 is world rank 3 (the pid of an ``ERROR`` record without a ``[rankN]:`` tag)
GROUP = [f"(TrainController pid=4400) - (ip=10.0.0.7, pid={4407 + r}) world_rank={r}, local_rank={r}, node_rank=0"
         for r in range(8)]
OOM_RECORD = ("(RayTrainWorker pid=4410, ip=10.0.0.7) ERROR 12-06 04:59:58 [train.py:88] torch.OutOfMemoryError: CUDA out of "
              "memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.02 GiB is free.")
TEARDOWN = ("RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer "
            "[10.0.0.7]:40123")
PROGRESS = "Epoch 1:  50%|#####     | 50/100 [00:10<00:10, 5.00it/s, loss=0.31]"
INFO = "INFO:root:step 50 loss 0.31 lr 1.0e-05"


@pytest.mark.parametrize(
    "line",
    [RAY3 + IMA, "\x1b[36m(RayTrainWorker pid=4410, ip=10.0.0.7)\x1b[0m [rank3]: " + IMA, RAY3 + "ERROR:root:" + IMA,
     OOM_RECORD, RAY3 + "Fatal Python error: Aborted", RAY3 + TEARDOWN],
    ids=["ray-rank-tag", "ansi", "error-record", "vllm-error-record", "faulthandler", "teardown"],
)
@pytest.mark.parametrize("note", [NOTE, NOTE + HINT, "\x1b[32m" + NOTE + "\x1b[0m"], ids=["note", "hint", "ansi-note"])
def test_the_note_is_read_apart_and_counted(line, note):
    """The line's events with the note are those without it (the message the same), each with ``repeated`` 7."""
    plain = classify(line)
    noted = classify(line + note)
    assert plain and [{k: v for k, v in e.items() if k != "repeated"} for e in noted] == plain
    assert [e.get("repeated") for e in noted] == [7] * len(plain) and all("repeated" not in e for e in plain)
    assert all("across cluster" not in (e.get("error_message") or "") for e in noted)


def test_ray_repeated_strips_only_a_note_at_the_end():
    assert ray_repeated(RAY3 + IMA + NOTE) == (RAY3 + IMA, 7)
    assert ray_repeated(RAY3 + IMA + " [repeated 12x across cluster]" + HINT) == (RAY3 + IMA, 12)
    assert ray_repeated(RAY3 + IMA) == (RAY3 + IMA, None)
    assert ray_repeated("[repeated 7x across cluster] then more") == ("[repeated 7x across cluster] then more", None)


#: key: (lines, processes per node, world size, the finding's (rule, cause, ranks), a phrase of its summary)
CASES = {
    # the driving lines: a failure line with the note is N + 1 processes alike (rank-failure, no rank)
    "traceback": (TB3 + [RAY3 + IMA + NOTE], 8, 8, ("rank-failure", "cuda-error", []), "8 processes printed this failure alike"),
    "ansi": (["\x1b[36m" + line.replace(") ", ")\x1b[0m ", 1) for line in TB3]
             + ["\x1b[36m(RayTrainWorker pid=4410, ip=10.0.0.7)\x1b[0m [rank3]: " + IMA + "\x1b[32m" + NOTE + "\x1b[0m"],
             8, 8, ("rank-failure", "cuda-error", []), "8 processes printed this failure alike"),
    "error-record": ([RAY3 + "ERROR:root:" + IMA + NOTE], 8, 8, ("rank-failure", "cuda-error", []), "8 processes printed"),
    # a vLLM-style ERROR record with no rank tag: its pid is rank 3 by Ray Train's worker group; alike in 4 processes
    "error-record-pid-oom": (GROUP + [OOM_RECORD + " [repeated 3x across cluster]"], 8, 8, ("oom-cascade", "cuda-oom", []), None),
    # a line naming no rank (a Ray actor's pid no worker group names): the same, said
    "no-rank": (["(WorkerDict pid=859188) " + IMA + NOTE], 8, 8, ("rank-failure", "cuda-error", []), "8 processes printed"),
    # Ray prints a line's first copy at once, without the note: rank 0's copy above rank 3's noted line is one of them
    "first-copy-plain": ([RAY0 + IMA] + TB3 + [RAY3 + IMA + NOTE], 8, 8, ("rank-failure", "cuda-error", []), "8 processes printed"),
    # contrasts: the same lines without the note name rank 3
    "traceback-plain": (TB3 + [RAY3 + IMA], 8, 8, ("rank-failure", "cuda-error", [3]), None),
    "error-record-plain": ([RAY3 + "ERROR:root:" + IMA], 8, 8, ("rank-failure", "cuda-error", [3]), None),
    "error-record-pid-oom-plain": (GROUP + [OOM_RECORD], 8, 8, ("oom-cascade", "cuda-oom", [3]), None),
    # the note on INFO and progress lines changes nothing: rank 3's own failure below them names it
    "info-noted": ([RAY5 + INFO + NOTE, RAY5 + PROGRESS + NOTE] + TB3 + [RAY3 + IMA], 8, 8,
                   ("rank-failure", "cuda-error", [3]), None),
    # a teardown line with the note (its repeats are victims) beside rank 3's own distinct failure
    "teardown-noted": (TB3 + [RAY3 + IMA, RAY5 + TEARDOWN + " [repeated 3x across cluster]"], 8, 8,
                       ("rank-failure", "cuda-error", [3]), None),
    # rank 5's different failure earlier, without the note, is read as ever; rank 3's noted line after it is not first
    "earlier-other": ([RAY5 + "ValueError: batch 17 has no labels"] + TB3 + [RAY3 + IMA + NOTE], 8, 8,
                      ("rank-failure", "python-exception", [5]), None),
}
BATCHED = Batched("rayrep", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world = CASES[key][:3]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_reading(key, tmp_path_factory):
    (rule, cause, ranks), phrase = CASES[key][3:]
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    shown = [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]
    mine = [f for f in findings if f["rule"] == rule]
    assert [(f["cause"], f["ranks"]) for f in mine] == [(cause, ranks)], shown
    assert all(f["ranks"] in ([], ranks) for f in findings if f["severity"] in ("critical", "warning")), shown
    if phrase is not None:
        assert phrase in mine[0]["summary"], mine[0]["summary"]
