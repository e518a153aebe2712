"""Readers of what ClearML's console, OpenSearch Dashboards' CSV report and a Vertex AI console copy hand a user
(tests/tracker_shapes.py), and of one stream of several torchrun agents that names no node (Graylog's CSV without its
``source``, ``docker compose logs --no-log-prefix``): each on a few lines of its format; a sample of recorded runs read
in one analysis. The whole sweep: ``tests/tools/score_export_shapes.py --family tracker``."""

from __future__ import annotations

import pytest

import tracker_shapes
from k10s_forensics.parsers.log_agents import agent_layout, interleaved

T = "2026-11-28T12:05:03.010223000Z"
_AGENT = "E1128 12:05:0{s}.000000 {pid} torch/distributed/elastic/multiprocessing/api.py:1028] "


def test_the_generator_is_deterministic_and_makes_every_shape():
    node = f"{T} [default0]:[rank0]: step 1\n{T} [default0]:[rank0]: KeyError: 'x'\n"
    assert tracker_shapes.shapes([node, node], 1) == tracker_shapes.shapes([node, node], 1)
    assert set(tracker_shapes.shapes([node], 1)) == set(tracker_shapes.SHAPES)


def _agents(order: list[int]) -> list[str]:
    return [_AGENT.format(s=i % 10, pid=pid) + f"Sending process {900 + i} closing signal SIGTERM" for i, pid in enumerate(order)]


#: two nodes' agents in one stream, their workers' lines tagged ``[rank<R>]:`` only (no ``[default<i>]:`` pair, no
#: failure table): the agents speaking in turn (A, B, A) are alive at once, so on two nodes
@pytest.mark.parametrize("order,layout", [
    ([22363, 22323, 22363], (2, 2)),
    ([22363, 22323, 22323, 22363, 22323], (2, 2)),
    ([22363, 22363, 22323, 22323], None),  # one agent after the other: a rerun on one node
    ([22363, 22363], None),  # one agent
])
def test_agents_that_speak_in_turn_are_several_nodes(order, layout):
    lines = [f"[rank{r}]: step 4" for r in range(4)] + _agents(order)
    assert interleaved(lines) == (layout is not None)
    assert agent_layout(lines, 4) == layout


def test_agents_in_turn_whose_world_does_not_divide_keep_one_node():
    assert agent_layout([f"[rank{r}]: step 4" for r in range(3)] + _agents([1, 2, 1]), 3) is None


#: one recorded run for each shape a reader was changed for (as generated, each named a wrong rank), read in one
#: analysis (tests/bundle_batch.py); every shape on a sample of runs: the scoring tool's sweep (--family tracker)
#: (Graylog's CSV without ``source``, the agents in turn: tests/test_viewer_shapes.py's sample)
SAMPLE = {"vertex-console-copy": "2.13.0/t10-trun-subgroup-keyerror-rank3", "opensearch-report-csv": "2.13.0/t17-trun-4x1-common-mode-keyerror"}


@pytest.mark.slow
def test_a_recorded_run_reads_as_its_pod_logs_in_each_tracker_shape(tmp_path):
    from torch_runs_kit import missed_shapes

    assert missed_shapes(tracker_shapes.shapes, SAMPLE, tmp_path) == {}


VERTEX = ["info\t2026-11-28 13:05:02.100 CET\tworkerpool1-0\t[rank2]: step 4",
          "error\t2026-11-28 13:05:03.300 CET\tworkerpool1-0\t[rank3]: KeyError: 'labels'",
          "info\t2026-11-28 13:05:03.410 CET\tworkerpool0-0\t[rank1]: step 5"]


