"""Wordings of real incidents batch 110 (computer-vision toolkits under DDP; parsers/log_exception_tail.py).

DDP's reducer raises ``RuntimeError: Expected to have finished reduction in the prior iteration …`` on the rank whose
backward left parameters without a gradient, and its message ends naming that rank (``Parameter indices which did not
receive grad for rank 2: …``, or ``Parameters which did not receive grad for rank 4: <names>`` under
``TORCH_DISTRIBUTED_DEBUG``): the exception is that rank's. Parser calls only (no analysis); the lines go through the
prefilter as a rebuild feeds them.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from parser_kit import body_events
from k10s_forensics.parsers.log_prefilter import PREFILTER_EVENT

NOW = dt.datetime(2026, 12, 1, 12, 0, tzinfo=dt.timezone.utc)
PREFILTER = re.compile(PREFILTER_EVENT)

RAISED = "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one."
LONG = (RAISED + " This error indicates that your module has parameters that were not used in producing loss. You can "
        "enable unused parameter detection by passing the keyword argument `find_unused_parameters=True` to "
        "`torch.nn.parallel.DistributedDataParallel`, and by ")
MIDDLE = ["making sure all `forward` function outputs participate in calculating loss. ",
          "If you already have done the above, then the distributed data parallel module wasn't able to locate the output "
          "tensors in the return value of your module's `forward` function. Please include the loss function and the "
          "structure of the return value of `forward` of your module when reporting this issue (e.g. list, dict, iterable)."]
INDICES = "Parameter indices which did not receive grad for rank {r}: 444 445 446 447 448 449"
NAMES = "Parameters which did not receive grad for rank {r}: model.22.cv4.2.2.bias, model.22.cv4.2.2.weight"
HINT = (" In addition, you can set the environment variable TORCH_DISTRIBUTED_DEBUG to either INFO or DETAIL to print out "
        "information about which particular parameters did not receive gradient on this rank as part of this error")


def _exceptions(lines: list[str]) -> list[tuple]:
    return [(e.get("rank"), e["subkind"]) for e in body_events(lines, NOW) if e["kind"] == "python_exception"]


@pytest.mark.parametrize(("lines", "want"), [
    # batch 110 (ultralytics 24612): the exception line, then the reducer's rank line
    ([RAISED, INDICES.format(r=2)], [(2, "raised")]),
    # the whole message over four lines (mmdetection's yolox), then torch's hint
    ([LONG, *MIDDLE, INDICES.format(r=3), HINT], [(3, "raised")]),
    # TORCH_DISTRIBUTED_DEBUG=INFO/DETAIL: parameter names instead of indices
    ([LONG, *MIDDLE, NAMES.format(r=4)], [(4, "raised")]),
    # the message and its rank line on one line (a terminal's wrap joined back, a paste without line breaks)
    ([f"{RAISED} {INDICES.format(r=6)}"], [(6, "raised")]),
    # torch 2.x's tag on every line: the tag and the reducer agree
    ([f"[rank5]: {LONG}", *(f"[rank5]: {m}" for m in MIDDLE), f"[rank5]: {INDICES.format(r=5)}"], [(5, "raised")]),
])
def test_the_reducer_names_the_rank_whose_exception_it_is(lines, want):
    assert _exceptions(lines) == want
    assert all(PREFILTER.search(ln) for ln in lines if "receive grad for rank" in ln)


@pytest.mark.parametrize("lines", [
    # too far below the exception: another message's line, not this one's
    [RAISED, *(["    some other output line"] * 6), INDICES.format(r=2)],
    # a line tagged with another rank than the one it would give (two ranks' output interleaved)
    [RAISED, f"[rank1]: {INDICES.format(r=2)}"],
    # an exception already tagged with another rank keeps its tag
    [f"[rank0]: {RAISED}", INDICES.format(r=2)],
    # on its own line too: a tag of another rank keeps the exception that rank's
    [f"[rank0]: {RAISED} {INDICES.format(r=2)}"],
    # the rank line alone, with no exception above it
    [INDICES.format(r=2)],
])
def test_the_reducer_line_gives_no_rank_where_it_is_not_the_exception_s(lines):
    got = _exceptions(lines)
    assert all(rank != 2 for rank, _ in got), got
