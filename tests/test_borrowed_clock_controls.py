"""Session 18's controls (docs/rules.md, "Session 18: borrowed clocks and setup faults"): node logs brought without
timestamps (``kubectl logs`` without ``--timestamps``) through ``k10s import-logs``, one file per node.

* a line without a timestamp of its own borrows its log's nearest stamped line's clock (an agent's glog line, seconds
  later): ranks that printed the same error are not ordered by those borrowed clocks: no single culprit;
* an agent's ``failed (exitcode: 1) local_rank: 0 (pid: N)`` takes the rank its failure table gives pid N, not the one
  the pod's place gives (a third file of a two-node job: two agents were given the same node rank);
* a worker's exception that names no rank and says a peer went away (gloo's unprefixed ``Connect timeout``) above its
  agent's report of that one worker failing: the worker was torn down, its exit status is no failure of its own.

Beside each, the shapes that keep their culprit. All node sets are analysed in one merged bundle.
"""

from __future__ import annotations

import pytest

from bundle_batch import analyze_node_sets, findings_of
from incident_kit import naming_findings
from test_control_pastes import CUDA_DETAIL, NCCL_ERR
from torch_runs_kit import CAPTURED

SIGTERM = "W1130 04:10:{s} 8166 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process {pid} closing signal SIGTERM"
AGENT = ("E1130 04:10:{s} 8157 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: {lr} "
         "(pid: {pid}) of binary: /opt/venv/bin/python3")
TB = ["[rank{r}]: Traceback (most recent call last):", '[rank{r}]:   File "/workspace/train.py", line 100, in <module>',
      "[rank{r}]:     main()"]
EOF_ERR = "[rank{r}]: EOFError: EOF when reading a line"
KEY_ERR = "[rank{r}]: KeyError: 'labels'"
RESET = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:545] Read error "
         "[127.0.0.1]:27535: Connection reset by peer")
MESH = ("RuntimeError: Gloo connectFullMesh failed with [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.h:311] "
        "Connect timeout [none]")
CLOSED = "RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.1.0.5]:29500"
PLAIN_RAISED = "ValueError: batch size 0 is not positive"


def _table(*entries: tuple[int, int, int, int]) -> list[str]:
    """torchrun's failure table: (rank, local rank, exit code, pid) per entry, the first its Root Cause."""
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
           "============================================================", "/workspace/train.py FAILED",
           "------------------------------------------------------------", "Failures:"]
    rows = lambda i, e: [f"[{i}]:", "  time      : 2026-11-30_04:10:21", "  host      : localhost",  # noqa: E731
                         f"  rank      : {e[0]} (local_rank: {e[1]})", f"  exitcode  : {e[2]} (pid: {e[3]})",
                         "  error_file: <N/A>", "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"]
    for i, e in enumerate(entries[1:], 1):
        out += rows(i, e)
    if len(entries) == 1:
        out.append("  <NO_OTHER_FAILURES>")
    out += ["------------------------------------------------------------", "Root Cause (first observed failure):"]
    return out + rows(0, entries[0]) + ["============================================================"]


def _raised(r: int, err: str) -> list[str]:
    return [line.format(r=r) for line in TB + [err]]


def _node(ranks: list[tuple[int, str]], agent: list[str], detail: list[str] = ()) -> str:
    """A node's plain log: each rank's traceback and error (no timestamps; ``detail`` under the first's), then its
    agent's lines."""
    lines = [line for r, err in ranks for line in _raised(r, err) + ([d.format(r=r) for d in detail] if r == ranks[0][0] else [])]
    return "\n".join(lines + agent) + "\n"


def _alike(err: str, s0: str, s1: str, detail: list[str] = ()) -> list[str]:
    """Two nodes whose two ranks each print ``err``; node 1's agent SIGTERMs at :s1, node 0's reports at :s0 (``detail``:
    lines under rank 2's error)."""
    return [_node([(0, err), (1, err)], [AGENT.format(s=s0, lr=0, pid=8216)] + _table((0, 0, 1, 8216), (1, 1, 1, 8218))),
            _node([(2, err), (3, err)], [SIGTERM.format(s=s1, pid=8217), AGENT.format(s=s1, lr=0, pid=8215)]
                  + _table((2, 0, 1, 8215), (3, 1, -15, 8217)), detail)]


def _dup(third: list[str]) -> list[str]:
    """Three node logs of a two-node job (two agents given node rank 1): nodes 0 and 1 trained quietly, the third
    printed ``third``, then its agent's report of pid 15193 (local rank 0), which its table calls rank 2."""
    quiet = "rank {a} step 5 loss 0.0069\nrank {b} step 5 loss 0.0087\n"
    return [quiet.format(a=0, b=1), quiet.format(a=2, b=3),
            "\n".join(third + [AGENT.format(s="25.710000", lr=0, pid=15193)] + _table((2, 0, 1, 15193))) + "\n"]


CLOSED_TAGGED = "[rank{r}]: " + CLOSED


