"""Record real PyTorch launcher runs as fixtures: tests/data/torch-runs/<torch version>/<scenario>/.

    .venv/bin/python tests/tools/record_torch.py            # every scenario (a few minutes)
    .venv/bin/python tests/tools/record_torch.py -k sigkill # those whose name holds "sigkill"

Needs torch (the CPU wheel). Not part of the test run. Each scenario runs a real job on 127.0.0.1 with the gloo backend:
two ``torchrun`` agents (c10d rendezvous on a free loopback port) standing for two nodes, or ``python -m
torch.distributed.launch`` (two static nodes), or ``torch.multiprocessing.spawn`` (one node); a worker injects the fault.
Each agent's stdout+stderr, as one stream, is that node's pod log; it is written as
``kubectl logs --timestamps`` would serve it (the time each line arrived, then the line), in
``node<N>.log`` (N = the node rank the rendezvous gave the agent). ``--log-dir`` files are
kept under ``log-dir/`` as torchrun wrote them (both agents share the folder; one run-id folder each). ``truth.json`` says the culprit rank(s) and cause (or none:
a control), the layout and the exact commands. Each node's command line comes from record_launch.py
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
import torch_scenarios3
import torch_scenarios4
import torch_scenarios5
import torch_scenarios6
import torch_scenarios7
import torch_scenarios8
import torch_scenarios9
import torch_scenarios10
import torch_scenarios11
import torch_scenarios12
import torch_scenarios13
import torch_scenarios14
import torch_scenarios15
import torch_scenarios16
import torch_scenarios17
import torch_scenarios18
import torch_scenarios19
import torch_scenarios20
import torch_scenarios21
import torch_scenarios22
import torch_scenarios23
import torch_scenarios24
import torch_scenarios25
import torch_scenarios26
import torch_scenarios27
import torch_scenarios28
import torch_scenarios29
import torch_scenarios30
import torch_scenarios31
import torch_scenarios32
import torch_scenarios33
import torch_scenarios34
import torch_scenarios36
import torch_scenarios38
from record_agent import Agent, scrub

OUT_ROOT = Path(__file__).resolve().parent.parent / "data" / "torch-runs"
RUN_LIMIT_S = 90


def S(name, launcher="torchrun", fault="none", rank=1, cause=None, culprits=None, nproc=2, opts=(), env=None,
      kill_node=False, one_agent=False, step=3, steps=6, agents=2, gap_s=1.0, preempt_s=None):
    culprits = [rank] if culprits is None and fault != "none" else (culprits or [])
    return {"name": name, "launcher": launcher, "fault": fault, "rank": rank, "cause": cause, "culprit_ranks": culprits,
            "nproc": nproc, "opts": list(opts), "env": env or {}, "kill_node": kill_node, "one_agent": one_agent, "step": step, "steps": steps,
            "agents": agents, "gap_s": gap_s, "preempt_s": preempt_s}


DETAIL = {"TORCH_DISTRIBUTED_DEBUG": "DETAIL"}
SCENARIOS = [
    S("torchrun-clean", opts=["--tee", "3"]),
    S("torchrun-clean-plain"),
    S("torchrun-sigkill", fault="sigkill", rank=3, cause="host-oom-kill"),
    S("torchrun-sigkill-tee", fault="sigkill", rank=2, cause="host-oom-kill", opts=["--tee", "3"]),
    S("torchrun-segfault", fault="segfault", rank=1, cause="segfault"),
    S("torchrun-segfault-filter", fault="segfault", rank=3, cause="segfault", opts=["--tee", "3", "--local-ranks-filter", "0"]),
    S("torchrun-exception", fault="exception", rank=2, cause="python-exception"),
    S("torchrun-exception-tee", fault="exception", rank=1, cause="python-exception", opts=["--tee", "3"]),
    S("torchrun-exception-redirects-logdir", fault="exception", rank=3, cause="python-exception", opts=["--redirects", "3", "--log-dir", "{logdir}"]),
    S("torchrun-abort", fault="abort", rank=1, cause="abort"),
    S("torchrun-sigbus", fault="sigbus", rank=2, cause="sigbus", opts=["--tee", "3"]),
    S("torchrun-never-joins", fault="never-joins", rank=3, cause="never-joined"),
    S("torchrun-monitored-barrier", fault="monitored-barrier", rank=3, cause="never-joined"),
    S("torchrun-op-mismatch-detail", fault="op-mismatch", rank=2, cause="collective-mismatch", env=DETAIL),
    S("torchrun-size-mismatch-detail", fault="size-mismatch", rank=1, cause="collective-mismatch", env=DETAIL, opts=["--tee", "3"]),
    S("torchrun-restarts-exception", fault="exception", rank=3, cause="python-exception", opts=["--max-restarts", "1"]),
    S("torchrun-node-killed", fault="none", culprits=[], kill_node=True, steps=60),
    S("torchrun-node-never-starts", one_agent=True, culprits=[]),
    S("torchrun-sigkill-nproc4-tee", fault="sigkill", rank=5, cause="host-oom-kill", nproc=4, opts=["--tee", "3"]),
    S("torchrun-segfault-redirects-only", fault="segfault", rank=2, cause="segfault", opts=["--redirects", "3", "--log-dir", "{logdir}"]),
    S("torchrun-exception-filtered-out", fault="exception", rank=3, cause="python-exception", opts=["--tee", "3", "--local-ranks-filter", "0"]),
    S("torchrun-exception-rank0", fault="exception", rank=0, cause="python-exception", opts=["--tee", "3"]),
    S("torchrun-abort-tee", fault="abort", rank=3, cause="abort", opts=["--tee", "3"]),
    S("torchrun-sigbus-plain", fault="sigbus", rank=1, cause="sigbus"),
    S("torchrun-restarts-sigkill", fault="sigkill", rank=1, cause="host-oom-kill", opts=["--max-restarts", "2"]),
    S("torchrun-hang-recv-timeout", fault="hang", rank=2, cause="never-joined"),
    S("torchrun-segfault-nproc4-logdir", fault="segfault", rank=6, cause="segfault", nproc=4, opts=["--tee", "3", "--log-dir", "{logdir}"]),
    S("torchrun-clean-nproc4-logdir", nproc=4, opts=["--redirects", "3", "--log-dir", "{logdir}"]),
    S("legacy-launch-sigkill", launcher="legacy", fault="sigkill", rank=3, cause="host-oom-kill"),
    S("legacy-launch-clean", launcher="legacy"),
    S("spawn-abort", launcher="spawn", fault="abort", rank=2, cause="abort", nproc=4),
    S("spawn-sigbus", launcher="spawn", fault="sigbus", rank=0, cause="sigbus", nproc=4),
    S("legacy-launch-segfault", launcher="legacy", fault="segfault", rank=2, cause="segfault"),
    S("legacy-launch-exception", launcher="legacy", fault="exception", rank=1, cause="python-exception"),
    S("spawn-clean", launcher="spawn", nproc=4),
    S("spawn-exception", launcher="spawn", fault="exception", rank=2, cause="python-exception", nproc=4),
    S("spawn-segfault", launcher="spawn", fault="segfault", rank=1, cause="segfault", nproc=4),
    S("spawn-sigkill", launcher="spawn", fault="sigkill", rank=3, cause="host-oom-kill", nproc=4),
    # second set (held out when recorded): other layouts and output options
    S("torchrun-3x2-sigkill-node2", fault="sigkill", rank=5, cause="host-oom-kill", agents=3),
    S("torchrun-3x2-clean-tee", agents=3, opts=["--tee", "3"]),
    S("torchrun-3x2-hang", fault="hang", rank=4, cause="never-joined", agents=3),
    S("torchrun-3x2-node-killed", culprits=[], kill_node=True, steps=60, agents=3),
    S("torchrun-3x2-exception-filter1", fault="exception", rank=3, cause="python-exception", agents=3,
      opts=["--tee", "3", "--local-ranks-filter", "1"]),
    S("torchrun-1x4-exception-tee", fault="exception", rank=2, cause="python-exception", nproc=4, agents=1, opts=["--tee", "3"]),
    S("torchrun-1x4-clean", nproc=4, agents=1),
    S("torchrun-1x4-abort-logdir", fault="abort", rank=3, cause="abort", nproc=4, agents=1, opts=["--tee", "3", "--log-dir", "{logdir}"]),
    S("torchrun-segfault-redirects1-tee2", fault="segfault", rank=2, cause="segfault", opts=["--redirects", "1", "--tee", "2", "--log-dir", "{logdir}"]),
    S("torchrun-restarts2-segfault", fault="segfault", rank=2, cause="segfault", opts=["--max-restarts", "2"]),
    S("torchrun-exit0-early", fault="exit0", rank=1, cause="never-joined"),
    S("spawn-2-exception", launcher="spawn", fault="exception", rank=1, cause="python-exception", nproc=2),
    S("spawn-hang", launcher="spawn", fault="hang", rank=3, cause="never-joined", nproc=4),
    *torch_scenarios3.scenarios(S),  # the third set (held out when recorded)
    *torch_scenarios4.scenarios(S),  # the fourth: accelerate, Lightning (held out when recorded)
    *torch_scenarios5.scenarios(S),  # the fifth: Kubeflow PET_*, Ray Train, HF Trainer, FSDP2/DCP (held out)
    *torch_scenarios6.scenarios(S),  # the sixth: one process per pod, mpirun, newer torchrun options (held out)
    *torch_scenarios7.scenarios(S),  # the seventh: MPICH Hydra, torchx, DDP's own errors, structured logs (held out)
    *torch_scenarios8.scenarios(S),  # the eighth: DCP, object collectives, loader deadlock, SIGXCPU (held out)
    *torch_scenarios9.scenarios(S),  # the ninth: prefix templates, -m/--no-python, stopped/slow ranks, EMFILE/ENOSPC (held out)
    *torch_scenarios10.scenarios(S),  # the tenth: pipeline/subgroups/no_sync/TP/rpc, tool faults, a moving restart (held out)
    *torch_scenarios11.scenarios(S),  # the eleventh: elastic_launch, store host killed, re-forming, watchdog dumps (held out)
    *torch_scenarios12.scenarios(S),  # the twelfth: object unpickling, SIGTERM ignored, store keys, static misconfigs (held out)
    *torch_scenarios13.scenarios(S),  # the thirteenth: MoE all_to_all, 2-D mesh, gloo dtype/layout, pdb, first-attempt-only (held out)
    *torch_scenarios14.scenarios(S),  # the fourteenth: file-timer reaping, ENOSPC, SIGINT/SIGALRM, pool tracebacks, frozen node (held out)
    *torch_scenarios15.scenarios(S),  # the fifteenth: ExceptionGroup, SIGUSR1/SIGPIPE, excepthook, rpc, node 0 evicted (held out)
    *torch_scenarios16.scenarios(S),  # the sixteenth: EOFError, user network/timeout errors, SIGPROF, argparse, duplicate node rank (held out)
    *torch_scenarios17.scenarios(S),  # the seventeenth: core faults at new sizes and positions, DTensor, persistent loader, cuda (held out)
    *torch_scenarios18.scenarios(S),  # the eighteenth: other launchers and output options at new sizes and positions (held out)
    *torch_scenarios19.scenarios(S),  # the nineteenth: wrapper launchers at new sizes and positions, new fault wordings (held out)
    *torch_scenarios20.scenarios(S),  # the twentieth: store timeouts at setup where some ranks never start (held out)
    *torch_scenarios21.scenarios(S),  # the twenty-first: restarts of one rank, a DCP save one rank cannot write, compute hangs (held out)
    *torch_scenarios22.scenarios(S),  # the twenty-second: a rank's child OOM-killed, a truncated checkpoint, lazy gloo, preemption (held out)
    *torch_scenarios23.scenarios(S),  # the twenty-third: an elastic late join, a restart's other rank and cause, hidden culprits (held out)
    *torch_scenarios24.scenarios(S),  # the twenty-fourth: the store host's agent SIGKILLed alone, bash -c, DCP load, compile, exit 143 (held out)
    *torch_scenarios25.scenarios(S),  # the twenty-fifth: stack dumps on SIGTERM, a user-written error file, --run-path, static beside c10d (held out)
    *torch_scenarios26.scenarios(S),  # the twenty-sixth: pipelining, a global-rank prefix template, SIGTRAP, a stale store port, a bad gloo interface (held out)
    *torch_scenarios27.scenarios(S),  # the twenty-seventh: users' launchers (elastic_launch, run.main), scale-down, exit hang, mixed versions (held out)
    *torch_scenarios28.scenarios(S),  # the twenty-eighth: heterogeneous local world sizes, a mid-collective SIGKILL, start-up controls (held out)
    *torch_scenarios29.scenarios(S),  # the twenty-ninth: --monitor-interval, event log, prefix flag, numa binding, async_save, monitored barrier (held out)
    *torch_scenarios30.scenarios(S),  # the thirtieth: today's wrappers: accelerate machine ranks and plugins, DeepSpeed hostfile slots, Lightning under torchrun, Ray Train 4 workers (held out)
    *torch_scenarios31.scenarios(S),  # the thirty-first: torchrun as training operators start it (PET_* only, pod shells, kubelet restarts) (held out)
    *torch_scenarios32.scenarios(S),  # the thirty-second: gloo's flight recorder dumped by the program, torchfrtrace's output (held out)
    *torch_scenarios33.scenarios(S),  # the thirty-third: DeviceMesh, tensor parallel, FSDP2, compile under DDP, DCP on gloo (held out)
    *torch_scenarios34.scenarios(S),  # the thirty-fourth: failures confined to a sub-group: 1F1B/interleaved pipelines, new_group, p2p (held out)
    *torch_scenarios36.scenarios(S),  # the thirty-sixth: confounders: the culprit not the first or loudest error (held out)
    *torch_scenarios38.scenarios(S),  # the thirty-eighth: the issue's own fault list, plain torchrun's default options, 2 x 4 (held out)
]


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
    ordered = _node_order(agents, marks)
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
            t0 = time.time()
            truth = record(sc, args.o, version)
            print(f"{sc['name']}: exit {truth['exit_codes']} in {time.time() - t0:.1f}s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
