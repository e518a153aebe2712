"""Readers of what Headlamp's pod log viewer downloads (tests/download_shapes.py: ``<pod>_<container>_<time>.txt`` per
pod, each line ``<RFC 3339 time> <line>``, the default last 100 lines or all of them): the format on a few lines; a
sample of recorded runs read in one analysis. The whole sweep: ``tests/tools/score_export_shapes.py --family download``."""

from __future__ import annotations

import pytest

import download_shapes

T = "2026-11-28T12:05:03.010223Z"


def test_the_generator_is_deterministic_and_keeps_each_pods_last_lines():
    node = "".join(f"{T} [default0]:[rank0]: step {i}\n" for i in range(150))
    made = download_shapes.shapes([node, node], 1)
    assert made == download_shapes.shapes([node, node], 1) and set(made) == set(download_shapes.SHAPES)
    # one file per pod, named <pod>_<container>_<download time, ':' made '-', no milliseconds>.txt, each downloaded in turn
    assert [name for name, _ in made["headlamp-pod-download"]] == ["train-master-0_pytorch_2026-11-28T12-07-03.txt",
                                                                   "train-worker-0_pytorch_2026-11-28T12-08-03.txt"]
    lines = made["headlamp-pod-download"][0][1].splitlines()
    assert len(lines) == download_shapes.TAIL_LINES and lines[0] == f"{T} [default0]:[rank0]: step 50"  # the last 100
    assert len(made["headlamp-pod-download-all"][1][1].splitlines()) == 150  # Lines: All


#: recorded runs read in one analysis (tests/bundle_batch.py)
SAMPLE = {"headlamp-pod-download": "2.14.1/t10-trun-weights-only-rank3",
          "headlamp-pod-download-all": "2.13.0/t10-trun-common-mode-eval-subprocess"}


@pytest.mark.slow
def test_a_recorded_run_reads_as_its_pod_logs_in_each_download_shape(tmp_path):
    from torch_runs_kit import missed_shapes

    assert missed_shapes(download_shapes.shapes, SAMPLE, tmp_path) == {}
