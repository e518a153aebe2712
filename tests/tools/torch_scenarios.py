"""The recorded runs' scenarios (tests/tools/record_torch.py records them): the first two sets here, each later set
from its own ``torch_scenarios<N>.py`` (its ``scenarios(S)``). A scenario is a dict ``S`` builds: the job's launcher and
layout, the injected fault and the rank that gets it, the truth (culprit ranks and cause; none: a control)."""

from __future__ import annotations

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
import torch_scenarios37
import torch_scenarios38
import torch_scenarios40
import torch_scenarios41
import torch_scenarios42
import torch_scenarios43
import torch_scenarios44
import torch_scenarios45
import torch_scenarios46
import torch_scenarios47
import torch_scenarios48
import torch_scenarios49
import torch_scenarios50
import torch_scenarios51
import torch_scenarios52
import torch_scenarios53
import torch_scenarios54
import torch_scenarios55
import torch_scenarios56
import torch_scenarios57
import torch_scenarios58
import torch_scenarios59
import torch_scenarios60
import torch_scenarios61
import torch_scenarios62
import torch_scenarios63
import torch_scenarios64
import torch_scenarios65
import torch_scenarios66
import torch_scenarios67
import torch_scenarios68
import torch_scenarios69
import torch_scenarios70
import torch_scenarios71
import torch_scenarios72
import torch_scenarios73
import torch_scenarios74
import torch_scenarios75
import torch_scenarios76
import torch_scenarios77
import torch_scenarios78
import torch_scenarios79
import torch_scenarios80

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
    *torch_scenarios37.scenarios(S),  # the thirty-seventh: layouts beyond 2 x 2: local, global and node rank and agent order apart (held out)
    *torch_scenarios38.scenarios(S),  # the thirty-eighth: the issue's own fault list, plain torchrun's default options, 2 x 4 (held out)
    *torch_scenarios40.scenarios(S),  # the fortieth: the legacy launcher, mp.spawn and torchrun --standalone around one program (held out)
    *torch_scenarios41.scenarios(S),  # the forty-first: a user's training script failing outside the collectives (data, NaN exit, checkpoint) (held out)
    *torch_scenarios42.scenarios(S),  # the forty-second: the fault list crossed with torchrun's output options, 2 x 3 (held out)
    *torch_scenarios43.scenarios(S),  # the forty-third: the bugs of users' own DDP loops (short shard, anomaly NaN, unused branch, ...) (held out)
    *torch_scenarios44.scenarios(S),  # the forty-fourth: collectives beyond DDP's gradients (object, p2p, scatter, DCP) (held out)
    *torch_scenarios45.scenarios(S),  # the forty-fifth: rich, loguru, JSON records and hydra as the scripts' error renderers (held out)
    *torch_scenarios46.scenarios(S),  # the forty-sixth: today's distributed APIs (fully_shard, DTensor 2-D mesh, DCP, new_subgroups) (held out)
    *torch_scenarios47.scenarios(S),  # the forty-seventh: scripts' hang and crash diagnostics (faulthandler, monitored_barrier, threads, atexit) (held out)
    *torch_scenarios48.scenarios(S),  # the forty-eighth: checkpoint and file I/O faults (DCP save/load/async_save, torch.save shards, races) (held out)
    *torch_scenarios49.scenarios(S),  # the forty-ninth: several ranks failing alike against every rank failing alike (held out)
    *torch_scenarios50.scenarios(S),  # the fiftieth: one node's environment differing from the other's against every node's (held out)
    *torch_scenarios51.scenarios(S),  # the fifty-first: ranks stalled or slowed from outside the process (SIGSTOP, freezer, hung reads, locks, CPU) (held out)
    *torch_scenarios52.scenarios(S),  # the fifty-second: jobs colliding with other jobs or their own leftovers (ports, locks, half-written checkpoints, stale files) (held out)
    *torch_scenarios53.scenarios(S),  # the fifty-third: numerical faults: NaN/Inf on one rank against every rank diverging alike (held out)
    *torch_scenarios54.scenarios(S),  # the fifty-fourth: red herrings beside the real fault (handled tracebacks, retried errors, warnings) (held out)
    *torch_scenarios55.scenarios(S),  # the fifty-fifth: the fault deep in a long, noisy log (bars with \r, repeated warnings, health lines; faults at step 150-380) (held out)
    *torch_scenarios56.scenarios(S),  # the fifty-sixth: the fault list re-drawn at random (layout, rank, step, output option by random.Random(56)) (held out)
    *torch_scenarios57.scenarios(S),  # the fifty-seventh: the fault list re-drawn at random across launchers (legacy launch, mp.spawn per node, torchrun --standalone, torchrun static; rank, step by random.Random(57)) (held out)
    *torch_scenarios58.scenarios(S),  # the fifty-eighth: the fault list re-drawn at random with the program's own log conventions drawn too (print without rank, logging with/without rank, rank 0 only, DeepSpeed-like, Lightning-like; random.Random(58)) (held out)
    *torch_scenarios59.scenarios(S),  # the fifty-ninth: the program handles its own failure at its top level (logger.exception / logger.error / traceback.print_exc / @record / uncaught) in a drawn logging convention, catchable faults drawn at random (random.Random(59)) (held out)
    *torch_scenarios60.scenarios(S),  # the sixtieth: every dimension drawn at once (fault, launcher, layout, rank, step, output option, logging convention, failure handling; random.Random(60)) (held out)
    *torch_scenarios61.scenarios(S),  # the sixty-first: every dimension drawn at once plus the fault's phase and the DataLoader's workers, a loader worker killed (random.Random(61)) (held out)
    *torch_scenarios62.scenarios(S),  # the sixty-second: t61's joint draw with a new seed (random.Random(62)) (held out)
    *torch_scenarios63.scenarios(S),  # the sixty-third: t61's joint draw with a new seed (random.Random(63)) (held out)
    *torch_scenarios64.scenarios(S),  # the sixty-fourth: t61's joint draw with a new seed (random.Random(64)) (held out)
    *torch_scenarios65.scenarios(S),  # the sixty-fifth: t61's joint draw with a new seed (random.Random(65)) (held out)
    *torch_scenarios66.scenarios(S),  # the sixty-sixth: t61's joint draw with a new seed (random.Random(66)) (held out)
    *torch_scenarios67.scenarios(S),  # the sixty-seventh: t61's joint draw with a new seed (random.Random(67)) (held out)
    *torch_scenarios68.scenarios(S),  # the sixty-eighth: t61's joint draw with a new seed (random.Random(68)) (held out)
    *torch_scenarios69.scenarios(S),  # the sixty-ninth: t61's joint draw with a new seed (random.Random(69)) (held out)
    *torch_scenarios70.scenarios(S),  # the seventieth: t61's joint draw with a new seed (random.Random(70)) (held out)
    *torch_scenarios71.scenarios(S),  # the seventy-first: t61's joint draw with a new seed (random.Random(71)) (held out)
    *torch_scenarios72.scenarios(S),  # the seventy-second: t61's joint draw with a new seed (random.Random(72)) (held out)
    *torch_scenarios73.scenarios(S),  # the seventy-third: t61's joint draw with a new seed (random.Random(73)) (held out)
    *torch_scenarios74.scenarios(S),  # the seventy-fourth: t61's joint draw with a new seed (random.Random(74)) (held out)
    *torch_scenarios75.scenarios(S),  # the seventy-fifth: t61's joint draw with a new seed (random.Random(75)) (held out)
    *torch_scenarios76.scenarios(S),  # the seventy-sixth: t61's joint draw with a new seed (random.Random(76)) (held out)
    *torch_scenarios77.scenarios(S),  # the seventy-seventh: t61's joint draw with a new seed (random.Random(77)) (held out)
    *torch_scenarios78.scenarios(S),  # the seventy-eighth: t61's joint draw with a new seed (random.Random(78)) (held out)
    *torch_scenarios79.scenarios(S),  # the seventy-ninth: t61's joint draw with a new seed (random.Random(79)) (held out)
    *torch_scenarios80.scenarios(S),  # the eightieth: t61's joint draw with a new seed (random.Random(80)) (held out)
]
