"""Real launcher recordings (tests/data/torch-runs) as multi-node launchers and platforms print or store
them (tests/launcher_shapes.py: srun --label, mpirun --tag-output / --timestamp-output / --output-filename,
pdsh / DeepSpeed, Ray Train, SageMaker streams, Azure ML per-process files, tar / zip of node logs,
GitHub Actions and Jenkins consoles; tests/job_shapes.py: Slurm per-task files, LSF, argo logs, JobSet pods,
W&B's output.log, a Jupyter notebook, a node's journal; and tests/session_shapes.py: a script typescript, tmux
capture-pane, kubectl logs -f stopped with ^C, a GitLab job log, a Datadog CSV, LeaderWorkerSet pods; tests/store_shapes.py:
kubelet's rotated pod log folder, Fluent Bit's and Vector's consoles, Elasticsearch, Splunk, aws logs tail, gcloud's YAML), through ``k10s import-logs`` with no option, must read as the run's
plain pod logs do: the culprit right, no rank named in a control (Ray and Azure ML's own launch keep no
torchrun agent's lines: there, never a wrong rank; W&B's output.log and a notebook keep one rank's or one node's
lines: never a wrong rank either). Plus each reader on a few lines of its format. The whole sweep:
``tests/tools/score_export_shapes.py --family launcher``, ``--family job``, ``--family session`` and ``--family store`` (each
job, session and store shape runs here on one run only)."""

from __future__ import annotations

import io
import tarfile
import zipfile

import pytest

import job_shapes
import launcher_shapes
import session_shapes
import store_shapes
from bundle_batch import Batched
from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.errors import InputError
from k10s_forensics.logimport import LogSource, import_logs, read_sources, route_lines
from k10s_forensics.parsers.log_agents import agent_layout, agent_nodes
from k10s_forensics.parsers.log_archive import members, process_files
from k10s_forensics.parsers.log_launcher_prefix import split_launcher
from torch_runs_kit import CAPTURED, load_runs, score, score_findings

RUNS = {r.id: r for r in load_runs()}
#: one pod, two nodes (an exception, a hang, a segfault seen only by its agent), three nodes, restarts, a control
SAMPLE = ["2.13.0/spawn-exception", "2.13.0/t4-accel-2node-hang-node1", "2.14.1/t3-faulthandler-segfault",
          "2.13.0/torchrun-3x2-exception-filter1", "2.13.0/torchrun-restarts-sigkill", "2.13.0/t3-common-mode-valueerror",
          "2.13.0/torchrun-sigbus"]


@pytest.fixture(scope="session")
def made():
    """Every shape of every sampled run, made once."""
    return {rid: {**launcher_shapes.shapes(RUNS[rid].stamped(), RUNS[rid].truth["nproc_per_node"]),
                  **job_shapes.shapes(RUNS[rid].stamped(), RUNS[rid].truth["nproc_per_node"]),
                  **session_shapes.shapes(RUNS[rid].stamped(), RUNS[rid].truth["nproc_per_node"]),
                  **store_shapes.shapes(RUNS[rid].stamped(), RUNS[rid].truth["nproc_per_node"])} for rid in SAMPLE}


def _keys() -> list[tuple[str, str]]:
    keys = []
    for i, shape in enumerate(launcher_shapes.SHAPES):
        for j in range(2):
            rid = SAMPLE[(i + 3 * j) % len(SAMPLE)]
            keys.append((shape, rid))
    for i, shape in enumerate(job_shapes.SHAPES):  # one run each: the sweep is the scoring tool's (--family job)
        rid = SAMPLE[(i + 1) % len(SAMPLE)]
        keys.append((shape, rid))
    for i, shape in enumerate(session_shapes.SHAPES):  # one run each (--family session)
        rid = SAMPLE[(i + 2) % len(SAMPLE)]
        keys.append((shape, rid))
    for i, shape in enumerate(store_shapes.SHAPES):  # one run each (--family store)
        rid = SAMPLE[(i + 3) % len(SAMPLE)]
        keys.append((shape, rid))
    return keys


