"""A log that names a high rank but not how the job was laid out (k10s_forensics/parsers/log_unplaced.py): imported
with the ranks it names, each a pod of its own on an unknown node, so the analysis names the rank a line names and
none it does not; a log (or an option) that gives the layout is read as before (real incidents batch 57: Cray
MPICH's ``MPICH ERROR [Rank 1534] …`` was refused with a question)."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.store.bundle import Bundle

NOW = dt.datetime(2026, 11, 30, 3, 0, tzinfo=dt.timezone.utc)
MPICH = ("MPICH ERROR [Rank 2050] [job id 7.0] [Mon Nov 30 02:58:48 2026] [unknown] [nid000042] - Abort(1) "
         "(rank 2050 in comm 0): Fatal error in PMPI_Isend: Other MPI error, error stack:\n"
         "PMPI_Isend(160)......: MPI_Isend(buf=0x1, count=3, MPI_DOUBLE_PRECISION, dest=7, tag=4, comm=0x84000004) failed\n"
         "aborting job:\n")
TAGGED = ("[rank2050]: Traceback (most recent call last):\n[rank2050]:   File \"train.py\", line 88, in <module>\n"
          "[rank2050]:     loss.backward()\n[rank2050]: RuntimeError: CUDA error: an illegal memory access was encountered\n")
TRACEBACK = ("Traceback (most recent call last):\n  File \"train.py\", line 88, in <module>\n    loss.backward()\n"
             "RuntimeError: CUDA error: an illegal memory access was encountered\n")


def _ranks(bundle: Bundle) -> list[tuple]:
    rows = pq.read_table(f"{bundle.path}/tables/ranks.parquet").to_pylist()
    return sorted((r["rank"], r["pod"], r["node"], r["rank_source"], r["rank_confidence"]) for r in rows)


def _named(bundle: Bundle) -> list[tuple]:
    return [(f["rule"], f["cause"], f["ranks"]) for f in analyze(bundle)["findings"] if f["severity"] in ("critical", "warning")]


def _import_cli(tmp_path):
    """``k10s import-logs log.txt -o b`` in ``tmp_path`` with no layout option: its output and the manifest's layout."""
    done = subprocess.run([sys.executable, "-m", "k10s_forensics", "import-logs", "log.txt", "-o", "b"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((tmp_path / "b" / "manifest.json").read_text())
    return done, next(c for c in manifest["collectors"] if c["name"] == "logs")["layout"]


def test_cli_imports_a_high_rank_without_layout_and_says_so(tmp_path):
    (tmp_path / "log.txt").write_text(TAGGED)
    done, layout = _import_cli(tmp_path)
    assert "rank(s) 2050 named (a pod each, node unknown)" in done.stdout
    assert "not how many processes each node ran" in done.stdout and "pass --nproc-per-node" in done.stdout
    assert "unknown" in layout["nodes"] and "pass --nproc-per-node" in layout["placement"]
    bundle = Bundle.open(tmp_path / "b")
    assert _ranks(bundle) == [(2050, "imported-worker-2049", None, "named-ranks", "medium")]
    failure = next(f for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure")
    # a kernel's fault in a paste of that rank's lines only: named at warning (docs/rules.md, "What a paste cannot prove")
    assert (failure["severity"], failure["cause"], failure["ranks"], failure["nodes"]) == ("warning", "cuda-error", [2050], [])


def test_cli_places_a_rank_whose_own_line_names_its_host_and_says_how(tmp_path):
    """Cray MPICH's ``MPICH ERROR [Rank 2050] … [nid000042] - Abort`` names its host; rank 1500, named only by a
    tag, stays on no node."""
    (tmp_path / "log.txt").write_text("[rank1500]: step 1\n" + MPICH)
    done, layout = _import_cli(tmp_path)
    assert "rank(s) 1500, 2050 named (a pod each, 1 on the node its own line names, the rest node unknown)" in done.stdout
    assert "(2050 on nid000042)" in done.stdout and "pass --nproc-per-node" in done.stdout
    assert layout["nodes"] == "the host each rank's own line names (2050 on nid000042); the other pods on no node"
    bundle = Bundle.open(tmp_path / "b")
    assert _ranks(bundle) == [(1500, "imported-worker-1499", None, "named-ranks", "medium"),
                              (2050, "imported-worker-2049", "nid000042", "named-ranks", "medium")]
    failure = next(f for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure")
    assert (failure["cause"], failure["ranks"], failure["nodes"]) == ("nccl-error", [2050], ["nid000042"])
    assert "node_unknown" not in failure


@pytest.mark.parametrize("text, hosts", [
    pytest.param("[rank2050]: step 1\nmpirun noticed that process rank 2050 with PID 4242 on node gpu-a17 exited on "
                 "signal 11 (Segmentation fault).\n", {2050: "gpu-a17"}, id="mpirun-noticed"),
    pytest.param("2050: step 1\n2051: step 1\nsrun: error: nid001234: task 2050: Exited with exit code 1\n",
                 {2050: "nid001234", 2051: None}, id="srun-task"),
    pytest.param("[1,2050]<stderr>:[gpu-b3:4242] *** Process received signal ***\n[1,2050]<stderr>:[gpu-b3:4242] Signal: "
                 "Segmentation fault (11)\n[1,2051]<stderr>:hello\n", {2050: "gpu-b3", 2051: None}, id="ompi-handler-tagged"),
    # a host on a line that names no rank places no one: Open MPI's untagged handler, UCX's host:pid:tid, srun's task range
    pytest.param("[rank2050]: step 1\n[gpu-a17:4242] *** Process received signal ***\n[gpu-a17:4242] Signal: Segmentation "
                 "fault (11)\n[1613401128.440695] [nid001192:11838:0] ib_md.c:325 UCX ERROR ibv_reg_mr failed\n",
                 {2050: None}, id="host-without-rank"),
    pytest.param("2050: step 1\n2051: step 1\nsrun: error: nid001235: tasks 2050-2051: Killed\n", {2050: None, 2051: None},
                 id="srun-task-range"),
    # two lines put the rank on two hosts: the log contradicts itself, the rank stays on no node
    pytest.param("[rank2050]: step\nmpirun noticed that process rank 2050 with PID 1 on node a1 exited on signal 9 (Killed).\n"
                 "mpirun noticed that process rank 2050 with PID 2 on node b1 exited on signal 9 (Killed).\n", {2050: None},
                 id="two-hosts"),
])
def test_a_rank_is_on_the_host_its_own_line_names(tmp_path, text, hosts):
    bundle, layout = import_logs([LogSource("log.txt", text)], tmp_path / "b", now=NOW)
    assert layout.placed == sorted(hosts)
    assert {r[0]: r[2] for r in _ranks(bundle)} == hosts
    logs = pq.read_table(f"{bundle.path}/raw/logs.parquet").to_pylist()
    assert {r["pod"]: r["node"] for r in logs} == {f"imported-worker-{rank - 1}": host for rank, host in hosts.items()}


def test_a_layout_given_is_read_as_before(tmp_path):
    bundle, layout = import_logs([LogSource("log.txt", MPICH)], tmp_path / "opt", nproc_per_node=8, now=NOW)
    assert (layout.placed, layout.nproc_per_node, layout.nodes) == (None, 8, 257)
    bundle, layout = import_logs([LogSource("log.txt", "torchrun --nproc_per_node=8 train.py\n[rank2050]: hello\n")],
                                 tmp_path / "log", now=NOW)
    assert (layout.placed, layout.nproc_per_node, layout.hints["nproc_per_node"]) == (None, 8, "log: --nproc_per_node")
    assert [r for r in _ranks(bundle) if r[0] == 2050] == [(2050, "imported-worker-255", "node-256", "env:PET_NODE_RANK", "high")]


def test_each_named_rank_is_its_own_pod_and_lines_follow_their_tags(tmp_path):
    text = "setup line\n[rank1500]: step 1\n[rank2000]: step 1\nuntagged after rank 2000\n[rank1500]: step 2\n"
    bundle, layout = import_logs([LogSource("log.txt", text)], tmp_path / "b", now=NOW)
    assert (layout.placed, layout.world_size) == ([1500, 2000], 2001)
    rows = pq.read_table(f"{bundle.path}/raw/logs.parquet").to_pylist()
    assert {r["pod"]: (r["node"], r["body"]) for r in rows} == {
        "imported-worker-1499": (None, "setup line\n[rank1500]: step 1\n[rank1500]: step 2\n"),
        "imported-worker-1999": (None, "[rank2000]: step 1\nuntagged after rank 2000"),
    }


def test_an_untagged_failure_is_charged_to_no_named_rank(tmp_path):
    """The untagged traceback sits in the first named rank's pod only because the paste put it first."""
    bundle, _ = import_logs([LogSource("log.txt", TRACEBACK + "[rank1500]: step 1\n[rank2000]: step 1\n")], tmp_path / "b", now=NOW)
    assert not [n for n in _named(bundle) if n[2]]


def test_real_logs_without_a_layout_name_their_rank(tmp_path):
    """The corpus's two logs whose ranks pass 1024 with no layout (ARCHER2's quote, E3SM's srun-labelled abort),
    imported with no option: each names its one rank, on the node its own ``MPICH ERROR [Rank N] … [nid…]`` line names."""
    from pathlib import Path

    corpus = Path(__file__).parent / "data" / "real-incidents"
    for case, rank, node, cause in (("archer2-docs-ucx-reg-mr-rank1534-isend-abort", 1534, "nid001192", "nccl-error"),
                                    ("e3sm-8699-perlmutter-srun-rank2047-device-unavailable", 2047, "nid004069", "cuda-error")):
        text = (corpus / case / "log.txt").read_text(encoding="utf-8")
        bundle, layout = import_logs([LogSource("log.txt", text)], tmp_path / case, now=NOW)
        assert layout.placed == [rank]
        assert [r[0] for r in _ranks(bundle)] == [rank] and _ranks(bundle)[0][2] == node
        assert [(n[1], n[2]) for n in _named(bundle)] == [(cause, [rank])]
        failure = next(f for f in analyze(bundle)["findings"] if f["rule"] == "rank-failure")
        assert (failure["ranks"], failure["nodes"], "node_unknown" in failure) == ([rank], [node], False)


@pytest.mark.parametrize(("line", "tagged", "pairs"), [
    # Cray MPICH's head (log_mpich.MPICH_HEAD): the last bracket before " - " is the node, whatever fields come before
    ("MPICH ERROR [Rank 7] [job id 1.0] [Mon Nov 30 02:58:48 2026] [nid000042] - Abort(1) (rank 7 in comm 0): x", None,
     [(7, "nid000042")]),
    ("MPICH ERROR [Rank 7] [nid000042] - Abort(1): Fatal error in PMPI_Send: Other MPI error", None, [(7, "nid000042")]),
    ("MPICH ERROR [Rank 7] [job id 1.0] [Mon Nov 30 02:58:48 2026] [unknown] - Abort(1)", None, []),  # no node written
    ("MPICH ERROR [Rank 7] [job id 1.0] [Mon Nov 30 02:58:48 2026] - Abort(1)", None, []),  # a date is no host
    # srun's task line (log_patterns.SRUN_TASKS): one task on a named host; a range or no host places no one
    ("srun: error: nid001234: task 12: Exited with exit code 1", None, [(12, "nid001234")]),
    ("srun: error: nid001234: tasks 12-13: Killed", None, []),
    ("srun: error: task 12: Exited with exit code 1", None, []),
    ("srun: error: localhost: task 12: Segmentation fault (core dumped)", None, []),
    # Open MPI's handler names its host, the rank only by the launcher's tag
    ("[1,3]<stderr>:[gpu-7:12345] *** Process received signal ***", 3, [(3, "gpu-7")]),
    ("[gpu-7:12345] *** Process received signal ***", None, []),
])
def test_the_host_a_line_names_for_its_rank(line, tagged, pairs):
    from k10s_forensics.parsers.log_unplaced import _line_hosts

    assert _line_hosts(line, tagged) == pairs
