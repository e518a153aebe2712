"""node-lost: a node dies whole in the middle of training (power, a kernel panic, a spot VM reclaimed without notice).

Its ranks print nothing more and never exit as far as the API server knows: their containers stay ``running`` as last
reported while the node's Ready condition turns Unknown (the kubelet stopped posting its status), and every log, exec
and scrape capture asks of that node times out. The other ranks wait in the collective: a watchdog time-out, or
NCCL's remote error naming the lost pod's address; their agents give up.
"""

from __future__ import annotations

from k10s_forensics.simulate.activity import Seg
from k10s_forensics.simulate.node_down import GRACE
from k10s_forensics.simulate.scenarios.cascade import cascade, give_up
from k10s_forensics.simulate.scenarios.common import FAR, SEC, forbid, job_info, steady_segments
from k10s_forensics.simulate.scenarios.crashes import train_until_fault


def node_lost(sim) -> None:
    pods, runs, t0, mode, last, t_last = train_until_fault(sim, 0.4)
    job = sim.job
    t_x = t_last + SEC * sim.rng.uniform(0.2, 0.9)
    node = pods[sim.rng.randrange(len(pods))].node
    sim.down[node.name] = t_x
    gone = [p for p in pods if p.node is node]  # one pod per node, or one per GPU (nproc 1)
    ranks = sorted(p.node_rank * job.nproc + local for p in gone for local in range(job.nproc))
    per_step = sim.rng.randrange(20, 60)
    seq = last * per_step + sim.rng.randrange(3, per_step)
    down = cascade(sim, pods, runs, gone[0], 0, t_x, mode, seq, 0, None, 0, spare=set(ranks))
    start = min(r.started for r in runs.values())
    t_down = give_up(sim, pods, runs, down)[0] if down else t_x
    marked = t_x + GRACE
    sim.event("default", "Node", node.name, node.uid, "NodeNotReady", "Normal", f"Node {node.name} status is now: NodeNotReady",
              marked, component="node-controller")
    for p in gone:
        sim.event(job.namespace, "Pod", p.name, p.uid, "NodeNotReady", "Warning", "Node is not ready", marked, component="node-controller")
    fb = sim.fb_train_mib
    sim.segs([g.gid for g in node.gpus], steady_segments(sim, start, t0, t_x) + [Seg(t_x, sim.end + FAR, present=False)])
    rest = [g for p in pods if p not in gone for g in p.gpu_ids]
    wait_end = max(t_down, t_x + SEC * 3)
    sim.segs(rest, steady_segments(sim, start, t0, t_x) + [Seg(t_x, wait_end, wait=1.0, fb0_mib=fb), Seg(wait_end, sim.end + FAR)])
    job_info(sim)
    sim.expect("gpu-health", "node-not-ready", ranks, gone, [])
    forbid(sim, "gpu-health", "nccl-hang", "rank-failure", "network")
    sim.truth["notes"] = (f"Node {node.name} died whole at {t_x.isoformat()} with {', '.join(p.name for p in gone)} (ranks "
                          f"{ranks[0]}-{ranks[-1]}); its Ready condition went Unknown {int(GRACE.total_seconds())} s later and "
                          f"nothing on it answers capture; the other ranks got "
                          f"{'ncclRemoteError' if mode == 'remote' else 'watchdog timeouts'}.")
