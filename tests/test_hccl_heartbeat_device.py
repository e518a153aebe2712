"""CANN's older heartbeat verdict names the device whose process is gone (parsers/log_launchers.py HCCL_LOST_DEVICE;
docs/rules.md, "Session 57: CANN's older heartbeat verdict").

Under ``there are(is) 1 abnormal device(s):`` CANN prints ``serverId[10.*.*.*], deviceId[0], Heartbeat Lost Occurred,
Possible Reason: 1. Process has exited, 2. Network Disconnected`` in a surviving process's EI0002 report (batch 343: the
MindSpore CANN error-cases page, device 1's log naming device 0): the device is a local rank on that server, read as the
newer ``Cluster Exception Location[IP/ID]:[…/1] … Heartbeat Lost Occurred`` is (rank-dead).
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted
from incident_kit import corpus_lines, naming_findings
from k10s_forensics.analyze.runner import analyze

NOW = dt.datetime(2026, 12, 5, 23, 55, tzinfo=dt.timezone.utc)
REPORT = ["[CRITICAL] DEVICE(162844,fffd6cff91e0,python):2022-12-01-00:26:58.399.787 [ascend_graph_executor.cc:240] "
          "RunGraph] Run task for graph:kernel_graph_1 error! EI0002: The wait execution of the Notify register times out.",
          "there are(is) 1 abnormal device(s):",
          "        serverId[10.*.*.*], deviceId[{d}], Heartbeat Lost Occurred, Possible Reason: 1. Process has exited, "
          "2. Network Disconnected"]


def _named(lines: list[str], folder, nproc: int | None) -> list[tuple]:
    findings = analyze(pasted(lines, folder, nproc, NOW, world=nproc or -1))["findings"]
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(findings)]


@pytest.mark.parametrize("device", [0, 3, 7])
def test_the_lost_device_is_named(tmp_path, device):
    lines = [line.format(d=device) for line in REPORT]
    assert _named(lines, tmp_path, 8) == [("rank-failure", "rank-dead", [device])]


def test_without_the_verdict_no_one_is_named(tmp_path):
    assert _named(REPORT[:2], tmp_path, 8) == []


def test_the_mindspore_page_names_device_0(tmp_path):
    assert _named(corpus_lines("mindspore-docs-cann-error-cases-ei0002-"), tmp_path, None) == [
        ("rank-failure", "rank-dead", [0])]
