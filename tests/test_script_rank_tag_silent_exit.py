"""A rank whose exit 1 left no traceback, in a job whose ranks' uncaught exceptions carry torch's ``[rankN]:`` tag, is a
silent exit (``exit-1``) where the rank's own progress lines are in its pod's log; those lines were counted only where
their rank was resolved (a ``[rankN]:`` tag, ``--tee``'s prefix, a pod of one rank). A program's own tag opening its
progress line, ``rank 2 step 3 loss 0.0906``, says whose line it is too (parsers' log_sql.SCRIPT_RANK_OPENING, as
k10s_incident_nonfinite_one reads it): queries/_failure_line.sql ``rank_tag_shown`` now reads it where no rank is
resolved (docs/rules.md, "Session 69: recorded runs' residue (a script's own rank tag shows a silent exit)").

The recorded t54-trun-2x2-handled-key-rank1-exit1-rank2 (both versions, both ways) is the positive case: rank 2 leaves
with ``os._exit(1)`` after ``rank 2 step 3 loss …``, its peers' ``[rankN]:`` gloo tracebacks around it; k10s said
python-exception ("Only its exit status is in the logs"), the truth is exit-1.

The node logs below are SYNTHETIC (written here in torchrun's and torch's formats, no real run's lines), the recorded
runs real (tests/data/torch-runs)."""

from __future__ import annotations

import pytest

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from torch_runs_kit import findings_of_texts, import_run, load_runs, podlog_run, score_findings

AGENT = "torch/distributed/elastic/multiprocessing/api.py"
PEER = "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:49869"
RUN = "t54-trun-2x2-handled-key-rank1-exit1-rank2"
RUNS = {r.id: r for r in load_runs() if r.name == RUN}


def _traceback(tag: str, last: str) -> list[str]:
    return [f"{tag}Traceback (most recent call last):", f'{tag}  File "/workspace/train.py", line 142, in main',
            f"{tag}    loss.backward()", f"{tag}{last}"]


_HINT = "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"


def _node(node: int, first: int, lines: list[str], nproc: int = 2, root_tb: str = _HINT) -> str:
    """SYNTHETIC: one torchrun node of ``nproc`` processes (global ranks ``node * nproc + local``), its program's ``lines``,
    the agent's SIGTERM of the others, its report of local rank ``first``'s exit 1 and its failure table (``root_tb``: the
    root cause's ``traceback :`` row, the hint, or the exception an error file recorded)."""
    pid = 24520 + node * 10
    others = [r for r in range(nproc) if r != first]
    out = list(lines)
    out += [f"W1207 10:28:3{7 + node}.017000 {pid - 1} {AGENT}:1028] Sending process {pid + r} closing signal SIGTERM" for r in others]
    out.append(f"E1207 10:28:3{7 + node}.052000 {pid - 1} {AGENT}:1002] failed (exitcode: 1) local_rank: {first} (pid: {pid + first}) "
               "of binary: /opt/venv/bin/python3")
    out += ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "/workspace/train.py FAILED",
            "-" * 60, "Failures:"]
    for i, r in enumerate(others, 1):
        out += [f"[{i}]:", f"  time      : 2026-12-07_10:28:3{7 + node}", "  host      : localhost",
                f"  rank      : {node * nproc + r} (local_rank: {r})", f"  exitcode  : -15 (pid: {pid + r})  (SIGTERM)",
                "  error_file: <N/A>", f"  traceback : Signal 15 (SIGTERM) received by PID {pid + r}", "-" * 60]
    out += ["Root Cause (first observed failure):", "[0]:", f"  time      : 2026-12-07_10:28:3{7 + node}", "  host      : localhost",
            f"  rank      : {node * nproc + first} (local_rank: {first})", f"  exitcode  : 1 (pid: {pid + first})",
            "  error_file: <N/A>" if root_tb == _HINT else "  error_file: /tmp/torchelastic_x/attempt_0/0/error.json",
            f"  traceback : {root_tb}", "=" * 60]
    return "\n".join(out) + "\n"


def _steps(ranks, fmt="rank {r} step {s} loss 0.1{r}{s} (0.06s)") -> list[str]:
    return [fmt.format(r=r, s=s) for s in range(4) for r in ranks]


