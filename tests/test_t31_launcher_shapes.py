"""The thirty-first launcher set's shapes (torchrun configured only from ``PET_*`` in a pod's shell, tests/tools/
torch_scenarios31.py), in one analysis of node-log sets cut from its recordings as users paste a training operator's pods
(each truth written before the set was analysed; ``kubectl logs --timestamps``, one file per pod unless said).

* The kubelet restart (``restartPolicy: OnFailure``, rank 2's segfault in both containers): the culprit's pod alone
  (``kubectl logs --previous train-worker-0`` then ``kubectl logs train-worker-0`` in one file: rank 2); the other pod
  alone (ranks 0 and 1 saw the connection closed or reset, twice: no one may be named, the culprit is not in the paste);
  the previous containers' logs alone (``kubectl logs --previous`` of both pods: rank 2).
* ``sh -c`` with ``printenv`` and training-operator v1's ``PET_RDZV_*``: rank 3 SIGKILLed, node 1's pod alone (rank 3,
  its agent's table) and node 0's alone (its two victims: no one); rank 2 hung before its all-reduce, the workers' lines
  alone (cut before each agent's report: rank 2, the one rank that said nothing).
* Trainer v2's ``bash -c 'set -ex; …'`` with ``JOB_COMPLETION_INDEX`` as the node rank: rank 1 never joining, node 1's
  pod alone (its ranks' store wait names rank 1's key); rank 1's ``KeyError`` with both pods' logs in one file, one after
  the other (``kubectl logs train-master-0; kubectl logs train-worker-0``, no prefix).
* Controls: the clean run's node 1 alone.
* Kubeflow Trainer v2's pods (a JobSet: ``train-node-0-<index>-<suffix>``, container ``node``) saved with ``kubectl logs
  -l jobset.sigs.k8s.io/jobset-name=train --prefix --timestamps`` (``[pod/<pod>/node] <time> <line>``, one pod after the
  other in one file): the restart with ``--previous`` first, then without (each pod twice: rank 2); the SIGKILL (rank 3);
  the common-mode ``PET_NPROC_PER_NODE`` typo (no one).
* The kubelet restart whose culprit moved (rank 1's ``KeyError`` in the first containers, rank 3's segfault in the
  restarted ones; added after the set's first score, truths committed before analysis): the JobSet paste, ``--previous``
  first (rank 3, the last attempt's), the previous containers alone (rank 1: that attempt's culprit), the current alone
  (rank 3).
* One pod alone where the culprit is on the other: the hang's node 0 (ranks 0 and 1 timed out, the hung rank 2 is not in
  it: no one), the never-joined rank's own node 0 (rank 0's store wait names rank 1's key: rank 1), the ``KeyError``'s
  node 1 (its two victims: no one).
"""

from __future__ import annotations

import pytest

from bundle_batch import analyze_node_sets, assert_names, findings_of, shape_params
from job_shapes import jobset_pod
from torch_runs_kit import AGENT_FIRST, CAPTURED, load_runs, until

#: shape: why it is missed (strict xfail)
NOT_YET: dict[str, str] = {}


def _jobset_prefix(*attempts: list[str]) -> str:
    """``kubectl logs -l jobset… --prefix --timestamps`` once per attempt (``--previous`` first): each pod's stamped lines."""
    return "".join(f"[pod/{jobset_pod(n)}/node] {line}\n" for texts in attempts for n, text in enumerate(texts)
                   for line in text.splitlines() if line)


