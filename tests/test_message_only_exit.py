"""A failed rank's last own line, a MESSAGE ALONE with an error's wording (no level word, no exception type: a
``%(message)s`` handler, Python's last-resort handler of an unconfigured ``logging``, ``print(..., file=sys.stderr)``),
just before its launcher reports its exit of a status its program chose (2..125: not ``sys.exit(msg)``'s 1), no
traceback of its own, is that rank's exception text (docs/rules.md, "Session 67: a message-only handler record";
parsers/log_error_records.py ``bare``, queries/_failure_line.sql's ``said_exit``): python-exception, the line quoted.

Positives: the recorded t62 rank-0-only ``logger.error(f"rank {rank}: {e}")`` + ``sys.exit(2)`` (its stdout's last
progress line reaching the console after the record) and t59's Lightning-like one, and pastes of other formats
(``[rankN]:``, a leading ``[rank: 3]`` field, loguru's and rich's ``ERROR`` records). Contrasts: the same line before
exit 1 (``sys.exit(msg)``: exit-1), a rank whose last lines are progress (exit-2), an INFO-level last line, argparse's
usage error (exit-2), a line after which the rank trained on, every rank's same message (no rank), victims' messages
after the first failure (the first named). And the ``--log-dir`` tree: an agent's folder placed by the ranks its
workers' records name (2.14.1's t61 missing shard was placed by the folders' random names, the wrong way round).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched
from incident_kit import naming_findings
from k10s_forensics.logimport import LogSource, read_sources
from k10s_forensics.parsers.log_error_records import bare
from k10s_forensics.parsers.log_torchrun_dir import merge_tree
from torch_runs_kit import load_runs, plain, score_findings
from torchrun_node_kit import case_maker, node_log

NOW = dt.datetime(2026, 12, 7, 9, 0, tzinfo=dt.timezone.utc)
PEER = "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:561] Connection closed by peer [127.0.0.1]:22920"
RUNS = {r.id: r for r in load_runs() if r.name in ("t62-trun-3x2-assert-rank0-step1-eval-w0-error-rank0only-logdir",
                                                      "t59-trun-2x2-raise-value-rank3-step7-error-lightning-tee")}


def _node(lines: list[str], first: int, code: int, others: dict[int, int] | None = None, lag: int = 2) -> str:
    """One node of 4 processes (``--tee 3``): its lines, the agent's report of local rank ``first``'s ``code`` and its
    failure table, the others ended ``lag`` s after ``first`` (tests/torchrun_node_kit.py)."""
    return node_log(lines, first, code, others, day="1207 08", lag=lag)


MISSING = "[Errno 2] No such file or directory: 'data/train/shard-00002.bin'"
#: name: (node log, the ranks named (none: a control), the cause, words the summary quotes)
CASES = {
    "message-format-tee": (_node([f"[default2]:rank 2: {MISSING}"], 2, 2), [2], "python-exception", "shard-00002.bin"),
    "rank-prefix": (_node(["[rank1]:could not parse config.yaml: invalid literal for int() with base 10: 'x'"], 1, 3), [1],
                    "python-exception", "invalid literal"),
    "rank-field-lightning": (_node(["[default3]:[rank: 3] batch 17 has 7 features per sample; the model expects 8"], 3, 2),
                             [3], "python-exception", "the model expects 8"),
    "loguru-error": (_node(["[default1]:2026-12-07 08:45:38.420 | ERROR    | __main__:main:42 - rank 1: checkpoint "
                            "step_300.pt is corrupted"], 1, 2), [1], "python-exception", "step_300.pt is corrupted"),
    "rich-error": (_node(["[default0]:[12/07/26 08:45:38] ERROR    rank 0: expected 4 samples in the batch, got 3    "
                          "train.py:88"], 0, 2), [0], "python-exception", "expected 4 samples in the batch, got 3."),
    "stdout-flushed-after": (_node([f"[default2]:rank 2: {MISSING}", "[default2]:step 3/10 loss 0.12"], 2, 2), [2],
                             "python-exception", "shard-00002.bin"),
    # contrasts
    # status 1 is sys.exit(msg)'s: the line is not read (the status alone, as before)
    "exit1-sys-exit-msg": (_node([f"[default2]:rank 2: {MISSING}"], 2, 1), [2], None, None),
    "progress-last": (_node(["[default2]:step 3/10 loss 0.12"], 2, 2), [2], "exit-2", None),
    "info-last": (_node(["[default2]:2026-12-07 08:45:38,420 INFO rank 2: could not find the cache, building it"], 2, 2),
                  [2], "exit-2", None),
    "argparse": (_node(["[default2]:usage: train.py [-h] [--lr LR]", "[default2]:train.py: error: argument --lr: invalid "
                        "float value: '3e-4,'"], 2, 2), [], None, None),  # a usage error: common mode (docs/rules.md)
    "trained-on": (_node([f"[default2]:rank 2: {MISSING}, skipping it"] + [f"[default{r}]:step {s}/10 loss 0.1" for s in (3, 4)
                                                                          for r in range(4)], 2, 2), [2], "exit-2", None),
    "common-mode": (_node([f"[default{r}]:rank {r}: config key 'optimizer.lr' is missing" for r in range(4)], 0, 2,
                          {1: 2, 2: 2, 3: 2}, lag=0), [], None, None),
    "victims-after-the-first": (_node(["[default1]:rank 1: batch 17 has 7 features per sample; the model expects 8"]
                                      + [f"[default{r}]:rank {r}: {PEER}" for r in (0, 2)]
                                      + ["[default3]:rank 3: failed to load the next batch: its producer went away"], 1, 2,
                                      {0: -15, 2: -15, 3: 2}),
                                [1], "python-exception", "the model expects 8"),
}
_BATCH = Batched("message-only", [*RUNS, *CASES])

_make = case_maker(RUNS, CASES, NOW)


@pytest.mark.parametrize("key", _BATCH.params(list(RUNS), name=str))
def test_a_recorded_handler_s_message_is_its_exception(tmp_path_factory, key):
    findings = _BATCH.findings(key, tmp_path_factory, _make)
    assert score_findings(RUNS[key], findings) is None, score_findings(RUNS[key], findings)
    said = " ".join(f["summary"] for f in naming_findings(findings))
    assert "a message alone" in said and ("expected 4 samples" in said or "the model expects 8" in said), said


@pytest.mark.parametrize("key", _BATCH.params(list(CASES), name=str))
def test_a_pasted_message_only_exit(tmp_path_factory, key):
    _, want, cause, quoted = CASES[key]
    named = naming_findings(_BATCH.findings(key, tmp_path_factory, _make))
    got = [(f["rule"], f["cause"], f["ranks"]) for f in named]
    assert sorted({r for f in named for r in f["ranks"]}) == want, got
    if cause:
        assert any(f["cause"] == cause and f["ranks"] == want for f in named), got
    said = " ".join(f["summary"] for f in named)
    assert quoted is None or quoted in said, said
    assert quoted is not None or "a message alone" not in said, said


@pytest.mark.parametrize("line,want", [
    ("[default0]:rank 0: expected 4 samples in the batch at step 1, got 3", (0, 0, "rank 0: expected 4 samples in the batch at step 1, got 3")),
    ("[rank5]:rank 5: [Errno 2] No such file or directory: 'x'", (None, 5, "rank 5: [Errno 2] No such file or directory: 'x'")),
    ("[default0]:step 1/10 loss 0.0682", "progress"),
    ("[default0]:starting (local rank 0, pid 16107)", "other"),
    ("[default1]:2026-12-07 08:45:38,420 WARNING rank 1: could not reach the tracker", "other"),
    ("[default2]:train.py: error: the following arguments are required: --data", "other"),
    ("[default0]:python3: can't open file '/workspace/train.py': [Errno 2] No such file or directory", "other"),
    ("Loss is nan, stopping training", None),
    ("E1207 04:17:40.123000 16089 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 2) local_rank: 0", None),
])
def test_what_a_message_only_line_is(line, want):
    assert bare(line) == want


def test_a_tree_s_agents_are_placed_by_the_ranks_their_records_name():
    """2.14.1's t61 missing shard (--redirects 3 --log-dir): no console names its folder and node 1's has no table; the
    workers print no ``rank 5/6``, but their DeepSpeed records do (``[Rank 0] step 7/10``, ``rank 4: [...] Connection
    closed``): each agent is placed by them, so rank 0's record lands in node 0's console (before: the folders' random
    names, ``_4qqna7tu`` before ``_ysqhw419``, gave node 0 ranks 3-5's folder, and rank 0's exit 2 no record)."""
    run = next(r for r in load_runs() if r.id == "2.14.1/t61-trun-2x3-missing-shard-rank0-shutdown-w2-error-deepspeed-redirects")
    consoles = [LogSource(n, plain(t)) for n, t in zip(run.truth["node_logs"], run.stamped())]
    merged, how, nproc = merge_tree(consoles + read_sources(str(run.folder / "log-dir")), LogSource)
    assert nproc == 3 and how.count("by the ranks its workers print") == 2, how
    node0 = next(m for m in merged if m.name.startswith("node0.log"))
    assert node0.name.endswith("_ysqhw419") and "rank 0: [Errno 2] No such file" in node0.text, node0.name
