"""Several pods' logs in one paste: the answer does not depend on the order the pods were pasted in (docs/rules.md,
"Session 70: several pods' logs in one paste"; parsers/log_pod_prefix.py ``in_blocks``/``POD_AFTER_POD``,
parsers/log_node_unknown.py ``file_label``, queries/_incident_own.sql ``k10s_incident_unclocked.pasted``).

``kubectl logs -l <job selector> --prefix`` without ``-f`` reads the pods one after another over a Go map
(``sequentialConsumeRequest``): each pod's lines are one block, the blocks in no set order. Split per pod, the blocks
were read as one stream, so with no clock the first failure was the one of the pod first in node order (2.13.0's t68
``mp.spawn`` 2 x 2 op mismatch: ``Rank 0 on node-0`` from a pod-after-pod paste without timestamps, truth rank 2).
Now the pods of such a paste are labelled as files apart: two failures of one strength in two pods' blocks, neither
with a clock, name no rank; a clock (``--timestamps``, stern's) orders them; an interleaved stream (``-f``) keeps its
order; one rank's own error beside another pod's victim's report still names it.

The recorded runs' node logs and ``kubectl-prefix.log`` are real (tests/data/torch-runs); the pastes made from them
here (blocks reordered, timestamps taken off, stern's layout) and the short tracebacks are SYNTHETIC, marked so.
"""

from __future__ import annotations

import re

import pytest

from export_shapes import entries, pod_name
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_exports import split_export
from k10s_forensics.parsers.log_pod_prefix import POD_AFTER_POD, in_blocks, split_source
from torch_runs_kit import CAPTURED, load_runs

_RUNS = "2.13.0/"
_T68 = _RUNS + "t68-spawn-2x2-op-mismatch-rank2-init-w2-uncaught-logging-rank"  # truth rank 2, collective-mismatch
_CONTROL = _RUNS + "t57-spawn-2x2-config-every-rank-step8"  # every rank's config error: a control
_REAL_PASTE = _RUNS + "t10-trun-unicode-decode-rank2"  # its kubectl-prefix.log: a real pod-after-pod paste, truth rank 2
_STAMP = re.compile(r"^(\[pod/[^]]+\] )\d{4}-\d\d-\d\dT[\d:.]+Z ")


def _run(run_id: str):
    return next(r for r in load_runs() if r.id == run_id)


def _paste(texts: list[str], order: list[int], shape: str, stamped: bool) -> str:
    """SYNTHETIC: the nodes' lines pod after pod in ``order``, as ``kubectl logs --prefix`` or stern writes them."""
    head = {"prefix": lambda n: f"[pod/{pod_name(n)}/pytorch] ", "stern": lambda n: f"{pod_name(n)} pytorch "}[shape]
    es = entries(texts)
    return "".join(head(n) + (f"{t} " if stamped else "") + line + "\n" for n in order for t, node, line in es if node == n)


def _findings(tmp, text: str, **kw) -> list[tuple]:
    tmp.mkdir(parents=True, exist_ok=True)
    bundle, _ = import_logs([LogSource("paste.log", text)], tmp / "b", job="train", namespace="team-a", now=CAPTURED, **kw)
    return [(f["rule"], f["severity"], f["ranks"], f.get("cause"), f["summary"]) for f in analyze(bundle)["findings"]]


def _failure(findings: list[tuple]) -> tuple:
    return next(f for f in findings if f[0] == "rank-failure")


@pytest.mark.parametrize("shape", ["prefix", "stern"])
def test_the_recorded_mismatch_run_pasted_pod_after_pod_names_no_rank_either_way(tmp_path, shape):
    texts = _run(_T68).stamped()
    first, last = (_findings(tmp_path / o, _paste(texts, order, shape, False)) for o, order in (("a", [0, 1]), ("b", [1, 0])))
    assert first == last
    rule, _, ranks, cause, summary = _failure(first)
    assert ranks == [] and cause == "collective-mismatch", summary  # before: Rank 0 on node-0, the pod first in node order
    assert "pasted pod after pod with no clock between them" in summary and "no single culprit" in summary
    # with --timestamps (stern's too) the clocks read the same: the two failed within one second
    stamped = _failure(_findings(tmp_path / "ts", _paste(texts, [1, 0], shape, True)))
    assert stamped[2] == [] and "within one second" in stamped[4]


def test_a_control_pasted_pod_after_pod_names_no_rank_either_way(tmp_path):
    texts = _run(_CONTROL).stamped()
    for o, order in (("a", [0, 1]), ("b", [1, 0])):
        for stamped in (False, True):
            failure = _failure(_findings(tmp_path / f"{o}{stamped}", _paste(texts, order, "prefix", stamped)))
            assert failure[2] == [] and "no single culprit" in failure[4], failure


