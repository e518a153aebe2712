"""pod-disrupted: Kubernetes itself stops one pod of a running job (no fault of the training).

One of three, by seed: the scheduler preempts it for a higher-priority pod (DisruptionTarget PreemptionByScheduler, a
``Preempted`` event; torchrun gets SIGTERM and the pod is deleted, its logs gone with it); its kubelet evicts it for
memory pressure (status Evicted, DisruptionTarget TerminationByKubelet, an ``Evicted`` event; a hard eviction
SIGKILLs the container: exit 137, nothing logged); or a graceful node shutdown terminates it (status Terminated "Pod
was terminated in response to imminent node shutdown."; torchrun gets SIGTERM). The other ranks wait in the
collective: NCCL's remote error naming the stopped pod's address, or a watchdog timeout; their agents give up.
"""

from __future__ import annotations

from k10s_forensics.simulate import logs
from k10s_forensics.simulate.activity import Seg
from k10s_forensics.simulate.scenarios.cascade import cascade, give_up
from k10s_forensics.simulate.scenarios.common import FAR, SEC, forbid, job_info, steady_segments
from k10s_forensics.simulate.scenarios.crashes import train_until_fault
from k10s_forensics.simulate.training import agent_pid

SHUTDOWN = "Pod was terminated in response to imminent node shutdown."
FLAVOURS = ("preempted", "evicted", "node-shutdown")


def _evicted_message(sim, container: str) -> str:
    avail_ki = sim.rng.randrange(40000, 99000)
    return (f"The node was low on resource: memory. Threshold quantity: 100Mi, available: {avail_ki}Ki. Container {container} "
            f"was using {sim.rng.randrange(1610, 1700)}Gi, request is 1600Gi, has larger consumption of memory. ")


def _sigterm_lines(sim, style: str, t, pod) -> list[str]:
    """torchrun's agent on a SIGTERM'd container: it forwards the signal to its workers and dies of SignalException."""
    apid = agent_pid(pod, 0)
    out = [logs.agent(style, t, "W", apid, "torch/distributed/elastic/agent/server/api.py", 704,
                      "Received Signals.SIGTERM death signal, shutting down workers")]
    out += ["Traceback (most recent call last):", '  File "/usr/local/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
            f"torch.distributed.elastic.multiprocessing.api.SignalException: Process {apid} got signal: 15"]
    return out


def pod_disrupted(sim) -> None:
    pods, runs, t0, mode, last, t_last = train_until_fault(sim, 0.4)
    job = sim.job
    flavour = FLAVOURS[sim.rng.randrange(len(FLAVOURS))]
    t_x = t_last + SEC * sim.rng.uniform(0.2, 0.9)
    pod = pods[sim.rng.randrange(len(pods))]
    ranks = [pod.node_rank * job.nproc + local for local in range(job.nproc)]
    run = runs[pod.uid]
    if flavour == "preempted":
        msg = "default-scheduler: preempting to accommodate a higher priority pod"
        pod.stopped = (t_x, "PreemptionByScheduler", msg, None)
        sim.event(job.namespace, "Pod", pod.name, pod.uid, "Preempted", "Normal", f"Preempted by pod {sim.uid()} on node {pod.node.name}",
                  t_x, component="default-scheduler")
    elif flavour == "evicted":
        msg = _evicted_message(sim, job.container)
        pod.stopped = (t_x, "TerminationByKubelet", msg, "Evicted")
        sim.event("default", "Node", pod.node.name, pod.node.uid, "EvictionThresholdMet", "Warning", "Attempting to reclaim memory",
                  t_x - SEC * 2, component="kubelet", host=pod.node.name)
        sim.event(job.namespace, "Pod", pod.name, pod.uid, "Evicted", "Warning", msg, t_x, component="kubelet", host=pod.node.name)
    else:
        pod.stopped = (t_x, "TerminationByKubelet", SHUTDOWN, "Terminated")
    graceful = flavour != "evicted"
    if graceful:
        for line in _sigterm_lines(sim, job.torch_style, t_x + SEC * 0.05, pod):
            run.log(t_x + SEC * 0.05, line)
    run.finished = t_x + SEC * (sim.rng.uniform(1.5, 4.0) if graceful else 0.3)
    run.exit_code, run.reason = (1, "Error") if graceful else (137, "Error")
    if flavour == "preempted":
        pod.deleted = run.finished + SEC * 0.5
    sim.final_pods.add(pod.uid)
    per_step = sim.rng.randrange(20, 60)
    seq = last * per_step + sim.rng.randrange(3, per_step)
    down = cascade(sim, pods, runs, pod, 0, t_x, mode, seq, 0, None, 0, spare=set(ranks))
    start = min(r.started for r in runs.values())
    t_down = give_up(sim, pods, runs, down)[0] if down else t_x
    fb = sim.fb_train_mib
    sim.segs(list(pod.gpu_ids), steady_segments(sim, start, t0, t_x) + [Seg(t_x, sim.end + FAR, fb0_mib=0)])
    rest = [g for p in pods if p is not pod for g in p.gpu_ids]
    wait_end = max(t_down, t_x + SEC * 3)
    sim.segs(rest, steady_segments(sim, start, t0, t_x) + [Seg(t_x, wait_end, wait=1.0, fb0_mib=fb), Seg(wait_end, sim.end + FAR)])
    job_info(sim)
    # a one-pod job stopped whole is the job's stop: no rank singled out
    sim.expect("disruption", flavour, ranks if len(pods) > 1 else [], [pod], [])
    forbid(sim, "disruption", "nccl-hang", "rank-failure", "network", "crashloop")
    sim.truth["notes"] = (f"Kubernetes stopped {pod.name} (ranks {ranks[0]}-{ranks[-1]}) at {t_x.isoformat()}: {flavour}; the other "
                          f"ranks got {'ncclRemoteError' if mode == 'remote' else 'watchdog timeouts'} and their agents gave up.")
