"""Record real PyTorch launcher runs as fixtures: tests/data/torch-runs/<torch version>/<scenario>/.

    .venv/bin/python tests/tools/record_torch.py            # every scenario (a few minutes)
    .venv/bin/python tests/tools/record_torch.py -k sigkill # those whose name holds "sigkill"

Needs torch (the CPU wheel). Not part of the test run. Each scenario runs a real job on 127.0.0.1 with the gloo backend:
two ``torchrun`` agents (c10d rendezvous on a free loopback port) standing for two nodes, or ``python -m
torch.distributed.launch`` (two static nodes), or ``torch.multiprocessing.spawn`` (one node); a worker injects the fault.
Each agent's stdout+stderr, as one stream, is that node's pod log; it is written as
``kubectl logs --timestamps`` would serve it (the time each line arrived, then the line), in
``node<N>.log`` (N = the node rank the rendezvous gave the agent; ``pod_of_agent``: each file's agent by start order).
``--log-dir`` files are kept under ``log-dir/`` as torchrun wrote them (one run-id folder each agent). ``truth.json``:
the culprit rank(s) and cause (or none: a control), the layout and the exact commands. The scenarios come from
torch_scenarios.py (every set's), each node's command line from record_launch.py
(every set's launch styles), the launcher process and its stamped lines from record_agent.py.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

import record_launch
import torch_scenarios32
from torch_scenarios import SCENARIOS
from record_agent import Agent, scrub

OUT_ROOT = Path(__file__).resolve().parent.parent / "data" / "torch-runs"
RUN_LIMIT_S = 90


def _worker_env(sc: dict, agent: str, marks: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "LOGLEVEL"}
    env = dict(env, K10S_FAULT=sc["fault"], K10S_FAULT_RANK=str(sc["rank"]), K10S_FAULT_STEP=str(sc["step"]), K10S_STEPS=str(sc["steps"]),
               K10S_AGENT=agent, K10S_MARK_DIR=marks, PYTHONUNBUFFERED="1", OMP_NUM_THREADS="1")
    return {k: v for k, v in {**env, **sc["env"]}.items() if v is not None}  # None: unset (e.g. PYTHONUNBUFFERED)


def _node_order(agents: list[Agent], marks: Path) -> list[Agent]:
    """Agents by the node rank the rendezvous gave them (static launchers: as started)."""
    owner = {}
    for f in marks.glob("group-*"):
        owner[f.read_text().strip()] = int(f.name.split("-")[1])
    return sorted(agents, key=lambda a: (owner.get(a.name, agents.index(a)), agents.index(a)))


def _attempt(sc: dict, attempt: int) -> dict:
    """The scenario as container attempt ``attempt`` runs it (``attempt_faults``: each attempt's ``fault:rank``)."""
    if not sc.get("attempt_faults"):
        return sc
    fault, rank = sc["attempt_faults"][attempt].split(":")
    return {**sc, "fault": fault, "rank": int(rank)}


def _start_and_wait(sc: dict, cmds: list[list[str]], marks: Path, deadline: float | None) -> list[Agent]:
    """Start each node's launcher, inject the scenario's outside kill or preemption, wait for all of them."""
    agents = []
    for i, cmd in enumerate(cmds):
        if sc.get("late_s") and i == len(cmds) - 1:  # the last agent joins late (an elastic scale-up)
            time.sleep(sc["late_s"])
        name = f"agent{i}"
        agents.append(Agent(name, cmd, _worker_env(sc, name, str(marks))))
        time.sleep(sc["gap_s"])
    deadline = deadline or time.time() + sc.get("limit_s", RUN_LIMIT_S) * max(1, len(cmds) - 1)  # ``limit_s``: a slow-starting launcher
    if sc["kill_node"] or sc["preempt_s"]:
        while len(list(marks.glob("group-*"))) < len(cmds) and time.time() < deadline:
            time.sleep(0.2)
        time.sleep(sc["preempt_s"] or 1.5)
        if sc["preempt_s"]:  # the agents only, as the kubelet signals each container's PID 1
            node = sc.get("preempt_node")  # one pod evicted: that node's agent only (``preempt_agent``: by start order)
            targets = [agents[sc["preempt_agent"]]] if "preempt_agent" in sc else agents if node is None else [_node_order(agents, marks)[node]]
            for a in targets:
                sig = signal.Signals[sc.get("preempt_sig", "SIGTERM")]
                a.kill_group(sig) if sc.get("preempt_group") else os.kill(a.proc.pid, sig)
        else:
            victim = agents[sc["kill_agent"]] if "kill_agent" in sc else _node_order(agents, marks)[1]  # by start order
            victim.kill_group(signal.SIGKILL)
    for a in agents:
        a.wait(deadline)
    return agents


def record(sc: dict, out_root: Path, version: str) -> dict:
    work = Path(tempfile.mkdtemp(prefix="k10s-torch-"))
    marks, logdir = work / "marks", work / "logs"
    marks.mkdir()
    cmds = record_launch.commands(sc, str(logdir))
    earlier = []  # ``kubelet_restarts``: each earlier attempt's agents (the containers' previous logs)
    for attempt in range(sc.get("kubelet_restarts", 0)):
        earlier.append(_start_and_wait(_attempt(sc, attempt), cmds, marks, time.time() + RUN_LIMIT_S))
        time.sleep(2.0)  # the kubelet's back-off before it starts the container again
    agents = _start_and_wait(_attempt(sc, len(earlier)), cmds, marks, None)
    if sc.get("culprits_from_marks"):  # the global rank(s) the fault landed on, as the worker marked them
        sc = {**sc, "culprit_ranks": sorted(int(f.name.split("-")[1]) for f in marks.glob("fault-*"))}
    dest = out_root / version / sc["name"]
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    ordered = [agents[i] for i in sc["pod_of_agent"]] if sc.get("pod_of_agent") else _node_order(agents, marks)
    for node, a in enumerate(ordered):
        (dest / f"node{node}.log").write_text("\n".join(a.lines) + "\n", encoding="utf-8")
    for attempt in earlier:  # each earlier container's log, as ``kubectl logs --previous`` serves it (one restart)
        for node, a in enumerate(_node_order(attempt, marks)):
            (dest / f"node{node}.previous.log").write_text("\n".join(a.lines) + "\n", encoding="utf-8")
    torch_scenarios32.keep(sc, dest, [a.name for a in ordered], scrub)  # its flight-recorder dumps and torchfrtrace's output
    if logdir.is_dir():
        _keep_log_dir(logdir, dest / "log-dir")
    nodes = len(cmds) if sc["launcher"] != "spawn" else 1
    layout_nodes = 1 if sc["launcher"] == "spawn" else 2 if sc["launcher"] == "legacy" else sc.get("layout_nodes", sc["agents"])
    truth = {"torch": version, "launcher": sc["launcher"], "fault": sc["fault"], "culprit_ranks": sc["culprit_ranks"],
             "cause": sc["cause"] if sc["culprit_ranks"] else None, "control": not sc["culprit_ranks"],
             "nproc_per_node": sc["nproc"], "nodes": layout_nodes,
             "world_size": sc["nproc"] * layout_nodes,
             "node_logs": [f"node{i}.log" for i in range(len(ordered))], "env": sc["env"],
             "commands": [record_launch.public(c, str(logdir)) for c in (cmds if nodes == 1 else [a.cmd for a in ordered])],
             "exit_codes": [a.proc.returncode for a in ordered]}
    if "victims" in sc:  # the ranks that fail or wait because of the culprit (the thirty-third set on)
        truth["victim_ranks"] = sc["victims"]
    if sc.get("attempt_faults"):  # each container attempt's own fault:rank
        truth["attempt_faults"] = sc["attempt_faults"]
    if earlier:  # the kubelet restarted every container: the previous attempt's logs and exit codes
        truth.update(kubelet_restarts=len(earlier), previous_logs=[f"node{i}.previous.log" for i in range(len(ordered))],
                     previous_exit_codes=[a.proc.returncode for a in _node_order(earlier[-1], marks)])
    if sc.get("nproc_by_agent"):  # each node its own --nproc-per-node (by node rank): no single count
        per = [sc["nproc_by_agent"][agents.index(a)] for a in ordered]
        truth.update(nproc_per_node=None, nproc_by_node=per, world_size=sum(per))
    if sc.get("mixed"):  # node 1's agent (the second started) ran the other torch version
        truth["mixed_torch"] = {"node": ordered.index(agents[1]), "torch": os.environ["K10S_MIXED_VERSION"]}
    (dest / "truth.json").write_text(json.dumps(truth, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    shutil.rmtree(work, ignore_errors=True)
    record_launch.cleanup()
    return truth


def _keep_log_dir(logdir: Path, dest: Path) -> None:
    """torchrun's --log-dir files (both agents share the folder here; each run id folder is one agent)."""
    for f in sorted(logdir.rglob("*.log")):
        if f.stat().st_size:
            rel = f.relative_to(logdir)
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(scrub(f.read_text(encoding="utf-8", errors="replace")), encoding="utf-8")


def main() -> int:
    import torch

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", default="", help="only scenarios whose name holds this (several: comma-separated)")
    ap.add_argument("-o", type=Path, default=OUT_ROOT)
    args = ap.parse_args()
    version = torch.__version__.split("+")[0]
    for sc in SCENARIOS:
        if any(k in sc["name"] for k in args.k.split(",")):
            if sc.get("mixed") and not (os.environ.get("K10S_MIXED_BIN") and os.environ.get("K10S_MIXED_VERSION")):
                print(f"{sc['name']}: skipped (a mixed-version run: set K10S_MIXED_BIN to the other torch's venv bin "
                      "and K10S_MIXED_VERSION to its version)", flush=True)
                continue
            t0 = time.time()
            truth = record(sc, args.o, version)
            print(f"{sc['name']}: exit {truth['exit_codes']} in {time.time() - t0:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
