"""A second rank's traceback down to the same innermost frame is the same error (docs/rules.md, "Session 64: a second
rank's traceback down to the same frame").

Rank 0's traceback ends in its exception (`RuntimeError: shape '[1, 1024, 16, 128]' is invalid …`), raised in
`qwen.py`, line 369, in `qwen_attention_forward_quantized`; rank 1's traceback goes down to that same frame (file, line,
function), its exception line cut (batch 399's ipex-llm#10763: the excerpt ended there). The two fail alike, the code
every rank runs: no single culprit, as for the same exception to the letter (tests/test_same_exception_to_the_letter.py),
without a clock or within ten seconds. Contrasts keep rank 0 named: rank 1's traceback ending in another frame (a
victim's collective, `all_reduce`, `barrier`, or the training loop's `loss.backward()` line every rank's traceback
passes through, above rank 0's deeper error frame), rank 1's own different error under the same frame, the same frame
printed 30 s apart or in an earlier attempt (the worker group restarted between).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import analyze_node_sets, assert_names, gist, pasted_findings
from incident_kit import naming_findings
from test_t51_launcher_shapes import _stamp, _table

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)
SITE = "/opt/conda/envs/llm/lib/python3.11/site-packages"
QWEN = f'{SITE}/ipex_llm/transformers/models/qwen.py", line 369, in qwen_attention_forward_quantized'
QWEN_SRC = "    query = self.q_proj(hidden_states).view(bsz, q_len, self.num_heads, self.head_dim)"
ERR = "RuntimeError: shape '[1, 1024, 16, 128]' is invalid for input of size 4194304"
ALL_REDUCE = f'{SITE}/torch/distributed/distributed_c10d.py", line 2501, in all_reduce'
BARRIER = f'{SITE}/torch/distributed/distributed_c10d.py", line 4164, in barrier'
BACKWARD = '/workspace/train.py", line 81, in main'


def _frames(tag: str, inner: str, source: str = QWEN_SRC) -> list[str]:
    """A traceback's frames under ``tag`` (its header cut above), down to the innermost ``inner`` and its source line."""
    out = [f'{tag}  File "/workspace/train.py", line 74, in main', f"{tag}    out = model(**batch)",
           f'{tag}  File "{SITE}/torch/nn/modules/module.py", line 1527, in _call_impl',
           f"{tag}    return forward_call(*args, **kwargs)"]
    if inner == BACKWARD:  # the loop's own line, above the model's frames
        return [f'{tag}  File "{BACKWARD}', f"{tag}    loss.backward()"]
    if inner in (ALL_REDUCE, BARRIER):
        return [f'{tag}  File "/workspace/train.py", line 88, in main', f"{tag}    dist.all_reduce(loss)",
                f'{tag}  File "{inner}', f"{tag}    work = group.allreduce([tensor], opts)"]
    return out + [f'{tag}  File "{inner}', f"{tag}{source}"]


def _pair(tags: tuple[str, str], inner1: str, *, rank0_first: bool = False, own1: str | None = None) -> list[str]:
    """Rank 1's traceback down to ``inner1`` (cut, or ending in ``own1``), rank 0's down to qwen.py's frame and ``ERR``."""
    one = _frames(tags[1], inner1) + ([f"{tags[1]}{own1}"] if own1 else [])
    zero = _frames(tags[0], QWEN) + [f"{tags[0]}{ERR}"]
    return zero + one if rank0_first else one + zero


MPIRUN = ("[0] ", "[1] ")  # mpirun's / DeepSpeed's per-process tag
TORCHRUN = ("[rank0]: ", "[rank1]: ")


@pytest.mark.parametrize(("tags", "rank0_first", "sizes"), [
    (MPIRUN, False, (2, 2)), (MPIRUN, True, (2, 2)), (MPIRUN, False, (None, None)), (TORCHRUN, False, (2, 2))],
    ids=["mpirun-rank1-first", "mpirun-rank0-first", "mpirun-no-size", "torchrun"])
def test_a_second_rank_down_to_the_same_frame_fails_alike(tmp_path, tags, rank0_first, sizes):
    findings = pasted_findings(_pair(tags, QWEN, rank0_first=rank0_first), tmp_path, *sizes, NOW)
    assert naming_findings(findings) == [], gist(findings)
    assert [(f["rule"], f["ranks"]) for f in findings if f["rule"] == "rank-failure"] == [("rank-failure", [])], gist(findings)