def test_the_real_pod_after_pod_paste_reads_the_culprit_whichever_block_comes_first(tmp_path):
    real = (_run(_REAL_PASTE).folder / "kubectl-prefix.log").read_text(encoding="utf-8")
    blocks: dict[str, list[str]] = {}
    for line in real.splitlines():
        blocks.setdefault(line.split("]", 1)[0], []).append(line)
    assert len(blocks) == 2
    # SYNTHETIC from the real paste: its two blocks swapped (culprit's pod first), and its timestamps taken off
    swapped = "".join(line + "\n" for key in reversed(blocks) for line in blocks[key])
    readings = [_findings(tmp_path / name, text) for name, text in
                (("real", real), ("swapped", swapped), ("bare", _STAMP.sub(r"\1", real)), ("bare-swapped", _STAMP.sub(r"\1", swapped)))]
    assert readings[0] == readings[1] and readings[2] == readings[3]
    for findings in readings:
        assert _failure(findings)[2] == [2] and _failure(findings)[3] == "python-exception"


def _tb(rank: int, err: str) -> list[str]:
    """SYNTHETIC: a rank's traceback as torch prints it with its ``[rankN]:`` prefix."""
    return [f"[rank{rank}]: {line}" for line in ("Traceback (most recent call last):", '  File "train.py", line 9, in <module>',
                                                  "    main()", err)]


def _prefixed(pods: list[tuple[int, list[str]]]) -> str:
    """SYNTHETIC: ``(node, lines)`` written in turn behind each node's pod prefix."""
    return "".join(f"[pod/{pod_name(n)}/pytorch] {line}\n" for n, lines in pods for line in lines)


def test_two_pods_own_errors_without_a_clock_are_together_in_either_order(tmp_path):
    a, b = (0, _tb(0, "ValueError: bad shard 7")), (1, _tb(1, "KeyError: 'labels'"))
    one, other = (_failure(_findings(tmp_path / o, _prefixed(p), nproc_per_node=1)) for o, p in (("a", [a, b]), ("b", [b, a])))
    assert one == other and one[2] == [] and "pasted pod after pod" in one[4]


def test_an_interleaved_stream_keeps_its_order(tmp_path):
    # SYNTHETIC contrast: the same lines interleaved line by line (`kubectl logs -f`, one stream as it arrived): the first printed
    ta, tb = _tb(0, "ValueError: bad shard 7"), _tb(1, "KeyError: 'labels'")
    text = "".join(f"[pod/{pod_name(n)}/pytorch] {line}\n" for pair in zip(ta, tb) for n, line in enumerate(pair))
    assert _failure(_findings(tmp_path, text, nproc_per_node=1))[2] == [0]


def test_a_clock_orders_the_pods_blocks(tmp_path):
    # SYNTHETIC contrast: --timestamps; rank 1's block pasted first but its error a second later
    a = (0, [f"2026-11-28T10:00:01.000000000Z {ln}" for ln in _tb(0, "ValueError: bad shard 7")])
    b = (1, [f"2026-11-28T10:00:02.500000000Z {ln}" for ln in _tb(1, "KeyError: 'labels'")])
    for o, pods in (("a", [a, b]), ("b", [b, a])):
        assert _failure(_findings(tmp_path / o, _prefixed(pods), nproc_per_node=1))[2] == [0]


def test_one_pods_own_error_beside_anothers_victim_report_names_it_either_way(tmp_path):
    # SYNTHETIC contrast: rank 1 raised; rank 0's pod only shows a peer's loss (a victim's report)
    own = (1, _tb(1, "KeyError: 'labels'"))
    victim = (0, _tb(0, "torch.distributed.DistBackendError: NCCL communicator was aborted on rank 0."))
    for o, pods in (("a", [own, victim]), ("b", [victim, own])):
        assert _failure(_findings(tmp_path / o, _prefixed(pods), nproc_per_node=1))[2] == [1]


def test_which_pastes_are_pod_after_pod():
    def how(text: str) -> str:
        return split_source("paste.log", text, "imported")[2]
    blocks = _prefixed([(0, ["a", "b"]), (1, ["c", "e"]), (2, ["d"])])
    assert POD_AFTER_POD in how(blocks)
    interleaved = _prefixed([(0, ["a"]), (1, ["c"]), (0, ["b"]), (1, ["e"])])
    assert POD_AFTER_POD not in how(interleaved)
    # torchx's one stream of its replicas is one process's writes: never taken as blocks read apart
    assert POD_AFTER_POD not in how("trainer/0 a\ntrainer/0 b\ntrainer/1 c\ntrainer/1 d\n")
    # a log store's records in time order are their own order (stern --timestamps, an export): never blocks read apart
    texts = _run(_T68).stamped()
    assert POD_AFTER_POD not in split_export([("stern.log", _paste(texts, [1, 0], "stern", True))], "imported")[2]
    assert POD_AFTER_POD in split_export([("stern.log", _paste(texts, [1, 0], "stern", False))], "imported")[2]
    assert in_blocks([("p", "", "x"), (None, None, "wrapped"), ("p", "", "y"), ("q", "", "z"), ("q", "", "w")])
    assert not in_blocks([("p", "", "x"), ("q", "", "z"), ("p", "", "y"), ("q", "", "w")])
    # one line a pod (or one pod of several lines) shows no order either way: one stream, as before
    assert not in_blocks([("p", "", "x"), ("q", "", "z")]) and not in_blocks([("p", "", "x"), ("p", "", "y"), ("q", "", "z")])
