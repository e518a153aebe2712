"""``kubectl logs -l <selector>`` WITHOUT ``--prefix`` of a job torchrun restarted (``--max-restarts``): each pod's whole
log after another's, every agent reporting its own ``failed (exitcode: …) local_rank: N`` in each attempt. Two nodes'
``local_rank: 0`` are two different ranks (docs/rules.md, "Session 72: two agents' local ranks in an unprefixed paste of
restarted pods"): the agents are told apart by their own clocks (two agents alive at once are two nodes, however the
paste orders their blocks; one agent's clock never goes back, so the same pid again at an earlier time is another pod's
agent: each container numbers its processes from 1, an entrypoint ``torchrun`` is pid 1 in every pod).

The pastes are the recorded runs' node logs (tests/data/torch-runs) as plain ``kubectl logs`` shows them, concatenated in
the recorded order and reversed; ``pid1`` gives each block's agent the pid its container would (the glog pid field only).
"""

from __future__ import annotations

import pytest

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.log_agents import AGENT_LINE, agent_layout, agent_keys, agents
from torch_runs_kit import import_paste, load_runs, plain

_LOOP = "2.13.0/t21-trun-2x2-restarts2-memoryerror-rank2"  # rank 2 (node 1's local_rank 0) fails in every attempt
_TWO_NODES = "2.14.1/torchrun-restarts2-segfault"  # truth rank 2 (node 1's local_rank 0); node 0's local_rank 0 a victim
_RERUN = ("2.13.0/t62-standalone-1x4-restarts1-segfault-rank2-step3-ckpt-shards-w2-record-logging-norank-filter0",
          "2.13.0/t72-standalone-1x4-restarts1-abort-rank2-step8-eval-w2-exception-logging-slash-tee")  # one node, later


def _pid1(text: str) -> str:
    """The log as its container shows it where torchrun is the entrypoint: the agent's pid 1."""
    out = []
    for line in text.splitlines(keepends=True):
        m = AGENT_LINE.match(line) if "torch/distributed/" in line else None
        out.append(line[:m.start(1)] + "1" + line[m.end(1):] if m else line)
    return "".join(out)


def _texts(run_id: str, pid1: bool) -> list[str]:
    run = next(r for r in load_runs() if r.id == run_id)
    return [_pid1(plain(t)) if pid1 else plain(t) for t in run.stamped()]


def _paste(texts: list[str]) -> str:
    return "".join(t if t.endswith("\n") else t + "\n" for t in texts)


def _findings(tmp_path, run_id: str, reverse: bool, pid1: bool) -> list[dict]:
    texts = _texts(run_id, pid1)
    paste = tmp_path / "paste.log"
    paste.write_text(_paste(texts[::-1] if reverse else texts), "utf-8")
    return naming_findings(analyze(import_paste(paste, tmp_path))["findings"])


@pytest.mark.parametrize("pid1", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_the_real_crash_loop_of_one_rank_is_still_read_as_one(tmp_path, reverse, pid1):
    found = _findings(tmp_path, _LOOP, reverse, pid1)
    assert all(f["ranks"] == [2] for f in found), [(f["rule"], f["ranks"]) for f in found]
    assert [f["ranks"] for f in found if f["rule"] == "crashloop"] == [[2]], [(f["rule"], f["ranks"]) for f in found]


@pytest.mark.parametrize("pid1", [False, True])
@pytest.mark.parametrize("reverse", [False, True])
def test_contrast_two_nodes_local_rank_0_are_not_one_rank(tmp_path, reverse, pid1):
    # node 0's agent reports its local_rank 0 (rank 0, torn down) and node 1's its local_rank 0 (rank 2, SIGSEGV)
    found = _findings(tmp_path, _TWO_NODES, reverse, pid1)
    got = [(f["rule"], f["cause"], f["ranks"]) for f in found]
    assert ("rank-failure", "segfault", [2]) in got and all(f["ranks"] == [2] for f in found), got


def test_same_pid_agents_of_two_pods_are_two_agents():
    lines = _paste(_texts(_TWO_NODES, pid1=True)).splitlines()
    assert len(agents(lines)) == 2 and agent_layout(lines, 4) == (2, 2)  # world 4: the highest tag, [rank3]:


def test_contrast_a_rerun_on_one_node_stays_one_node():
    # two launches one after the other on one node (the later run's clock after the earlier's): not alive at once
    lines = _paste([plain((next(r for r in load_runs() if r.id == rid)).stamped()[0]) for rid in _RERUN]).splitlines()
    assert len(agents(lines)) == 2 and agent_layout(lines, 4) is None
    # the same pid in both launches (each the container's pid 1): one process's clock going forward, one agent
    same = _paste([_pid1(plain((next(r for r in load_runs() if r.id == rid)).stamped()[0])) for rid in _RERUN]).splitlines()
    assert {k for k in agent_keys(same) if k} == {"1"} and agent_layout(same, 4) is None
