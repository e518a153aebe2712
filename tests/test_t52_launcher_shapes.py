"""The fifty-second launcher set's host leftovers (docs/rules.md, "Session 59: one rank on every host refused a host's
resource"), in one analysis of small node sets.

2 x 2 under ``--tee 3``: each node's local rank 0 binds the node's loader port at step 3. A stale process holding the
port on BOTH nodes: ranks 0 and 2 raise ``OSError: [Errno 98] Address already in use`` milliseconds apart and ranks 1
and 3 then see gloo's ``Connection closed by peer``: every host's leftover alike, no single culprit (2.13.0's recording
named ranks 0 and 2 critical). Contrasts: the port held on node 1 only names rank 2; the same one-per-node shape with
a program's own error (a ``ValueError`` on ranks 0 and 2, the forty-ninth set's shape) still names both.
"""

from __future__ import annotations

import pytest

from bundle_batch import analyze_node_sets, assert_names
from test_t51_launcher_shapes import AGENT, CLOSED, SIGTERM, _stamp, _steps, _table, _tb
from torch_runs_kit import CAPTURED

PORT = "[rank{r}]: OSError: [Errno 98] Address already in use"
VALUE = "[rank{r}]: ValueError: batch 3 has 0 samples"


def _node(node: int, err: str | None, t: str) -> str:
    """One node's log: local rank 0 (rank 2 * node) raising ``err`` at ``t`` (None: it runs on), local rank 1 seeing a
    peer's connection close, the agent's SIGTERM and failure table."""
    r0, r1, agent, pids = 2 * node, 2 * node + 1, 27166 + node, (27176 + node * 10, 27177 + node * 10)
    lines = _steps(r0) + _steps(r1)
    if err:
        lines += _tb(t, r0, err)
    lines += _tb("36:23.400000", r1, CLOSED)
    if err:
        lines += [("36:23.900000", SIGTERM.format(t="36:23.890000", agent=agent, pid=pids[1])),
                  ("36:24.100000", AGENT.format(t="36:24.090000", agent=agent, code=1, lr=0, pid=pids[0]))]
        lines += _table("36:24.100000", (r0, 0, pids[0], 1), (r1, 1, pids[1], -15))
    else:
        lines += [("36:23.900000", SIGTERM.format(t="36:23.890000", agent=agent, pid=pids[0])),
                  ("36:24.100000", AGENT.format(t="36:24.090000", agent=agent, code=1, lr=1, pid=pids[1]))]
        lines += _table("36:24.100000", (r1, 1, pids[1], 1), (r0, 0, pids[0], -15))
    return _stamp(lines)


#: (name, node logs, the ranks warning/critical findings name, a cause one of them gives; [] and None: nothing named)
NODE_SETS = [
    ("stale-port-every-node", [_node(0, PORT, "36:23.101000"), _node(1, PORT, "36:23.110000")], [], None),
    ("stale-port-node1-only", [_node(0, None, ""), _node(1, PORT, "36:23.110000")], [2], None),
    ("value-error-one-per-node", [_node(0, VALUE, "36:23.101000"), _node(1, VALUE, "36:23.110000")], [0, 2], None),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    return analyze_node_sets(NODE_SETS, tmp_path_factory.mktemp("t52shapes"), CAPTURED)


@pytest.mark.parametrize(("i", "want", "cause"), [(i, w, c) for i, (_, _, w, c) in enumerate(NODE_SETS)],
                         ids=[s[0] for s in NODE_SETS])
def test_the_fifty_second_set_s_host_leftovers(findings, i, want, cause):
    assert_names(findings, i, want, cause)
