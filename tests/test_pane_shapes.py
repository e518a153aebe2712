"""Readers of what a cluster UI's log pane or download hands a user (tests/pane_shapes.py: the Kubernetes Dashboard's
``logs-from-<container>-in-<pod>.txt`` with and without its timestamps, Lens's pod log pane copied with its timestamps,
a Kubeflow Pipelines v2 step's log pane): the formats on a few lines; a sample of recorded runs read in one analysis.
The whole sweep: ``tests/tools/score_export_shapes.py --family pane``."""

from __future__ import annotations

import pytest

import pane_shapes
from k10s_forensics.parsers.log_agents import agent_layout, interleaved

T = "2026-11-28T12:05:03.010223000Z"
_AGENT = "E1128 12:05:0{s}.000000 22363 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 9 closing signal SIGTERM"
_KFP = "I1128 12:05:0{s}.582509      27 launcher_v2.go:181] publish success."


def test_the_generator_is_deterministic_and_makes_every_shape():
    node = f"{T} [default0]:[rank0]: step 1\n{T} [default0]:[rank0]: KeyError: 'x'\n"
    assert pane_shapes.shapes([node, node], 1) == pane_shapes.shapes([node, node], 1)
    made = pane_shapes.shapes([node, node], 1)
    assert set(made) == set(pane_shapes.SHAPES)
    assert [rel for rel, _ in made["dashboard-log-download"]] == ["logs-from-pytorch-in-train-master-0.txt", "logs-from-pytorch-in-train-worker-0.txt"]
    assert made["lens-pane-timestamps"][0][1].startswith("2026-11-28T13:05:03+01:00 [default0]:[rank0]: step 1\n")
    assert made["dashboard-log-download-timestamps"][0][1].startswith(f"{T} [default0]")


@pytest.mark.parametrize("lines,layout", [
    # the KFP launcher's Go glog lines (a pid padded to seven columns, no torch path) between one torchrun agent's: one node
    ([_AGENT.format(s=1), _KFP.format(s=2), _AGENT.format(s=3), _KFP.format(s=4)], None),
    ([_KFP.format(s=1), _AGENT.format(s=2), _KFP.format(s=3)], None),
])
def test_a_kfp_launchers_glog_lines_are_no_torchrun_agent(lines, layout):
    lines = [f"[rank{r}]: step 4" for r in range(4)] + lines
    assert interleaved(lines) is False
    assert agent_layout(lines, 4) == layout


def _with_reversed_download(node_texts: list[str], nproc: int = 1) -> dict[str, list[tuple[str, str]]]:
    made = pane_shapes.shapes(node_texts, nproc)
    return {**made, "dashboard-downloads-worker-first": made["dashboard-log-download"][::-1]}


#: one recorded run per shape, read in one analysis (tests/bundle_batch.py): the culprit on a worker node in the Dashboard's
#: downloads (also handed worker first: each file is one pod, whatever their order), on the master in the one-pod panes
SAMPLE = {"dashboard-log-download-timestamps": "2.13.0/t10-trun-weights-only-rank3",
          "dashboard-downloads-worker-first": "2.14.1/t6-perpod-3-sigkill-rank0-store",
          "lens-pane-timestamps": "2.14.1/t9-trun-enospc-checkpoint-rank0",
          "kfp-step-log": "2.13.0/t17-trun-persistent-loader-rank1"}


@pytest.mark.slow
def test_a_recorded_run_reads_as_its_pod_logs_in_each_pane_shape(tmp_path):
    from torch_runs_kit import missed_shapes

    assert missed_shapes(_with_reversed_download, SAMPLE, tmp_path) == {}