#: name: (SYNTHETIC node logs, the rank named, its cause); every case's culprit is global rank 2 (node 1's local 0)
CASES = {
    # rank 2's own `rank 2 step 3 …` lines, no traceback of its own, the peers' tagged tracebacks: a silent exit
    "script-tag-silent": ([_node(0, 1, _steps((0, 1)) + _traceback("[rank1]:", PEER) + _traceback("[rank0]:", PEER)),
                           _node(1, 0, _steps((2, 3)) + _traceback("[rank3]:", PEER))], [2], "exit-1"),
    "script-tag-bracket-silent": ([_node(0, 1, _steps((0, 1), "[Rank {r}] step {s} loss 0.1{r}{s}") + _traceback("[rank1]:", PEER)),
                                   _node(1, 0, _steps((2, 3), "[Rank {r}] step {s} loss 0.1{r}{s}") + _traceback("[rank3]:", PEER))],
                                  [2], "exit-1"),
    # contrasts: its own tagged traceback (an exception), as before
    "own-traceback": ([_node(0, 1, _steps((0, 1)) + _traceback("[rank1]:", PEER)),
                       _node(1, 0, _steps((2, 3)) + _traceback("[rank2]:", "KeyError: 'labels'") + _traceback("[rank3]:", PEER))],
                      [2], "python-exception"),
    # an exception group's box under rank 2's own tag (read only as a cut frame): it said why (python-exception)
    "exception-group-box": ([_node(0, 1, _steps((0, 1)) + _traceback("[rank1]:", PEER)),
                             _node(1, 0, _steps((2, 3)) + [
                                 "[rank2]:   + Exception Group Traceback (most recent call last):",
                                 '[rank2]:   |   File "/workspace/train.py", line 50, in _shards',
                                 "[rank2]:   | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
                                 "[rank2]:   +-+---------------- 1 ----------------",
                                 "[rank2]:     | Traceback (most recent call last):",
                                 '[rank2]:     |   File "/workspace/train.py", line 43, in _load',
                                 "[rank2]:     | FileNotFoundError: [Errno 2] No such file or directory: '/data/shard-001.bin'",
                                 "[rank2]:     +------------------------------------"] + _traceback("[rank3]:", PEER))],
                            [2], "python-exception"),
    # the table's root-cause row holds the exception rank 2's error file recorded (torch's @record): not silent
    "error-file-row": ([_node(0, 1, _steps((0, 1)) + _traceback("[rank1]:", PEER)),
                        _node(1, 0, _steps((2, 3)) + _traceback("[rank3]:", PEER),
                              root_tb="ValueError: no training samples left after the length filter")], [2], "python-exception"),
    # no rank in the progress lines (`step 3 loss …`): nothing shows rank 2's output was there, as before
    "no-script-tag": ([_node(0, 1, _steps((0, 1), "step {s} loss 0.1{r}{s}") + _traceback("[rank1]:", PEER)),
                       _node(1, 0, _steps((2, 3), "step {s} loss 0.1{r}{s}") + _traceback("[rank3]:", PEER))],
                      [2], "python-exception"),
    # no `[rankN]:`-tagged traceback in the job (the peers' errors untagged): nothing says a traceback would be tagged
    "no-torch-tag": ([_node(0, 1, _steps((0, 1)) + _traceback("", PEER)), _node(1, 0, _steps((2, 3)))], [2], "python-exception"),
    # node 1's processes print their LOCAL rank (`rank 0 step …`, `rank 1 step …`): on node 1 those are no global rank
    # of its pod, so rank 2's silence is not shown (as before)
    "local-rank-printed": ([_node(0, 1, _steps((0, 1)) + _traceback("[rank1]:", PEER)),
                            _node(1, 0, _steps((0, 1)) + _traceback("[rank3]:", PEER))], [2], "python-exception"),
}


@pytest.mark.parametrize("key", list(CASES))
def test_a_script_s_rank_tag_shows_a_silent_exit(tmp_path, key):
    texts, want, cause = CASES[key]
    named = naming_findings(findings_of_texts(tmp_path, texts))
    got = [(f["rule"], f["cause"], f["ranks"]) for f in named]
    assert any(f["ranks"] == want and f["cause"] == cause for f in named), got
    assert all(set(f["ranks"]) & set(want) for f in named), got
    if cause != "exit-1":
        assert not any(f["cause"] == "exit-1" for f in named), got


@pytest.mark.parametrize("key", sorted(RUNS))
@pytest.mark.parametrize("how", ["import", "podlog"])
def test_the_recorded_silent_exit_reads_exit_1(tmp_path, key, how):
    run = RUNS[key]
    bundle = import_run(run, tmp_path) if how == "import" else podlog_run(run, tmp_path)
    findings = analyze(bundle)["findings"]
    assert score_findings(run, findings) is None, score_findings(run, findings)
    assert any(f["cause"] == "exit-1" and f["ranks"] == [2] for f in naming_findings(findings))
