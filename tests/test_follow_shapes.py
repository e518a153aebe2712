"""Readers of what a user following a job's logs live hands over (tests/follow_shapes.py: ``kubetail`` coloured and
plain, Grafana Explore's Logs panel copied with its unique labels, a Katib trial's metrics-logger-and-collector
sidecar): the formats on a few lines; a sample of recorded runs read in one analysis. The whole sweep:
``tests/tools/score_export_shapes.py --family follow``."""

from __future__ import annotations

import pytest

import follow_shapes
from k10s_forensics.parsers.log_export_records import Record
from k10s_forensics.parsers.log_export_text import read_text_export
from k10s_forensics.parsers.log_normalize import strip_ansi

T = "2026-11-28T12:05:03.010223000Z"


def test_the_generator_is_deterministic_and_makes_every_shape():
    node = f"{T} [default0]:[rank0]: step 1\n{T} [default0]:[rank0]: KeyError: 'x'\n"
    made = follow_shapes.shapes([node, node], 1)
    assert made == follow_shapes.shapes([node, node], 1) and set(made) == set(follow_shapes.SHAPES)
    assert made["kubetail-plain"][0][1].startswith("Will tail 2 logs...\ntrain-master-0\ntrain-worker-0\n[train-master-0] [default0]")
    assert "\x1b[32m[\x1b(B\x1b[m\x1b[32mtrain-worker-0]\x1b(B\x1b[m \x1b[32m[default0]" in made["kubetail-color"][0][1]
    assert made["grafana-explore-labels"][0][1].startswith("2026-11-28 13:05:03.010\tpod=train-worker-0\t[default0]:[rank0]: KeyError")
    assert "      14 main.go:153] [default0]:[rank0]: step 1\n" in made["katib-metrics-collector"][0][1]


@pytest.mark.parametrize("text,plain", [
    # ``tput sgr0`` under xterm-256color: a G0 character-set designation (ESC ( B) before the SGR reset
    ("\x1b[31m[\x1b(B\x1b[m\x1b[31mtrain-master-0]\x1b(B\x1b[m \x1b[31mKeyError: 'x'\x1b(B\x1b[m", "[train-master-0] KeyError: 'x'"),
    ("\x1b)0\x1b[1mstep 4\x1b(B\x1b[m", "step 4"),  # G1 designation, bold
    ("\x1b[32mstep 4\x1b[0m", "step 4"),  # a plain SGR pair, as before
])
def test_a_terminals_character_set_designations_are_no_text(text, plain):
    assert strip_ansi(text) == plain


def _records(text: str):
    found = read_text_export(text)
    return found and (found[0], [(r.pod, r.text) if isinstance(r, Record) else r for r in found[1]])


@pytest.mark.parametrize("rows,want", [
    # the panel with Time and Unique labels on: each row's own labels between the time and the line
    (["2026-11-28 13:05:03.310\tpod=train-worker-0\t[rank3]: KeyError: 'x'", "2026-11-28 13:05:03.010\tpod=train-master-0\tstep 4"],
     [("train-worker-0", "[rank3]: KeyError: 'x'"), ("train-master-0", "step 4")]),
    (["2026-11-28 13:05:03.310\tcontainer=pytorch pod=train-worker-0\tstep 4"], [("train-worker-0", "step 4")]),
    # the download as text (no labels cell), and a line that holds ``key=value`` words after the time's tab
    (["2026-11-28 13:05:03.310\tstep 4 loss=0.3"], [(None, "step 4 loss=0.3")]),
])
def test_a_grafana_panel_copied_with_its_labels_names_each_rows_pod(rows, want):
    assert _records("\n".join(rows) + "\n") == ("Grafana logs download (text)", want)


def _rec(stamp: str, text: str) -> Record:
    from k10s_forensics.parsers.log_export_records import parse_time_ns

    return Record("train-worker-0", None, parse_time_ns(stamp), text)


@pytest.mark.parametrize("rows,shift_h", [
    # the panel's times in the viewer's UTC+1, the failure table's own ``time`` fields in UTC (one glog line only)
    ([("2026-11-30T05:15:22.400Z", "  time      : 2026-11-30_04:15:22"), ("2026-11-30T05:15:22.500Z", "  time      : 2026-11-30_04:15:22")], 1),
    ([("2026-11-30T05:15:22.400Z", "  time      : 2026-11-30_04:15:22"),
      ("2026-11-30T05:15:21.000Z", "E1130 04:15:21.000000 7 torch/distributed/elastic/multiprocessing/api.py:1] failed")], 1),
    ([("2026-11-30T04:15:22.400Z", "  time      : 2026-11-30_04:15:22"), ("2026-11-30T04:15:22.500Z", "  time      : 2026-11-30_04:15:22")], 0),
    ([("2026-11-30T05:15:22.400Z", "  time      : 2026-11-30_04:15:22")], 0),  # one own time proves no zone
    ([("2026-11-30T05:15:22.400Z", "  time      : 2026-11-30_04:15:22"), ("2026-11-30T05:15:22.400Z", "  time      : 2026-11-30_04:45:22")], 0),
])
def test_a_time_column_in_the_viewers_zone_is_set_back_by_the_failure_tables_times(rows, shift_h):
    from k10s_forensics.parsers.log_exports import zone_shift

    assert zone_shift([_rec(t, text) for t, text in rows]) == shift_h * 3600 * 10**9


#: recorded runs read in one analysis (tests/bundle_batch.py): the culprit on a worker node in kubetail's coloured
#: stream and in the Grafana panel (as generated both named a master rank), on the master in Katib's sidecar (one pod)
SAMPLE = {"kubetail-color": "2.13.0/t10-trun-weights-only-rank3",
          "grafana-explore-labels": "2.14.1/t10-trun-weights-only-rank3",
          "katib-metrics-collector": "2.13.0/t17-trun-persistent-loader-rank1"}


@pytest.mark.slow
def test_a_recorded_run_reads_as_its_pod_logs_in_each_follow_shape(tmp_path):
    from torch_runs_kit import missed_shapes

    assert missed_shapes(follow_shapes.shapes, SAMPLE, tmp_path) == {}
