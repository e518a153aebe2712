"""``ranks``: rank identity per controller, GPU of each rank, and the end-to-end path."""

from __future__ import annotations

from pathlib import Path

import pytest

from k8s_builders import at, container, context, iso, make_bundle, obj_row, pod, pytorch_labels, pytorchjob, running_status
from k10s_forensics.parsers import k8s_jobs, k8s_pods, ranks


def derive(tmp_path: Path, objects: list[dict], exec_rows=None, gpus=None, samples=None):
    ctx = context(make_bundle(tmp_path / "b", objects, exec_rows), tmp_path / "out")
    k8s_pods.derive(ctx)
    k8s_jobs.derive(ctx)
    if gpus:
        ctx.emit("gpus", gpus)
    if samples:
        ctx.emit("gpu_samples", samples)
    ranks.derive(ctx)
    return ctx


def by_rank(ctx) -> dict[tuple[str, int], dict]:
    return {(r["pod_uid"], r["rank"]): r for r in ctx.table("ranks").to_pylist()}


def issues(ctx) -> dict[tuple[str, str], int]:
    return {(r["source"], r["reason"]): r["count"] for r in ctx.issues.rows()}


def vis(pod_name: str, stdout: str, when, node: str = "gpu-node-1", **extra) -> dict:
    row = {"captured_at": when, "duration_ms": 20, "source": "visible-devices", "node": node, "namespace": "team-a", "pod": pod_name,
           "container": "pytorch", "command": "printenv NVIDIA_VISIBLE_DEVICES", "exit_code": 0, "stdout": stdout + "\n", "stderr": "", "error": None}
    row.update(extra)
    return row


def torch_pods(job: str, workers: int, gpus: int, master: bool = True, env: dict | None = None) -> list[dict]:
    out = []
    if master:
        out.append(pod(f"{job}-master-0", labels=pytorch_labels(job, "master", 0), containers=[container(gpus=gpus, env=env)], node="gpu-node-0"))
    for i in range(workers):
        out.append(pod(f"{job}-worker-{i}", labels=pytorch_labels(job, "worker", i), containers=[container(gpus=gpus, env=env)], node=f"gpu-node-{i + 1}"))
    return out


# ---- PyTorchJob ------------------------------------------------------------------------
def test_pytorchjob_master_workers_nproc8(tmp_path):
    objs = [obj_row(pytorchjob("llama", workers=3, gpus=8, nproc=8))] + [obj_row(p) for p in torch_pods("llama", 3, 8)]
    ctx = derive(tmp_path, objs)
    rows = ctx.table("ranks").to_pylist()
    assert sorted(r["rank"] for r in rows) == list(range(32))
    r19 = next(r for r in rows if r["rank"] == 19)
    assert (r19["pod"], r19["node_rank"], r19["local_rank"], r19["node"], r19["world_size"], r19["nproc_per_node"]) == (
        "llama-worker-1", 2, 3, "gpu-node-2", 32, 8)
    assert (r19["rank_source"], r19["replica_type"], r19["replica_index"], r19["gpu_uuid"], r19["gpu_source"]) == (
        "label:replica-index", "worker", 1, None, None)
    assert {r["node_rank"] for r in rows if r["pod"] == "llama-master-0"} == {0}


def test_pytorchjob_env_rank_wins_and_nproc1_without_master(tmp_path):
    elastic = pytorchjob("ddp", workers=4, gpus=1, master=False)
    pods = torch_pods("ddp", 4, 1, master=False)
    pods[2]["spec"]["containers"][0]["env"] = [{"name": "RANK", "value": "2"}, {"name": "WORLD_SIZE", "value": "4"}]
    ctx = derive(tmp_path, [obj_row(elastic)] + [obj_row(p) for p in pods])
    rows = {r["pod"]: r for r in ctx.table("ranks").to_pylist()}
    assert {p: (r["rank"], r["local_rank"]) for p, r in rows.items()} == {f"ddp-worker-{i}": (i, 0) for i in range(4)}
    assert rows["ddp-worker-2"]["rank_source"] == "env:RANK" and rows["ddp-worker-1"]["rank_source"] == "label:replica-index"
    assert {r["world_size"] for r in rows.values()} == {4}