def _shapes() -> list[tuple]:
    runs = {r.id: r for r in load_runs() if "/t31-" in r.id}
    shapes = []
    for v in ("2.13.0", "2.14.1"):
        def run(name: str, v: str = v):
            return runs[f"{v}/t31-pet-{name}"]

        restart = run("static-kubelet-restart-segfault-rank2")
        (prev0, prev1), (cur0, cur1) = restart.previous(), restart.stamped()
        kill0, kill1 = run("c10d-sh-sigkill-rank3").stamped()
        moving = run("static-kubelet-restart-moving-rank1-then-rank3")
        #: (name, node logs, the ranks warning/critical findings name ([]: none), a cause)
        shapes += [
            (f"{v}-restart-culprit-pod-only", [prev1 + cur1], [2], "segfault"),
            (f"{v}-restart-victim-pod-only", [prev0 + cur0], [], None),
            (f"{v}-restart-previous-only", [prev0, prev1], [2], "segfault"),
            (f"{v}-sigkill-node1-only", [kill1], [3], "host-oom-kill"),
            (f"{v}-sigkill-node0-only", [kill0], [], None),
            (f"{v}-hang-workers-only", [until(t, AGENT_FIRST) for t in run("c10d-sh-hang-allreduce-rank2").stamped()], [2],
             "never-joined"),
            (f"{v}-never-joins-node1-only", run("static-never-joins-rank1").stamped()[1:], [1], "never-joined"),
            (f"{v}-keyerror-pods-in-one-file", ["".join(run("static-jobindex-keyerror-rank1").stamped())], [1],
             "python-exception"),
            (f"{v}-clean-node1-only", run("c10d-sh-clean").stamped()[1:], [], None),
            (f"{v}-restart-jobset-prefix-previous-then-current", [_jobset_prefix(restart.previous(), restart.stamped())], [2],
             "segfault"),
            (f"{v}-sigkill-jobset-prefix", [_jobset_prefix([kill0, kill1])], [3], "host-oom-kill"),
            (f"{v}-bad-nproc-jobset-prefix", [_jobset_prefix(run("static-bad-nproc-common-mode").stamped())], [], None),
            (f"{v}-hang-node0-only", run("c10d-sh-hang-allreduce-rank2").stamped()[:1], [], None),
            (f"{v}-never-joins-node0-only", run("static-never-joins-rank1").stamped()[:1], [1], "never-joined"),
            (f"{v}-keyerror-node1-only", run("static-jobindex-keyerror-rank1").stamped()[1:], [], None),
            (f"{v}-moving-jobset-prefix-previous-then-current", [_jobset_prefix(moving.previous(), moving.stamped())], [3],
             "segfault"),
            (f"{v}-moving-previous-only", moving.previous(), [1], "python-exception"),
            (f"{v}-moving-current-only", moving.stamped(), [3], "segfault"),
        ]
    return shapes


SHAPES = _shapes()


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(SHAPES, tmp_path_factory.mktemp("t31shapes"), CAPTURED)


@pytest.mark.parametrize(("i", "want", "cause"), shape_params(SHAPES, NOT_YET))
def test_the_thirty_first_set_s_shapes(findings, i, want, cause):
    assert_names(findings, i, want, cause)  # want []: a control, no rank named


def test_the_shapes_hold_what_they_say():
    """The restart's pods hold two containers' output each; the cut shapes keep no agent report; the pod shells' preambles
    are there (bash's ``+`` trace, the printed PET_* environment)."""
    by = {s[0]: s[1] for s in SHAPES}
    for v in ("2.13.0", "2.14.1"):
        culprit = by[f"{v}-restart-culprit-pod-only"][0]
        assert culprit.count("+ torchrun t31_worker.py") == 2 and culprit.count("(SIGSEGV)") >= 2
        assert "JOB_COMPLETION_INDEX=1" in culprit and "[rank2]" not in by[f"{v}-restart-victim-pod-only"][0]
        assert "PET_RDZV_BACKEND=c10d" in by[f"{v}-sigkill-node1-only"][0]
        hang = "".join(by[f"{v}-hang-workers-only"])
        assert "exitcode" not in hang and "[rank2]" not in hang and "[rank0]" in hang
        assert "keys: /default_pg/0//cpu//0/1" in by[f"{v}-never-joins-node1-only"][0]
        jobset = by[f"{v}-restart-jobset-prefix-previous-then-current"][0]
        assert jobset.count("/node] ") == jobset.count("\n") and jobset.count("+ torchrun t31_worker.py") == 4
        assert "[rank2]" not in by[f"{v}-hang-node0-only"][0] and "KeyError" not in by[f"{v}-keyerror-node1-only"][0]


@pytest.mark.parametrize("v", ["2.13.0", "2.14.1"])
def test_the_segfault_in_both_containers_is_a_crash_loop(findings, v):
    """Rank 2's SIGSEGV (torchrun's ``exitcode: -11``) in the first and the restarted container: crashloop names rank 2, twice
    (session 29: a signal the process raised itself counts, the agent's SIGTERM of the others does not)."""
    names = [s[0] for s in SHAPES]
    for shape in ("restart-culprit-pod-only", "restart-jobset-prefix-previous-then-current"):
        loops = [f for f in findings_of(findings, names.index(f"{v}-{shape}")) if f["rule"] == "crashloop"]
        assert [(f["ranks"], f["cause"], f["severity"]) for f in loops] == [([2], "segfault", "critical")], shape