#: read bundle_batch.PER_ANALYSIS per analysis (tests/bundle_batch.py)
BATCHED = Batched("launcher-shapes", _keys())


def _sources(files, tmp_path):
    out = []
    for rel, data in files:
        p = tmp_path / "in" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data if isinstance(data, bytes) else data.encode())
        out += read_sources(str(p))
    return out


#: launchers that start the processes themselves (Ray, Azure ML): the torchrun agent's report of how a process ended
#: (its exit status, its failure table) is not in what they keep, so only its own words can name it; a notebook keeps
#: the lines of the node it ran on
WITHOUT_AGENT = {"ray-train", "azureml-process-files", "jupyter-notebook"}
#: W&B's output.log holds rank 0's console alone: it reads as a one-process job, so a failure every rank shared (a
#: common-mode control) is rank 0's there; what it may never do is name a rank whose lines it does not hold
ONE_PROCESS = {"wandb-output-log"}


@pytest.mark.slow
@pytest.mark.parametrize("shape,run_id", [pytest.param(*k, id=f"{k[0]}-{k[1]}", marks=BATCHED.mark(k)) for k in _keys()])
def test_a_recorded_run_reads_the_same_in_each_launcher_shape(tmp_path_factory, made, shape, run_id):
    run = RUNS[run_id]

    def make(key, folder):
        return import_logs(_sources(made[key[1]][key[0]], folder), folder / "b", now=CAPTURED, derive=False)[0]

    findings = BATCHED.findings((shape, run_id), tmp_path_factory, make)
    if shape in ONE_PROCESS:
        assert all(f["ranks"] == [0] for f in naming_findings(findings))
        return
    if shape in WITHOUT_AGENT:  # never a wrong rank, never one in a control
        named = naming_findings(findings)
        want = set(run.truth["culprit_ranks"])
        assert all(want and set(f["ranks"]) & want for f in named), named
        return
    why = score_findings(run, findings)
    assert why is None, why


def test_the_generator_is_deterministic():
    run = RUNS["2.13.0/t3-record-exception"]
    assert launcher_shapes.shapes(run.stamped(), 2) == launcher_shapes.shapes(run.stamped(), 2)
    assert set(launcher_shapes.shapes(run.stamped(), 2)) == set(launcher_shapes.SHAPES)


def test_srun_label_of_one_task_per_node_is_split_by_node():
    """``srun -l --ntasks-per-node=1 torchrun …``: the label is the node's task, torchrun's tags behind it name the rank."""
    text = "0: [default1]:[rank1]: step 1\n1: [default1]:[rank3]: KeyError: 'x'\n1: [default0]:[rank2]: step 1\n0: [default0]:[rank0]: step 1\n"
    logs, how = split_launcher("slurm-1.out", text)
    assert how.startswith("srun --label: one node per task (2")
    assert [t.split("\n") for _, t in logs] == [["[default1]:[rank1]: step 1", "[default0]:[rank0]: step 1"],
                                                ["[default1]:[rank3]: KeyError: 'x'", "[default0]:[rank2]: step 1"]]


def test_srun_label_of_one_task_per_process_stays_the_rank():
    """``srun -n 4 python train.py``: each task is a process; its label is its rank (the log is not split)."""
    text = "".join(f"{r}: step {s}\n" for s in range(3) for r in range(4)) + "2: KeyError: 'x'\n"
    assert split_launcher("slurm-1.out", text) is None


def test_mpirun_tags_with_timestamps_order_nodes_by_their_ranks():
    """``mpirun --tag-output --timestamp-output`` of a launcher per node: node order from the ranks inside, not the tags."""
    t = "Thu May  7 10:39:20 2020"
    text = (f"{t}[1,0]<stderr>:[rank2]: step 1\n{t}[1,0]<stderr>:[rank3]: step 1\n"
            f"{t}[1,1]<stderr>:[rank0]: step 1\n{t}[1,1]<stderr>:[rank1]: boom\n")
    logs, how = split_launcher("mpirun.log", text)
    assert how.startswith("mpirun --tag-output") and logs[0][1] == "[rank0]: step 1\n[rank1]: boom"