def test_pytorchjob_without_job_object_needs_a_master_pod(tmp_path):
    with_master = [obj_row(p) for p in torch_pods("a", 2, 1, master=True)]
    no_master = [obj_row(p) for p in torch_pods("b", 2, 1, master=False)]
    ctx = derive(tmp_path, with_master + no_master)
    rows = ctx.table("ranks").to_pylist()
    assert sorted((r["job"], r["pod"], r["rank"]) for r in rows) == [("a", "a-master-0", 0), ("a", "a-worker-0", 1), ("a", "a-worker-1", 2)]
    assert issues(ctx) == {("ranks", "no rank identity (job object absent and no master pod seen: worker offset unknown)"): 2}


def test_pod_names_recycled_two_incarnations_get_ranks_and_their_own_gpu(tmp_path):
    job = pytorchjob("llama", workers=1, gpus=1, nproc=1)
    master = pod("llama-master-0", labels=pytorch_labels("llama", "master", 0), containers=[container(gpus=1)], node="gpu-node-0")
    old = pod("llama-worker-0", uid="uid-old", labels=pytorch_labels("llama", "worker", 0), containers=[container(gpus=1)], node="gpu-node-1")
    old["status"] = {"phase": "Failed", "startTime": iso(at(0)), "containerStatuses": [
        {"name": "pytorch", "restartCount": 0, "state": {"terminated": {"exitCode": 1, "reason": "Error", "finishedAt": iso(at(5))}}}]}
    new = pod("llama-worker-0", uid="uid-new", labels=pytorch_labels("llama", "worker", 0), containers=[container(gpus=1)], node="gpu-node-2",
              status=running_status(["pytorch"], at(6)))
    exec_rows = [vis("llama-worker-0", "GPU-old-1", at(2), node="gpu-node-1"), vis("llama-worker-0", "GPU-new-2", at(8), node="gpu-node-2"),
                 vis("llama-master-0", "GPU-m", at(2), node="gpu-node-0")]
    ctx = derive(tmp_path, [obj_row(job), obj_row(master), obj_row(old, at(4)), obj_row(new, at(9))], exec_rows)
    rows = by_rank(ctx)
    assert rows[("uid-old", 1)]["gpu_uuid"] == "GPU-old-1" and rows[("uid-old", 1)]["node"] == "gpu-node-1"
    assert rows[("uid-new", 1)]["gpu_uuid"] == "GPU-new-2" and rows[("uid-new", 1)]["gpu_source"] == "visible-devices"
    assert rows[("uid-old", 1)]["finished_at"] == at(5) and rows[("uid-new", 1)]["started_at"] == at(6)
    assert rows[("uid-llama-master-0", 0)]["gpu_uuid"] == "GPU-m"


# ---- visible-devices and dcgm GPU mapping -----------------------------------------------
GPUS = [
    {"node": "gpu-node-1", "gpu_uuid": "GPU-aaa", "pci_bus_id": "0000:1a:00.0", "product": "NVIDIA H100 80GB HBM3"},
    {"node": "gpu-node-1", "gpu_uuid": "GPU-bbb", "pci_bus_id": "0000:3b:00.0", "product": "NVIDIA H100 80GB HBM3"},
]


def two_gpu_job(name: str) -> list[dict]:
    job = pytorchjob(name, workers=1, gpus=2, nproc=2, master=False)
    worker = pod(f"{name}-worker-0", labels=pytorch_labels(name, "worker", 0), containers=[container(gpus=2)])
    return [obj_row(job), obj_row(worker)]


