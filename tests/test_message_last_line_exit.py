"""A failed rank's LAST own line, a message alone WHATEVER ITS WORDING, just before its launcher reports its exit of a
status its program chose (2..125), is that rank's exception text (docs/rules.md, "Session 68: a rank's own last message
before its chosen exit status"; parsers/log_error_records.py ``bare``/``_plain``): session 67 read it only with an
error's wording (``error``, ``failed``, ``missing``, …), and the recorded t63 legacy-launcher run's handler printed
``rank 3: bad batch at step 3: sample 17 has no tokens`` (no error word) before ``sys.exit(2)``: k10s said ``exit-2``.

A line that reads as output going on is none: a counter (``Epoch 3/10``), a status report (``Saving checkpoint to``), a
metric or setting (``world_size=4``), a dump (``Namespace(...)``, ``{'lr': ...}``), a banner. The exit's conditions are
session 67's (status 2..125, the same body, no traceback of the rank's own); which rank is named is unchanged (tier 2).

And every rank's same status after each printed the same message (queries/rank_failure.sql's reason over
_incident.sql's ``all_exited``): no longer "nothing says why any of them failed", but the message, once, and that
every rank printed it alike: no single culprit.

The node logs below are SYNTHETIC (tests/torchrun_node_kit.py), the recorded runs real (tests/data/torch-runs).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import Batched
from incident_kit import naming_findings
from k10s_forensics.parsers.log_error_records import bare
from torch_runs_kit import load_runs, score_findings
from torchrun_node_kit import case_maker, node_log

NOW = dt.datetime(2026, 12, 7, 10, 0, tzinfo=dt.timezone.utc)
PEER = "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:561] Connection closed by peer [127.0.0.1]:22920"
RAISE = "t63-legacy-3x2-raise-rank3-step3-eval-w0-error-rank0only"
CONFIG = "t63-trun-2x2-config-every-rank-init-w0-error-rank0only-filter0"
RUNS = {r.id: r for r in load_runs() if r.name in (RAISE, CONFIG)}


def _node(lines: list[str], first: int, code: int, others: dict[int, int] | None = None, lag: int = 2) -> str:
    """One synthetic node of 4 processes (``--tee 3``): its lines, the agent's report of local rank ``first``'s
    ``code`` and its failure table, the others ended ``lag`` s after ``first``."""
    return node_log(lines, first, code, others, day="1207 09", lag=lag)


BAD = "bad batch at step 3: sample 17 has no tokens"
#: name: (synthetic node log, the ranks named (none: a control), the cause, words the summary quotes)
CASES = {
    "tee-rank-lead": (_node([f"[default3]:rank 3: {BAD}"], 3, 2), [3], "python-exception", "sample 17 has no tokens"),
    "rank-prefix": (_node(["[rank1]:the tokenizer has no pad token; set one before batching"], 1, 3), [1], "python-exception",
                    "the tokenizer has no pad token"),
    "rank-field": (_node(["[default2]:[rank: 2] shard 7 of the eval set has zero rows"], 2, 2), [2], "python-exception",
                   "shard 7 of the eval set has zero rows"),
    "rank-bracket-field": (_node(["[default0]:[Rank 0] the vocabulary holds 32000 tokens, the embedding 32001"], 0, 4), [0],
                           "python-exception", "the embedding 32001"),
    "stdout-flushed-after": (_node([f"[default3]:rank 3: {BAD}", "[default3]:step 3/10 loss 0.12"], 3, 2), [3],
                             "python-exception", "sample 17 has no tokens"),
    # contrasts: output going on is no handler's message (the status alone, as before)
    "progress-last": (_node(["[default2]:Epoch 3/10"], 2, 2), [2], "exit-2", None),
    "checkpoint-status-last": (_node(["[default2]:rank 2: Saving checkpoint to /ckpt/step_300"], 2, 2), [2], "exit-2", None),
    "namespace-dump-last": (_node(["[default2]:Namespace(lr=0.0003, batch_size=32, world_size=4)"], 2, 2), [2], "exit-2", None),
    "dict-dump-last": (_node(["[default2]:rank 2: {'lr': 0.0003, 'batch_size': 32}"], 2, 2), [2], "exit-2", None),
    "setting-last": (_node(["[default2]:rank 2: world_size 4 micro_batch: 8"], 2, 2), [2], "exit-2", None),
    "banner-last": (_node(["[default2]:rank 2: ==== evaluation ===="], 2, 2), [2], "exit-2", None),
    "info-last": (_node(["[default2]:2026-12-07 09:45:38,420 INFO rank 2: evaluation ended early"], 2, 2), [2], "exit-2", None),
    # status 1 is sys.exit(msg)'s: the line is not read
    "exit1": (_node([f"[default3]:rank 3: {BAD}"], 3, 1), [3], None, None),
    # the first failure named; a victim's message after it (a peer's wording or its own) names nothing more
    "victims-after-the-first": (_node([f"[default1]:rank 1: {BAD}"] + [f"[default{r}]:rank {r}: {PEER}" for r in (0, 2)]
                                      + ["[default3]:rank 3: the next batch never came from its producer"], 1, 2,
                                      {0: -15, 2: -15, 3: 2}), [1], "python-exception", "sample 17 has no tokens"),
    # every rank's same message (numbers aside) and status at once: no rank, the message said once
    "every-rank-alike": (_node([f"[default{r}]:rank {r}: shard {r} of the eval set has zero rows" for r in range(4)], 0, 2,
                               {1: 2, 2: 2, 3: 2}, lag=0), [], None, "every rank printed it alike"),
}
_BATCH = Batched("message-last", [*RUNS, *CASES])

_make = case_maker(RUNS, CASES, NOW)


@pytest.mark.parametrize("key", _BATCH.params([k for k in RUNS if RAISE in k], name=str))
def test_the_recorded_handler_s_plain_message_is_its_exception(tmp_path_factory, key):
    findings = _BATCH.findings(key, tmp_path_factory, _make)
    assert score_findings(RUNS[key], findings) is None, score_findings(RUNS[key], findings)
    said = " ".join(f["summary"] for f in naming_findings(findings))
    assert "rank 3: bad batch at step 3: sample 17 has no tokens" in said and "a message alone" in said, said


def test_the_recorded_every_rank_config_control_says_what_was_printed(tmp_path_factory):
    """2.14.1's every-rank config error under ``--local-ranks-filter 0``: every rank exits 2; rank 2's message is its
    last line (rank 0's stdout ``starting`` line came after its own), ranks 1 and 3 are filtered out: no rank, and the
    reason says what rank 2 printed instead of "nothing says why"."""
    key = f"2.14.1/{CONFIG}"
    findings = _BATCH.findings(key, tmp_path_factory, _make)
    assert score_findings(RUNS[key], findings) is None, score_findings(RUNS[key], findings)
    said = " ".join(f["summary"] for f in findings if f["rule"] == "rank-failure")
    assert "rank 2 just after printing \"config: optimizer.lr_schedule 'cosine_restarts' needs" in said, said
    assert "nothing says why any of them failed" not in said and "no single culprit" in said, said


@pytest.mark.parametrize("key", _BATCH.params(list(CASES), name=str))
def test_a_plain_last_message_before_a_chosen_exit(tmp_path_factory, key):
    _, want, cause, quoted = CASES[key]
    findings = _BATCH.findings(key, tmp_path_factory, _make)
    named = naming_findings(findings)
    got = [(f["rule"], f["cause"], f["ranks"]) for f in named]
    assert sorted({r for f in named for r in f["ranks"]}) == want, got
    if cause:
        assert any(f["cause"] == cause and f["ranks"] == want for f in named), got
    said = " ".join(f["summary"] for f in (named or [f for f in findings if f["rule"] == "rank-failure"]))
    assert quoted is None or quoted in said, said
    assert quoted is not None or "a message alone" not in said, said
    if not want and quoted:  # the message once (its `rank N:` off), not "nothing says why"
        assert said.count("of the eval set has zero rows") == 1 and "nothing says why any" not in said, said


@pytest.mark.parametrize("line,want", [
    ("rank 3: bad batch at step 3: sample 17 has no tokens", (None, 3, "rank 3: bad batch at step 3: sample 17 has no tokens")),
    ("[default1]:rank 1: the tokenizer has no pad token", (1, 1, "rank 1: the tokenizer has no pad token")),
    ("[default0]:starting (local rank 0, pid 13125)", "other"),
    ("[default1]:rank 1: Epoch 3/10", "other"),
    ("[default1]:rank 1: Namespace(lr=0.1)", "other"),
    ("[default1]:rank 1: world_size=4", "other"),
    ("[default1]:rank 1: Saving checkpoint to /x", "other"),
    ("[default1]:rank 1: ============", "other"),
    ("[default1]:rank 1: read 262144 bytes in 0.00s", "other"),
    ("[default1]:rank 1: verifying shard /data/rank-1/optim.pt", "other"),
    ("[default2]:  warnings.warn(\"use_reentrant\")", "other"),
    ("[default1]:rank 5/8 (local 1, pid 5877) initialised", "other"),
    ("[default1]:rank 1: step 3 reading shard /data/shard-1.bin", "progress"),
    ("[default1]:rank 1: nothing left to evaluate after the length filter", (1, 1, "rank 1: nothing left to evaluate after the "
                                                                                  "length filter")),
])
def test_what_a_plain_message_is(line, want):
    assert bare(line, plain=True) == want


def test_a_plain_message_is_read_only_where_a_chosen_status_is_reported():
    """Without an exit of 2..125 reported in its body (``plain`` False), a plain line stays output (session 67's)."""
    assert bare("rank 3: bad batch at step 3: sample 17 has no tokens") == "progress"
    assert bare("[default1]:rank 1: the tokenizer has no pad token") == "other"
