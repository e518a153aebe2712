"""Batch 84's one-node-differs shapes (tests/data/real-incidents, ``"batch": 84``, family ``one-node-differs``), each
with its wording variants, as one pasted log through ``k10s import-logs`` (docs/rules.md, "Session 27: batch 84"):

* controls — one node unlike the others, yet no rank the log can blame: Open MPI's ``A process or daemon was unable
  to complete a TCP connection`` box between two hosts (horovod-2043: a firewall, no process started), a Ray actor's
  torchrun ``[N]:`` that cannot resolve the head's hostname (torchx-540: ``gai error: -2``, the rendezvous address every
  worker reads), unlabelled ``ImportError``/``ModuleNotFoundError`` tracebacks above Open MPI's banner (CNTK-3419:
  the other node's Python, no rank or host on the lines) and NCCL's ``misc/socket.cc:568 -> 2`` from both local
  devices of one container (nccl-1381); none names a rank;
* culprits, the contrast: srun's ``task K: Exited with exit code N`` with the step's other task ``Terminated`` after
  it (no ``execve()`` failure: the task's own program ran and ended) names task K with its exit status.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, key_id, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 7, 0, tzinfo=dt.timezone.utc)

ORTE = corpus_log("horovod-2043-orte-tcp-connect-remote-host-firewall-control")
GAI = corpus_log("torchx-540-ray-actor-head-hostname-gai-error-control")
IMPORT = corpus_log("CNTK-3419-mpiexec-two-unlabelled-numpy-importerrors-control")
SOCKET = corpus_log("nccl-1381-docker-bridge-two-local-ranks-socket-errors-control")

SRUN = ("srun: error: {bad_host}: task {bad}: Exited with exit code 2\n"
        "srun: Terminating StepId=19389846.0\n"
        "slurmstepd: error: *** STEP 19389846.0 ON {ok_host} CANCELLED AT 2023-11-27T16:36:09 ***\n"
        "srun: error: {ok_host}: task {ok}: Terminated\n"
        "srun: Force Terminated StepId=19389846.0\n")


def _orte(variant: str) -> str:
    if variant == "debug":
        return ORTE
    box = ORTE[ORTE.index("-----"):ORTE.index("debug3: receive packet: type 98")]
    return box.replace("psxi1mzh8", "@@").replace("psfwnezg3", "psxi1mzh8").replace("@@", "psfwnezg3") \
        if variant == "swapped" else box


def _gai(local_rank: int) -> str:
    return GAI.replace(" [0]:", f" [{local_rank}]:")


def _import(variant: str) -> str:
    if variant == "three":
        tb = IMPORT[:IMPORT.index("ImportError: No module named numpy\n") + len("ImportError: No module named numpy\n")]
        return tb + IMPORT
    if variant == "py3":
        return IMPORT.replace("ImportError: No module named numpy", "ModuleNotFoundError: No module named 'numpy'")
    return IMPORT


def _socket(first: int) -> str:
    if first == 0:
        return SOCKET
    lines = SOCKET.splitlines()
    lines[7], lines[8] = lines[8], lines[7]  # device [1]'s return code before device [0]'s
    return "\n".join(lines) + "\n"


def _srun(bad: int) -> str:
    hosts = ["cdr2550", "cdr2601"]
    return SRUN.format(bad=bad, ok=1 - bad, bad_host=hosts[bad], ok_host=hosts[1 - bad])


BUILD = {"orte": _orte, "gai": _gai, "import": _import, "socket": _socket, "srun": _srun}
#: (processes per node, world size) of each shape (None: not known)
SIZES = {"orte": (None, None), "gai": (None, None), "import": (None, None), "socket": (None, None), "srun": (1, 2)}

# key: (shape, parameter); the expected (culprit, cause)
CULPRITS = {("srun", 1): (1, "exit-2"), ("srun", 0): (0, "exit-2")}
CONTROLS = [("orte", "debug"), ("orte", "bare"), ("orte", "swapped"), ("gai", 0), ("gai", 1),
            ("import", "two"), ("import", "three"), ("import", "py3"), ("socket", 0), ("socket", 1)]
BATCHED = Batched("one-node-batch84", list(CULPRITS) + CONTROLS)


def _make(key: tuple, folder: Path) -> object:
    nproc, world = SIZES[key[0]]
    return pasted(BUILD[key[0]](key[1]), folder, nproc, NOW, world)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS, key_id))
def test_the_task_that_exited_first_is_named_with_its_status(tmp_path_factory, key):
    rank, cause = CULPRITS[key]
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), rank, cause)


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS, key_id))
def test_a_node_unlike_the_others_the_log_cannot_place_names_no_one(tmp_path_factory, key):
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), None)


def test_the_variants_keep_their_shape():
    """The builders move the failing host, rank or task, not the wording the tests are about."""
    assert _orte("bare").startswith("-----") and "Remote host:   psfwnezg3" in _orte("bare")
    assert "Local host:    psfwnezg3" in _orte("swapped") and "debug" not in _orte("swapped")
    assert _gai(0) == GAI and _gai(1).count(" [1]:") == 5 and " [0]:" not in _gai(1)
    assert _import("two") == IMPORT and _import("three").count("Traceback") == 3
    assert _import("py3").count("ModuleNotFoundError: No module named 'numpy'") == 2
    assert _socket(0) == SOCKET and _socket(1).splitlines()[7].startswith("c39f5cf046aa:4534:4588 [1]")
    assert "cdr2601: task 1: Exited with exit code 2" in _srun(1) and "cdr2601: task 1: Terminated" in _srun(0)