def test_visible_devices_multi_gpu_in_listed_order(tmp_path):
    # The UUID order of NVIDIA_VISIBLE_DEVICES is the local-rank order (the bundle contract).
    ctx = derive(tmp_path, two_gpu_job("j"), [vis("j-worker-0", "GPU-bbb,GPU-aaa", at(3))], gpus=GPUS)
    rows = sorted(ctx.table("ranks").to_pylist(), key=lambda r: r["rank"])
    assert [(r["local_rank"], r["gpu_uuid"], r["pci_bus_id"], r["gpu_source"]) for r in rows] == [
        (0, "GPU-bbb", "0000:3b:00.0", "visible-devices"), (1, "GPU-aaa", "0000:1a:00.0", "visible-devices")]


@pytest.mark.parametrize("stdout, gpus, extra", [
    ("all", GPUS, {}),                          # the pod sees every GPU: which is whose is unknown
    ("void", GPUS, {}),
    ("", GPUS, {}),
    ("0,1", GPUS, {}),                          # indices never join
    ("GPU-bbb,GPU-aaa", GPUS, {"exit_code": 1}),  # printenv failed
    ("GPU-aaa,GPU-bbb,GPU-ccc", GPUS, {}),        # three GPUs for two processes
])
def test_visible_devices_unknown_cases(tmp_path, stdout, gpus, extra):
    ctx = derive(tmp_path, two_gpu_job("j"), [vis("j-worker-0", stdout, at(3), **extra)], gpus=gpus)
    rows = ctx.table("ranks").to_pylist()
    assert len(rows) == 2 and all(r["gpu_uuid"] is None and r["gpu_source"] is None for r in rows)


def test_visible_devices_outside_the_incarnation_or_disagreeing_is_ignored(tmp_path):
    objs = two_gpu_job("j")
    late = [vis("j-worker-0", "GPU-aaa,GPU-bbb", at(3)), vis("j-worker-0", "GPU-aaa,GPU-ccc", at(4))]
    ctx = derive(tmp_path, objs, late, gpus=GPUS)
    assert all(r["gpu_uuid"] is None for r in ctx.table("ranks").to_pylist())
    other_node = [vis("j-worker-0", "GPU-aaa,GPU-bbb", at(3), node="gpu-node-9")]
    ctx = derive(tmp_path / "n", objs, other_node, gpus=GPUS)
    assert all(r["gpu_uuid"] is None for r in ctx.table("ranks").to_pylist())


def sample(when, pod_name: str | None, uuid: str, node: str = "gpu-node-1", pci: str | None = None) -> dict:
    return {"ts": when, "node": node, "gpu_uuid": uuid, "source": "dcgm-exporter", "util_pct": 90.0,
            "namespace": "team-a" if pod_name else None, "pod": pod_name, "pci_bus_id": pci}


def test_dcgm_pod_labels_single_gpu_per_incarnation(tmp_path):
    job = pytorchjob("d", workers=1, gpus=1, nproc=1, master=False)
    old = pod("d-worker-0", uid="u-old", labels=pytorch_labels("d", "worker", 0), containers=[container(gpus=1)])
    old["status"] = {"phase": "Failed", "startTime": iso(at(0)), "containerStatuses": [
        {"name": "pytorch", "state": {"terminated": {"exitCode": 137, "reason": "OOMKilled", "finishedAt": iso(at(5))}}}]}
    new = pod("d-worker-0", uid="u-new", labels=pytorch_labels("d", "worker", 0), containers=[container(gpus=1)], status=running_status(["pytorch"], at(6)))
    samples = [sample(at(m), "d-worker-0", "GPU-x") for m in (1, 2, 3)] + [sample(at(m), "d-worker-0", "GPU-y") for m in (7, 8)]
    samples += [sample(at(m), None, "GPU-x") for m in (7, 8)]  # GPU-x idle after the restart: no pod label
    ctx = derive(tmp_path, [obj_row(job), obj_row(old), obj_row(new)], samples=samples)
    rows = {r["pod_uid"]: r for r in ctx.table("ranks").to_pylist()}
    assert (rows["u-old"]["gpu_uuid"], rows["u-old"]["gpu_source"]) == ("GPU-x", "dcgm-pod-label")
    assert (rows["u-new"]["gpu_uuid"], rows["u-new"]["gpu_source"]) == ("GPU-y", "dcgm-pod-label")