def _apart(below: str, first_node_later: bool = True, both_below: bool = False, restarted: bool = False) -> list[str]:
    """Two nodes whose ranks 1 and 2 raise the same KeyError: rank 1 first in node 0's log, rank 2 below its node-mate's
    teardown error ``below`` (``both_below``: rank 1 below one too; ``restarted``: the agent's report of an earlier
    attempt between the two); node 0's agent speaks later than node 1's (``first_node_later``) or earlier."""
    s0, s1 = ("29.930000", "20.867000") if first_node_later else ("20.867000", "29.930000")
    node0 = [(0, CLOSED_TAGGED), (1, KEY_ERR)] if both_below else [(1, KEY_ERR), (0, CLOSED_TAGGED)]
    between = [AGENT.format(s="10.100000", lr=1, pid=8117)] if restarted else []
    node1 = _node([(3, below)], between) + _node([(2, KEY_ERR)], [SIGTERM.format(s=s1, pid=8217), AGENT.format(s=s1, lr=0, pid=8215)]
                                                  + _table((2, 0, 1, 8215), (3, 1, 1, 8217)))
    return [_node(node0, [AGENT.format(s=s0, lr=1, pid=8218)] + _table((1, 1, 1, 8218), (0, 0, 1, 8216))), node1]


#: (name, node logs, the ranks a warning/critical finding must name: [] for none)
NODE_SETS = [
    # every rank's same error, each node's clock lent by its agent's next stamped line, 1.06 s apart
    ("alike-borrowed-after", _alike(EOF_ERR, "21.930000", "20.867000"), []),
    ("alike-borrowed-apart", _alike(KEY_ERR, "29.930000", "20.867000"), []),
    # ... and where the first rank's error has a line of detail more (NCCL's cause under its DistBackendError)
    ("alike-borrowed-one-detailed", _alike(NCCL_ERR, "21.930000", "20.867000", detail=CUDA_DETAIL), []),
    # ... and one rank's own error among its peers' SIGTERMs keeps its culprit, whatever its clock is lent by
    ("one-rank-borrowed", [_node([], [SIGTERM.format(s="21.910000", pid=8218), AGENT.format(s="21.930000", lr=0, pid=8216)]
                                 + _table((0, 0, -15, 8216), (1, 1, -15, 8218))),
                           _node([(2, KEY_ERR)], [SIGTERM.format(s="20.867000", pid=8217), AGENT.format(s="20.900000", lr=0, pid=8215)]
                                 + _table((2, 0, 1, 8215), (3, 1, -15, 8217)))], [2]),
    # a third node's agent reports its local rank 0, which its table calls rank 2 (the pod's place: rank 4)
    ("dup-node-rank-reset", _dup([line for r in (2, 3) for line in _raised(r, RESET)]), []),
    ("dup-node-rank-raised", _dup(_raised(2, KEY_ERR)), [2]),
    # an unprefixed gloo error saying a peer went away, above its agent's report of its one failing worker (of a
    # duplicate node rank's three nodes, or of two: node 0's and this one, [::2])
    ("dup-node-rank-mesh-unranked", _dup([MESH]), []),
    ("mesh-unranked", _dup([MESH])[::2], []),
    ("closed-by-peer-unranked", _dup([CLOSED])[::2], []),
    # ... and an unprefixed error of the worker's own keeps it named
    ("raised-unranked", _dup([PLAIN_RAISED])[::2], [2]),
    ("raised-unranked-dup", _dup([PLAIN_RAISED]), [2]),
    # the same error on two nodes, one printed below a node-mate's teardown error (a peer had gone): the lines' order
    # proves the other first, whichever agent's clock each borrows; gloo's wordings of a peer gone
    ("apart-below-closed", _apart(CLOSED_TAGGED), [1]),
    ("apart-below-reset", _apart(RESET), [1]),
    ("apart-below-closed-clock-against", _apart(CLOSED_TAGGED, first_node_later=False), [1]),
    # ... not where both are below one, nor where the teardown was an earlier attempt's (its agent's report between)
    ("apart-both-below", _apart(CLOSED_TAGGED, both_below=True), []),
    ("apart-below-earlier-attempt", _apart(CLOSED_TAGGED, restarted=True), []),
]

#: node sets imported with ``--nproc-per-node 2`` (two files whose lines do not say it)
TWO_PER_NODE = {"mesh-unranked", "closed-by-peer-unranked", "raised-unranked"}


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(NODE_SETS, tmp_path_factory.mktemp("borrowed"), CAPTURED,
                             nproc=lambda name: 2 if name in TWO_PER_NODE else None)


@pytest.mark.parametrize(("i", "want"), [(i, want) for i, (_, _, want) in enumerate(NODE_SETS)], ids=[s[0] for s in NODE_SETS])
def test_node_logs_name_a_rank_only_where_they_prove_one(findings, i, want):
    named = naming_findings(findings_of(findings, i))
    assert sorted({r for f in named for r in f["ranks"]}) == want, [(f["rule"], f["severity"], f["ranks"], f["summary"]) for f in named]


def test_alike_errors_with_borrowed_clocks_say_why(findings):
    """The no-culprit finding says why no rank is first, not that the ranks failed within one second: the clocks are
    borrowed, or (since session 34) every rank raised the same exception, however far apart."""
    said = [f["summary"] for f in findings_of(findings, 1) if f["rule"] == "rank-failure"]
    why = ("without a timestamp of their own", "raised the same exception")
    assert any(any(w in s for w in why) and "no single culprit" in s and "within one second" not in s for s in said), said
