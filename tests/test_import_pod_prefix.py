"""``kubectl logs --prefix``: a whole job's output saved in one file, each line behind
``[pod/<pod>/<container>]``, split back into one log per pod at the node rank the training
operator's pod name gives (k10s_forensics/parsers/log_pod_prefix.py)."""

from __future__ import annotations

import datetime as dt

from click.testing import CliRunner

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.cli import cli
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_pod_prefix import job_name, node_ranks, split_prefixed

NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)
OOM = ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 79.15 GiB "
       "of which 2.10 GiB is free.")


def watchdog_timeout(rank: int) -> str:
    return (f"[rank{rank}]:[E1128 11:55:01.123456789 ProcessGroupNCCL.cpp:632] [Rank {rank}] Watchdog caught collective operation "
            "timeout: WorkNCCL(SeqNum=88, OpType=ALLREDUCE, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for "
            "600010 milliseconds before timing out.")


def _job_log(pods: dict[int, str], culprit: int, stamp: str = "") -> str:
    """Each pod one process (a PyTorchJob without torchrun): ``rank -> pod``; ``culprit`` OOMs, the rest time out."""
    lines = [f"[pod/{pod}/pytorch] {stamp}step 10 loss 2.31" for pod in pods.values()]
    p = pods[culprit]
    lines += [f"[pod/{p}/pytorch] {stamp}Traceback (most recent call last):",
              f'[pod/{p}/pytorch] {stamp}  File "/workspace/train.py", line 88, in <module>', f"[pod/{p}/pytorch] {stamp}{OOM}"]
    lines += [f"[pod/{pod}/pytorch] {stamp}{watchdog_timeout(rank)}" for rank, pod in pods.items() if rank != culprit]
    return "\n".join(lines) + "\n"


def _culprits(tmp_path, text: str, severities: tuple[str, ...] = ("critical",), **kw) -> tuple[list[tuple], object]:
    bundle, layout = import_logs([LogSource("job.log", text)], tmp_path / "b", now=NOW, **kw)
    found = [(f["rule"], f["ranks"], f["pods"], f["cause"]) for f in analyze(bundle)["findings"] if f["severity"] in severities]
    return found, layout


def test_a_pytorchjob_saved_with_prefix_names_the_pod_and_rank(tmp_path):
    pods = {0: "llama-master-0", 1: "llama-worker-0", 2: "llama-worker-1", 3: "llama-worker-2"}
    found, layout = _culprits(tmp_path, _job_log(pods, culprit=2))
    assert ("oom-cascade", [2], ["imported/llama-worker-1"], "cuda-oom") in found
    assert all(f[1] == [2] for f in found), found
    assert layout.job == "llama" and layout.nodes == 4 and "kubectl logs --prefix" in layout.hints["nodes"]


def test_a_pod_missing_from_the_log_leaves_its_node_empty(tmp_path):
    """worker-0 was not saved: worker-2 is still rank 3 (master 0, worker-i i + 1), not the third pod seen."""
    pods = {0: "llama-master-0", 2: "llama-worker-1", 3: "llama-worker-2"}
    found, layout = _culprits(tmp_path, _job_log(pods, culprit=3))
    assert ("oom-cascade", [3], ["imported/llama-worker-2"], "cuda-oom") in found
    assert layout.nodes == 4


def test_kubectl_timestamps_behind_the_prefix_give_the_clock(tmp_path):
    pods = {0: "bert-master-0", 1: "bert-worker-0"}
    bundle, _ = import_logs([LogSource("job.log", _job_log(pods, culprit=1, stamp="2026-11-28T11:54:40.123456789Z "))],
                            tmp_path / "b", now=NOW, namespace="ml")
    (oom,) = [f for f in analyze(bundle)["findings"] if f["rule"] == "oom-cascade"]
    assert oom["ranks"] == [1] and oom["started_at"].startswith("2026-11-28T11:54:40")


def test_an_mpijob_launcher_log_keeps_the_mpirun_tags(tmp_path):
    text = "\n".join([
        "[pod/pi-launcher/mpi-launcher] [1,0]<stdout>:step 1", "[pod/pi-launcher/mpi-launcher] [1,3]<stdout>:step 1",
        "[pod/pi-worker-1/mpi-worker] Server listening on 0.0.0.0 port 22.",
        "[pod/pi-launcher/mpi-launcher] mpirun noticed that process rank 3 with PID 4242 on node pi-worker-1 exited on signal 9 (Killed).",
    ]) + "\n"
    # at warning: no other rank's event is in the log (its prints are none), so whether the others were killed alike it
    # cannot say (docs/rules.md, "What a paste cannot prove")
    found, _ = _culprits(tmp_path, text, ("critical", "warning"), nproc_per_node=2)
    assert [f[1] for f in found if f[0] == "rank-failure"] == [[3]], found


def test_split_keeps_continuations_and_joins_a_pods_containers():
    text = "\n".join(["[pod/a-worker-1/pytorch] one", "  wrapped tail", "[pod/a-master-0/pytorch] zero",
                      "[pod/a-worker-1/sidecar] side", ""])
    pods = split_prefixed(text)
    assert [p.pod for p in pods] == ["a-master-0", "a-worker-1"]
    assert pods[1].lines == ["one", "  wrapped tail", "side"]
    assert node_ranks([p.pod for p in pods]) == [0, 2] and job_name([p.pod for p in pods]) == "a"


def test_what_is_not_a_prefixed_job_log_is_left_whole():
    assert split_prefixed("[rank0]: step 1\n[rank1]: step 1\n") is None
    assert split_prefixed("[pod/a-master-0/pytorch] only one pod\n[pod/a-master-0/pytorch] again\n") is None
    mostly_plain = "\n".join(["plain"] * 5 + ["[pod/a-master-0/c] x", "[pod/a-worker-0/c] y"])
    assert split_prefixed(mostly_plain) is None
    assert node_ranks(["ray-head-abc12", "ray-worker-x7k2p"]) == [0, 1] and job_name(["ray-head-abc12"]) is None
    assert node_ranks(["ft-node-1-0-x7k2p", "ft-node-0-1-abcde"]) == [0, 1]  # JobSet: in the order split_prefixed sorts them


def test_the_command_says_how_it_split_the_log(tmp_path):
    pods = {0: "llama-master-0", 1: "llama-worker-0"}
    (tmp_path / "job.log").write_text(_job_log(pods, culprit=1), encoding="utf-8")
    out = CliRunner().invoke(cli, ["import-logs", str(tmp_path / "job.log"), "-o", str(tmp_path / "b")])
    assert out.exit_code == 0, out.output
    assert "job imported/llama, 2 node(s) x 1 process(es)" in out.output
    assert "nodes from kubectl logs --prefix (2 pods: llama-master-0, llama-worker-0)" in out.output