def test_dcgm_pod_labels_several_gpus(tmp_path):
    samples = [sample(at(2), "j-worker-0", "GPU-bbb", pci="0000:3b:00.0"), sample(at(2), "j-worker-0", "GPU-aaa", pci="0000:1a:00.0")]
    ctx = derive(tmp_path, two_gpu_job("j"), samples=samples)  # PCI ids from the dcgm labels themselves
    assert [(r["local_rank"], r["gpu_uuid"]) for r in sorted(ctx.table("ranks").to_pylist(), key=lambda r: r["rank"])] == [(0, "GPU-aaa"), (1, "GPU-bbb")]
    no_pci = [dict(s, pci_bus_id=None) for s in samples]
    ctx = derive(tmp_path / "nopci", two_gpu_job("j"), samples=no_pci)
    assert all(r["gpu_uuid"] is None for r in ctx.table("ranks").to_pylist())
    only_one = samples[:1]  # a pod of two GPUs seen on one: the set is incomplete
    ctx = derive(tmp_path / "one", two_gpu_job("j"), samples=only_one)
    assert all(r["gpu_uuid"] is None for r in ctx.table("ranks").to_pylist())


# ---- launcher identity from env and command -------------------------------------------
def test_group_rank_and_torchrun_arguments(tmp_path):
    """GROUP_RANK (torchrun's own env) names the node rank; --nproc-per-node in the command the ranks per pod."""
    def worker(i: int, args: list[str], env: dict) -> dict:
        c = container(gpus=4, env=env, command=["torchrun"], args=args)
        return pod(f"ddp-worker-{i}", labels=pytorch_labels("ddp", "worker", i), containers=[c], node=f"gpu-node-{i}")
    objs = [obj_row(worker(0, ["--nproc-per-node", "4", "--nnodes=2", "train.py"], {"GROUP_RANK": 1})),
            obj_row(worker(1, ["--nproc_per_node=4", "--node_rank=0", "train.py"], {}))]
    ctx = derive(tmp_path, objs)
    rows = {(r["pod"], r["local_rank"]): r for r in ctx.table("ranks").to_pylist()}
    assert rows[("ddp-worker-0", 3)]["rank"] == 7 and rows[("ddp-worker-0", 3)]["rank_source"] == "env:GROUP_RANK"
    assert rows[("ddp-worker-1", 2)]["rank"] == 2 and rows[("ddp-worker-1", 2)]["rank_source"] == "arg:--node-rank"
    assert {r["nproc_per_node"] for r in rows.values()} == {4} and rows[("ddp-worker-0", 0)]["world_size"] == 8


def test_local_world_size_gives_nproc(tmp_path):
    objs = [obj_row(pytorchjob("lws", workers=1, gpus=2))] + [obj_row(p) for p in torch_pods("lws", 1, 2, env={"LOCAL_WORLD_SIZE": 2})]
    rows = derive(tmp_path, objs).table("ranks").to_pylist()
    assert sorted(r["rank"] for r in rows) == [0, 1, 2, 3] and {r["nproc_per_node"] for r in rows} == {2}


def test_launch_args_wordings():
    assert k8s_pods.launch_args({"command": ["python", "-m", "torch.distributed.run", "--nproc_per_node=8", "--node-rank", "3"]}) == {
        "ARG_NPROC_PER_NODE": "8", "ARG_NODE_RANK": "3"}
    assert k8s_pods.launch_args({"command": ["bash", "-c"], "args": ["torchrun --nnodes=4 --nproc-per-node=gpu train.py"]}) == {
        "ARG_NNODES": "4", "ARG_NPROC_PER_NODE": "gpu"}
    assert k8s_pods.launch_args({"command": ["python", "train.py", "--lr", "3e-4"]}) == {}
