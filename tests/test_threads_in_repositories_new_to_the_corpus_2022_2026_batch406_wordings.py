"""Threads in repositories new to the corpus, 2022-2026 (real incidents batch 406), pinned as read. Collected blind
(76e1af2d): three incidents, one of them (the thomaskalnik.com DeepSeek V3 part 4 post) dropped after scoring as a
duplicate of batch 316's copy of the same page (be555a3b). Scored as collected: 1/3 both ways (the duplicate read
right), 0/2 on the two kept, one of them a control named:

- Synthefy/synthefy-nori#86 (NOT_YET): DDP training on 4 GPUs; the PR pastes the abridged watchdog lines ``Watchdog caught
  collective operation timeout: WorkNCCL(... OpType=BROADCAST ...)`` / ``ran for 3600001 ms before timing out  ->  Signal 6
  (SIGABRT)``, no rank. Truth (the author): validation runs on rank 0 only while the other ranks wait in the post-eval
  ``broadcast(stop_tensor, src=0)`` past the 3600 s timeout: rank 0, lagging-rank. k10s finds nothing (no line names a
  rank, and the waiters' timeout is all there is).
- clvrai/skill-chaining#4 (control, named as collected, read right since): ``mpirun -np 2 python3 -m run ...``; both
  processes print ``/usr/bin/python3: No module named run`` (the first glued to an X11 ``Invalid MIT-MAGIC-COOKIE-1 key``
  warning), then Open MPI's ``Process name: [[47051,1],1]`` / ``Exit code:    1``. As collected, rank 1 was named
  (rank-failure, warning, python-exception) from mpirun's first-exit report. Now the interpreter's ``No module named X``
  for the module ``-m`` names (log_launchers.NO_MODULE) is read as ``can't open file`` is: the command line every
  process runs, common mode, no one named.

Contrasts: mpirun's first-exit report alone still names rank 1; rank 1's own ``ModuleNotFoundError`` out of a traceback
under Open MPI's ``[1,1]<stderr>:`` tag still names rank 1; the interpreter's line tagged by one rank, or only the copy
glued to the X11 warning, names no one; ``can't open file`` in its place names no one, as before. Pasted logs through
``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted, pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 5, 0, tzinfo=dt.timezone.utc)

EVAL_WAIT = corpus_lines("synthefy-nori-86-")
NO_MODULE = corpus_lines("skill-chaining-4-")

INTERPRETER = "/usr/bin/python3: No module named run"
#: mpirun's command line and first-exit report without either process's interpreter line
REPORT_ONLY = [line for line in NO_MODULE if not line.endswith("No module named run")]
#: only the copy glued to the X11 warning left
GLUED_COPY_ONLY = [line for line in NO_MODULE if line != INTERPRETER]
#: both interpreter lines under Open MPI's ``--tag-output`` tag of rank 1
TAGGED_RANK1 = [f"[1,1]<stderr>:{INTERPRETER}" if line.endswith("No module named run") else line for line in NO_MODULE]
#: synthetic: rank 1's own ModuleNotFoundError out of its traceback (an import inside the module), then mpirun's report;
#: without the one-host command line (with it, a lone rank's import error already reads as every process's)
OWN_IMPORT_RANK1 = [
    "[1,1]<stderr>:Traceback (most recent call last):",
    '[1,1]<stderr>:  File "/work/run.py", line 3, in <module>',
    "[1,1]<stderr>:    import furniture",
    "[1,1]<stderr>:ModuleNotFoundError: No module named 'furniture'",
    *REPORT_ONLY[1:],
]
#: synthetic: the interpreter unable to open a script instead (the reading this one joins)
CANT_OPEN = [
    "/usr/bin/python3: can't open file '/work/run.py': [Errno 2] No such file or directory"
    if line.endswith("No module named run") else line for line in NO_MODULE
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # as collected, pasted and laid out as the threads say
    "eval-wait-as-pasted": (EVAL_WAIT, None, None, None, None),  # NOT_YET: rank 0, lagging-rank
    "eval-wait-one-node-of-four": (EVAL_WAIT, 4, 4, None, None),  # NOT_YET: rank 0, lagging-rank
    "no-module-as-pasted": (NO_MODULE, None, None, None, None),
    "no-module-two-processes": (NO_MODULE, 2, 2, None, None),
    # variants that must not name anyone
    "no-module-glued-copy-only-names-none": (GLUED_COPY_ONLY, 2, 2, None, None),
    "no-module-tagged-rank1-names-none": (TAGGED_RANK1, 2, 2, None, None),
    "cant-open-names-none": (CANT_OPEN, 2, 2, None, None),
    # contrasts that must name a rank
    "first-exit-report-alone-names-rank1": (REPORT_ONLY, 2, 2, 1, "python-exception"),
    "own-import-error-rank1-names-rank1": (OWN_IMPORT_RANK1, 2, 2, 1, "python-exception"),
}
BATCHED = Batched("b406", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_new_repositories_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


def _gist(lines: list[str], folder: Path, nproc: int | None, world: int | None) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in pasted_findings(lines, folder, nproc, world, NOW)]


def test_eval_wait_as_collected_finds_nothing(tmp_path):
    """synthefy-nori#86 as collected (NOT_YET): the waiters' abridged BROADCAST timeout with no rank gives no finding at
    all, as pasted or as one node of 4; the truth is rank 0 (lagging-rank), which the paste never names."""
    assert _gist(EVAL_WAIT, tmp_path / "a", None, None) == []
    assert _gist(EVAL_WAIT, tmp_path / "b", 4, 4) == []


def test_no_module_is_every_process_and_says_so(tmp_path):
    """skill-chaining#4: one rank-failure of no rank, whose summary says the command line fails every process alike."""
    findings = pasted_findings(NO_MODULE, tmp_path, 2, 2, NOW)
    assert [(f["rule"], f["ranks"]) for f in findings] == [("rank-failure", [])]
    assert "python -m module not found" in findings[0]["summary"]
    assert "no single culprit" in findings[0]["summary"]
