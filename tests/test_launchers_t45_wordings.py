"""The forty-fifth launcher set's reading (session 42; docs/rules.md "Session 42: the forty-fifth launcher set").

rich's traceback (``rich.traceback.install()``) prints the exception under its box word-wrapped at the box's width:
``RuntimeError: `` alone on its row, gloo's ``[…/pair.cc:553] `` and ``Connection closed by peer … caused by a `` on the
next rows. Read row by row, rank 0's and rank 2's teardowns were RuntimeErrors with no message, so rank 1's KeyError
and rank 2's "RuntimeError" read as two ranks failing alike (no single culprit). parsers/log_rich.py joins the rows rich
broke back into the exception's row (the next row's first word would not have fitted the width after it; a row filling
the width; never a separator, a blank row or another printer's row), so the teardowns read as teardowns and rank 1 is
named. The recorded runs (tests/data/torch-runs/*/t45-*), each node's log as ``kubectl logs`` shows it, imported as one
job's node logs and analysed together; the join's bounds on rows built here.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from bundle_batch import analyze_node_sets, findings_of
from torch_runs_kit import RUNS, assert_reading, plain
from k10s_forensics.parsers.log_rich import unwrap_body

NOW = dt.datetime(2026, 12, 4, 0, 0, tzinfo=dt.timezone.utc)
EDGE = "╰" + "─" * 78 + "╯"  # the box's bottom edge at rich's default width, 80


def _nodes(version: str, name: str) -> list[str]:
    return [plain((RUNS / version / f"t45-trun-2x2-{name}" / f"node{i}.log").read_text()) for i in (0, 1)]


def _trimmed(texts: list[str]) -> list[str]:
    """The logs as a paste that trims each row's trailing blanks (the spaces rich broke at are gone)."""
    out = [re.sub(r"[ \t]+$", "", t, flags=re.M) for t in texts]
    assert out != texts
    return out


#: name: (each node's log, the ranks a warning/critical finding must name (none: none may), its cause)
CASES = {
    **{f"rich-keyerror-{v}": (_nodes(v, "rich-keyerror-rank1-tee"), [1], "python-exception") for v in ("2.13.0", "2.14.1")},
    "rich-keyerror-trimmed": (_trimmed(_nodes("2.13.0", "rich-keyerror-rank1-tee")), [1], "python-exception"),
    **{f"loguru-swallowed-{v}": (_nodes(v, "loguru-catch-swallows-zerodiv-rank2"), [2], "python-exception")
       for v in ("2.13.0", "2.14.1")},
    **{f"hydra-missing-key-{v}": (_nodes(v, "hydra-missing-key-every-rank"), [], None) for v in ("2.13.0", "2.14.1")},
}


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("t45")
    return analyze_node_sets([(name, texts) for name, (texts, _, _) in CASES.items()], tmp, NOW, nproc=lambda name: 2)


@pytest.mark.parametrize("name", list(CASES))
def test_forty_fifth_set_as_read(findings, name):
    _, want, cause = CASES[name]
    assert_reading(findings_of(findings, list(CASES).index(name)), want, cause)


def _rows(*rows: str, tags: str = "") -> str:
    return "\n".join(tags + r for r in (EDGE, *rows))


GLOO = ["RuntimeError: ", "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] ",
        "Connection closed by peer [127.0.0.1]:22214. This is typically caused by a ", "remote worker crashing."]
JOINED = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
          "[127.0.0.1]:22214. This is typically caused by a remote worker crashing.")


@pytest.mark.parametrize("body, want", [
    (_rows(*GLOO), [EDGE, JOINED, "", "", ""]),
    (_rows(*(r.rstrip() for r in GLOO)), [EDGE, JOINED, "", "", ""]),  # the spaces rich broke at trimmed by a paste
    (_rows(*GLOO, tags="[default0]:[rank0]: "), [f"[default0]:[rank0]: {r}" for r in (EDGE, JOINED)] + ["", "", ""]),
    # torchrun's failure table under ChildFailedError: a separator is never part of the message
    (_rows("ChildFailedError: ", "=" * 60, "train.py FAILED"), None),
    # a message of two lines of its own: the next row's first word would have fitted after the first
    (_rows("RuntimeError: CUDA error: uncorrectable ECC error encountered",
           "CUDA kernel errors might be asynchronously reported at some other API call"), None),
    # a word longer than the width, cut at the width: joined with nothing between
    (_rows("OSError: " + "x" * 71, "y" * 10 + "/shard-0017.tar"), [EDGE, "OSError: " + "x" * 71 + "y" * 10 + "/shard-0017.tar", ""]),
    # a blank row ends the message
    (_rows("RuntimeError: ", "", "[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] "), None),
    # no box above: rows are left as printed
    ("\n".join(GLOO), None),
])
def test_rich_rows_joined_only_where_rich_broke_them(body, want):
    assert unwrap_body(body).split("\n") == (want if want is not None else body.split("\n"))


def test_other_printers_rows_between_are_kept():
    rows = [f"[default1]:[rank1]: {EDGE}", "[default1]:[rank1]: RuntimeError: ",
            "[default0]:[rank0]: step 3/6 loss 0.5", f"[default1]:[rank1]: {GLOO[1]}", f"[default1]:[rank1]: {GLOO[2]}",
            f"[default1]:[rank1]: {GLOO[3]}"]
    out = unwrap_body("\n".join(rows)).split("\n")
    assert out == [rows[0], f"[default1]:[rank1]: {JOINED}", rows[2], "", "", ""]


def test_api_timestamps_kept_on_the_exception_row():
    rows = [f"2026-12-03T23:32:58.43{i}Z [default0]:[rank0]: {r}" for i, r in enumerate([EDGE, *GLOO])]
    out = unwrap_body("\n".join(rows)).split("\n")
    assert out[1] == f"2026-12-03T23:32:58.431Z [default0]:[rank0]: {JOINED}" and out[2:] == ["", "", ""]