@pytest.mark.parametrize(("inner1", "own1"), [
    (ALL_REDUCE, None),  # a victim waiting in a collective
    (BARRIER, None),
    (BACKWARD, None),  # a frame every rank's loop passes through, above rank 0's deeper error frame
    (QWEN, "ValueError: rank 1 got an empty batch at step 12"),  # its own different error under the same frame
], ids=["all-reduce", "barrier", "loss-backward", "own-error"])
def test_a_second_rank_elsewhere_keeps_rank_0_named(tmp_path, inner1, own1):
    findings = pasted_findings(_pair(MPIRUN, inner1, own1=own1, rank0_first=own1 is not None), tmp_path, 2, 2, NOW)
    assert {r for f in naming_findings(findings) for r in f["ranks"]} == {0}, gist(findings)


def _at(seconds: float) -> str:
    s = 24.0 + seconds
    return f"{36 + int(s // 60):02d}:{s % 60:09.6f}"


def _node(rank: int, lines: list[str], at: float, code: int) -> str:
    """One node's log (kubectl's timestamps), ``lines`` at ``at`` s, then its agent's table: the rank exited ``code``."""
    steps = [(_at(s - 2.0), f"step {s} loss 0.4{s}") for s in range(2)]
    return _stamp(steps + [(_at(at), line) for line in lines] + _table(_at(at + 0.3), (rank, 0, 200 + rank, code)))


def _nodes(inner1: str, gap_s: float) -> list[str]:
    """Rank 0 (node 0) raises ``ERR`` at 04:36:24; rank 1 (node 1) prints its traceback down to ``inner1``, its
    exception cut, ``gap_s`` later; each agent's table reports its rank's exit 1 (kubectl's clock on every line)."""
    head = "Traceback (most recent call last):"
    return [_node(0, [f"[rank0]: {head}"] + _frames("[rank0]: ", QWEN) + [f"[rank0]: {ERR}"], 0.0, 1),
            _node(1, [f"[rank1]: {head}"] + _frames("[rank1]: ", inner1), gap_s, 1)]


SETS = [
    ("same-frame-3s", _nodes(QWEN, 3.0), [], None),
    ("same-frame-9s", _nodes(QWEN, 9.0), [], None),
    ("all-reduce-3s", _nodes(ALL_REDUCE, 3.0), [0], "python-exception"),
    ("same-frame-30s", _nodes(QWEN, 30.0), [0], "python-exception"),
]


@pytest.fixture(scope="module")
def node_findings(tmp_path_factory):
    return analyze_node_sets(SETS, tmp_path_factory.mktemp("same-frame"), NOW, nproc=lambda name: 1)


# An untagged paste's tracebacks are not compared: an untagged frame may be any process's (log_library_frame.py).


@pytest.mark.parametrize(("i", "want", "cause"), [(i, s[2], s[3]) for i, s in enumerate(SETS)], ids=[s[0] for s in SETS])
def test_node_logs_with_a_clock_and_their_agents_tables(node_findings, i, want, cause):
    assert_names(node_findings, i, want, cause)


def test_an_earlier_attempt_s_traceback_keeps_rank_0_named(tmp_path):
    restart = ("[I1206 04:36:30.000000 140 torch/distributed/elastic/agent/server/api.py:722] [default] Worker group "
               "FAILED. 2/3 attempts left; will restart worker group")
    lines = _frames("[1] ", QWEN) + [restart] + _frames("[0] ", QWEN) + [f"[0] {ERR}"]
    findings = pasted_findings(lines, tmp_path, 2, 2, NOW)
    assert {r for f in naming_findings(findings) for r in f["ranks"]} == {0}, gist(findings)


def test_a_victim_s_cut_traceback_adds_nothing_to_the_reading(tmp_path):
    """Rank 1's `[1]` traceback cut in `all_reduce` is read only where an exception was raised in that frame: the paste
    reads as before its frames were kept (rank 0's lone exception at warning, confidence medium)."""
    findings = pasted_findings(_pair(MPIRUN, ALL_REDUCE), tmp_path, 2, 2, NOW)
    assert [(f["rule"], f["severity"], f["ranks"], f.get("confidence")) for f in findings] == [
        ("rank-failure", "warning", [0], "medium")], gist(findings)