@pytest.mark.parametrize("lines,zone_ns", [
    (VERTEX, 3_600_000_000_000),  # the Cloud console's copy: the icon's text, milliseconds, the viewer's zone (UTC+1)
    ([ln.replace(" CET", " PST") for ln in VERTEX], -8 * 3_600_000_000_000),
    ([ln.replace(" CET", " +0200") for ln in VERTEX], 2 * 3_600_000_000_000),
    ([ln.replace("info", "INFO").replace("error", "ERROR").replace(".100 CET", " +0000").replace(".300 CET", " +0000")
      .replace(".410 CET", " +0000") for ln in VERTEX], None),  # gcloud's stream-logs: seconds only, its offset
])
def test_a_vertex_console_copy_is_read_as_its_replicas_lines(lines, zone_ns):
    from k10s_forensics.parsers.log_export_records import parse_time_ns
    from k10s_forensics.parsers.log_export_text import read_text_export

    found = read_text_export("\n".join(lines) + "\n")[1]
    assert [(r.pod, r.text) for r in found] == [("workerpool1-0", "[rank2]: step 4"), ("workerpool1-0", "[rank3]: KeyError: 'labels'"),
                                                ("workerpool0-0", "[rank1]: step 5")]
    if zone_ns is not None:
        assert found[0].ts_ns == parse_time_ns("2026-11-28T13:05:02.100Z") - zone_ns


def test_a_console_zone_no_table_names_leaves_the_rows_time_unread():
    from k10s_forensics.parsers.log_export_text import read_text_export

    found = read_text_export("\n".join(ln.replace(" CET", " XYZT") for ln in VERTEX) + "\n")[1]
    assert [r.pod for r in found] == ["workerpool1-0", "workerpool1-0", "workerpool0-0"] and {r.ts_ns for r in found} == {None}


def _rec(ts: str, text: str):
    from k10s_forensics.parsers.log_export_records import Record, parse_time_ns
    return Record("train-worker-0", None, parse_time_ns(ts), text)


GLOG = "E1130 07:03:05.787000 9674 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) local_rank: 0"


@pytest.mark.parametrize("stamps,hours", [
    (["2026-11-30T08:03:05.787Z", "2026-11-30T08:03:05.790Z"], 1),  # OpenSearch Dashboards' CSV in UTC+1: set back
    (["2026-11-30T02:03:05.787Z", "2026-11-30T02:03:06.100Z"], -5),
    (["2026-11-30T07:03:05.900Z", "2026-11-30T07:03:06.100Z"], 0),  # already UTC: a collector's second of delay
    (["2026-11-30T08:03:05.787Z", "2026-11-30T07:03:05.787Z"], 0),  # the lines disagree: no zone
    (["2026-11-30T08:03:05.787Z"], 0),  # one line is too few to tell
])
def test_a_time_column_in_the_viewers_zone_is_set_back_by_the_lines_own_times(stamps, hours):
    from k10s_forensics.parsers.log_exports import zone_shift

    assert zone_shift([_rec(t, GLOG) for t in stamps] + ["a text, no record"]) == hours * 3_600_000_000_000


def test_backtrace_frames_of_one_length_are_not_a_wrapped_line():
    from k10s_forensics.parsers.log_unwrap import unwrap

    def frame(i: int, call: str) -> str:
        return f"frame #{i}: c10d::TCPStore::{call}(std::string const&) + 0x2a (0x7fa86fb4390a in /opt/venv/lib/libtorch_cpu.so)"
    block = ["[rank1]: RuntimeError: wait timeout", "Exception raised from doWait at /pytorch/torch/csrc/TCPStore.cpp:1",
             frame(5, "doWait"), frame(6, "doGet0"), "[rank1]: step 5"]
    lines = block + ["rank 0 step 1 loss 0.0031"] * 3 + block
    assert len({len(frame(5, "doWait")), len(frame(6, "doGet0"))}) == 1
    assert unwrap(lines)[0] == lines


def test_an_agents_rendezvous_result_names_its_node():
    from k10s_forensics.parsers.log_agents import agent_nodes

    def said(pid: int, text: str) -> str:
        return f"I1129 22:41:06.558000 {pid} torch/distributed/elastic/agent/server/api.py:553] {text}"
    lines = [said(3551, "[default] Rendezvous complete for workers. Result:"), said(3554, "[default] Rendezvous complete for workers. Result:"),
             said(3554, "  group_rank=1"), said(3551, "  group_rank=0"),
             "I1129 22:41:11.721000 3554 torch/distributed/elastic/timer/file_based_local_timer.py:343] Successfully reaped worker=[3570] with signal=9"]
    assert agent_nodes(lines, 2, [None] * len(lines)) == {"3554": 1, "3551": 0}