def test_pdsh_one_host_is_taken_off_and_plain_text_is_not_pdsh():
    logs, how = split_launcher("ds.log", "worker-1: [rank0]: step 1\nworker-1: [rank1]: step 1\n")
    assert logs == [("ds.log", "[rank0]: step 1\n[rank1]: step 1")] and "one task (worker-1)" in how
    assert split_launcher("x.log", "INFO: starting\nstep 1\nstep 2\nWARNING: slow\n") is None


_AGENT = "E1128 12:05:45.777000 {pid} .venv/lib/python3.11/site-packages/torch/distributed/elastic/multiprocessing/api.py:1002] "


def test_two_agents_in_one_log_are_two_nodes_and_their_lines_go_home():
    """An interleaved paste of two torchrun agents (no pod per line): the agents' pids and their failure table say
    which node each is; the table proves several nodes (a global rank that is not its local rank)."""
    lines = ["[default1]:[rank1]: step 1", "[default1]:[rank3]: step 1",
             _AGENT.format(pid=18710) + "failed (exitcode: -7) local_rank: 0 (pid: 18981) of binary: python",
             "Root Cause (first observed failure):", "  rank      : 2 (local_rank: 0)", "  exitcode  : -7 (pid: 18981)  (SIGBUS)",
             "[default0]:[rank0]: RuntimeError: Connection reset by peer",
             _AGENT.format(pid=18665) + "Sending process 18982 closing signal SIGTERM"]
    assert agent_layout(lines, 4) == (2, 2)
    ranks = [1, 3, None, None, None, None, 0, None]
    assert agent_nodes(lines, 2, ranks) == {"18710": 1, "18665": 0}
    assert route_lines(lines, 2, 2, ranks) == [[0, 6, 7], [1, 2, 3, 4, 5]]
    rerun = [_AGENT.format(pid=p) + "failed (exitcode: 1) local_rank: 0 (pid: 7)" for p in (1, 2)] + ["  rank      : 0 (local_rank: 0)"]
    assert agent_layout(rerun, 2) is None  # two agents one after the other on one node: every rank is its local rank


def _tar(files: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        link = tarfile.TarInfo("logs/link.log")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        tar.addfile(link)
    return buf.getvalue()


def test_archives_are_read_in_memory_in_natural_order(tmp_path):
    files = {"logs/node-10.log": b"ten\n", "logs/node-2.log": b"two\n", "__MACOSX/logs/._node-2.log": b"x\n", "logs/core": b"\x00\x01"}
    p = tmp_path / "logs.tar.gz"
    p.write_bytes(_tar(files))
    assert [(s.name, s.text) for s in read_sources(str(p))] == [("logs.tar.gz/logs/node-2.log", "two\n"), ("logs.tar.gz/logs/node-10.log", "ten\n")]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("a/node-1.log", "one\n")
        z.writestr("a/", "")
    assert members("logs.zip", buf.getvalue(), 1 << 20) == [("a/node-1.log", "one\n")]
    with pytest.raises(InputError, match="not a readable archive"):
        members("logs.zip", buf.getvalue()[:40], 1 << 20)
    with pytest.raises(InputError, match="more than 0 MiB"):
        members("logs.zip", buf.getvalue(), 1)


def test_per_process_files_are_one_process_per_node_and_node_files_are_not():
    """Azure ML's ``std_log_process_<N>.txt`` (one per process): each a node of one process at its rank, an absent
    rank's empty, no line changed; files that hold a launcher per node (an agent's line, several ranks, a tee's local
    tag) stay one node each in the order given; the launcher's own ``std_log.txt`` is not read."""
    logs, how = process_files([("user_logs/std_log_process_2.txt", "step 1\nKeyError: 'x'\n"), ("user_logs/std_log_process_0.txt", "step 1\n"),
                               ("user_logs/std_log.txt", "Traceback (most recent call last):\n")])
    assert logs == [("process 0", "step 1"), ("process 1", ""), ("process 2", "step 1\nKeyError: 'x'")]
    assert how.startswith("one file per process (2 processes: 0, 2)") and "std_log.txt not read" in how
    node = _AGENT.format(pid=5) + "failed (exitcode: 1) local_rank: 1 (pid: 9)\n"
    assert process_files([("out/1/rank.0/stderr", "[rank0]: a\n[rank1]: b\n"), ("out/1/rank.1/stderr", node)]) is None
    assert process_files([("out/1/rank.0/stderr", "[default1]:a\n"), ("out/1/rank.1/stderr", "b\n")]) is None
    assert process_files([("node0.log", "a\n"), ("node1.log", "b\n")]) is None


def test_an_azure_ml_folder_imports_as_one_job(tmp_path):
    sources = [LogSource(f"std_log_process_{r}.txt", f"rank {r} step 1\n" + ("Traceback (most recent call last):\nKeyError: 'x'\n" if r == 3 else ""))
               for r in (0, 1, 10, 3, 2)]  # a shell's glob order
    bundle, layout = import_logs(sources, tmp_path / "b", now=CAPTURED)
    assert (layout.nproc_per_node, layout.nodes, layout.world_size) == (1, 11, 11) and layout.hints["nproc_per_node"] == "one file per process"
    named = naming_findings(analyze(bundle)["findings"])
    assert named and all(f["ranks"] == [3] for f in named), named


def test_launcher_tags_are_taken_off_before_a_terminal_cut_is_looked_for(tmp_path):
    """pdsh's ``worker-2: `` before every line hides that the next line starts a record of its own: read with the tags
    on, lines of one width were joined as a terminal's cut (a teardown hid the culprit's exception). Split first."""
    run = RUNS["2.13.0/t3-record-valueerror-2x3-tee"]
    (_, text), = launcher_shapes.shapes(run.stamped(), 3)["pdsh-deepspeed"]
    bundle, layout = import_logs([LogSource("deepspeed.log", text)], tmp_path / "b", now=CAPTURED)
    assert not layout.repairs and layout.hints["nodes"].startswith("pdsh: one node per task (2")
    assert score(run, bundle) is None
    quoted = "".join(f"> {line}\n" for line in text.splitlines())  # a quoted paste: the tags appear after the repair
    _, layout = import_logs([LogSource("deepspeed.log", quoted)], tmp_path / "q", now=CAPTURED)
    assert layout.hints["nodes"].startswith("pdsh: one node per task (2")


@pytest.mark.parametrize("run_id,shape", [("2.13.0/torchrun-sigbus", "logcli-raw"), ("2.14.1/t3-faulthandler-segfault", "grafana-txt"),
                                          ("2.13.0/t8-trun-bad-env-rank3", "logcli-raw")])
def test_pod_less_exports_of_several_agents_read_like_the_pod_logs(tmp_path, run_id, shape):
    """Loki ``logcli --output raw`` and Grafana's text download name no pod per line: two torchrun agents' lines in one
    log. Read as one node holding every rank, an agent's ``local_rank: 0`` was rank 0 (two ranks 'crashed the same
    way': nobody named), a segfaulting process's ``[default0]:`` lines landed on the other node, a failure table with
    no rank tag at all left one node (paste11's misses)."""
    import export_shapes

    (name, text), = export_shapes.shapes(RUNS[run_id].stamped())[shape]
    bundle, layout = import_logs([LogSource(name, text)], tmp_path / "b", now=CAPTURED)
    assert layout.nodes == 2
    assert score(RUNS[run_id], bundle) is None


def test_a_failure_table_goes_to_the_node_its_ranks_name():
    """Two agents interleaved with no time and no node per line (``blaunch torchrun`` under LSF, ``srun`` without
    ``--label``): an agent's untagged ``ChildFailedError`` and its table came right after another node's tagged
    lines and stayed with them (its rank 0's ``-15`` then read as a SIGTERM no launcher sent). The table's ranks
    name its node (every entry one node's; a table naming two nodes' ranks is left where it was)."""
    rule = "=" * 60
    lines = ["[rank3]: RuntimeError: Connection closed by peer", "Traceback (most recent call last):",
             "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", rule, "Failures:",
             "  rank      : 1 (local_rank: 1)", "  exitcode  : 1 (pid: 29315)", "Root Cause (first observed failure):",
             "  rank      : 0 (local_rank: 0)", "  exitcode  : -15 (pid: 29313)", rule, "[W1129 TCPStore.cpp:138] recv failed"]
    ranks = [3] + [None] * (len(lines) - 1)
    assert route_lines(lines, 2, 2, ranks) == [list(range(1, 12)), [0]]  # the line after the rule: with the line before it
    assert route_lines(lines[:1] + ["  rank      : 3 (local_rank: 1)", "  rank      : 0 (local_rank: 0)"], 2, 2, [3, None, None]) == [[], [0, 1, 2]]


def test_tags_of_hosts_without_rank_tags_are_ordered_by_their_failure_tables():
    """``argo logs`` (``<pod>: <line>``, pods ``<workflow>-<template>-<hash>``: the hash in no node order) of workers
    that print no rank tag: each pod's torchrun failure table names its node's ranks, so its node."""
    pods = ("train-x7k2p-node-2423956745", "train-x7k2p-node-5627896626")
    text = "".join(f"{pods[n]}: {line}\n" for n, line in [
        (0, "step 1"), (1, "step 1"), (0, "KeyError: 'x'"), (0, "  rank      : 3 (local_rank: 1)"), (0, "  exitcode  : 1 (pid: 7)"),
        (1, "  rank      : 0 (local_rank: 0)"), (1, "  exitcode  : -15 (pid: 5)")])
    logs, how = split_launcher("argo.txt", text)
    assert how == f"pdsh: one node per task (2: {pods[1]}, {pods[0]})" and logs[1][1].startswith("step 1\nKeyError")


def test_ray_train_worker_lines_take_the_rank_the_worker_group_gives(tmp_path):
    """Ray Train starts its workers itself and lists them once (``- (ip=…, pid=P) world_rank=R, local_rank=L,
    node_rank=N``); a worker's line carries only its pid (``(RayTrainWorker pid=P, ip=…)``). Read without the list,
    the job was one node of the local ranks seen (rank 2 out of range: nobody named); with it, each worker's lines
    are its rank's, on its node."""
    drv = "(TorchTrainer pid=3900, ip=10.0.0.2)"
    rows = [f"{drv} Started distributed worker processes: "]
    ip = ("10.0.0.2", "10.0.0.13")
    rows += [f"{drv} - (ip={ip[r // 2]}, pid={5000 + r * 7}) world_rank={r}, local_rank={r % 2}, node_rank={r // 2}" for r in range(4)]
    rows += [f"(RayTrainWorker pid={5000 + r * 7}, ip={ip[r // 2]}) step 1 loss {1 / (r + 1):.4f}" for r in range(4)]
    rows += ["(RayTrainWorker pid=5014, ip=10.0.0.13) Traceback (most recent call last):",
             '(RayTrainWorker pid=5014, ip=10.0.0.13)   File "train.py", line 9, in <module>',
             "(RayTrainWorker pid=5014, ip=10.0.0.13) KeyError: 'labels'"]
    source = LogSource("ray.log", "\n".join(rows) + "\n")
    assert source.line_ranks[1:9] == [0, 1, 2, 3, 0, 1, 2, 3]
    bundle, layout = import_logs([source], tmp_path / "b", now=CAPTURED)
    assert (layout.nproc_per_node, layout.nodes, layout.world_size) == (2, 2, 4)
    named = naming_findings(analyze(bundle)["findings"])
    assert named and all(f["ranks"] == [2] for f in named), named
