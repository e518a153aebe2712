"""Batch 93's accelerator shapes (tests/data/real-incidents, ``"batch": 93``, family ``accelerators``), with the
wording variants of the one reading it taught (docs/parsers-logs.md, "Session 27: batch 93"):

* Intel Gaudi's bridge re-raises a failure of its launch thread as ``RuntimeError: [Rank:6] FATAL ERROR ::
  MODULE:PT_BRIDGE Exception in Launch thread...`` (``MODULE:BRIDGE``, no ``[Rank:N]`` in older releases), and what
  failed is the next line: ``Check $HABANA_LOGS/ for details`` glued to the failure, or the failure alone
  (``FATAL ERROR :: MODULE:DEVMEM Allocation failed …``). That line is the exception's message (parsers/log_habana.py);
* controls: two ranks failing with the same graph compile failure, one caught in the launch thread, one raised in
  ``all_gather_into_tensor`` (optimum-habana-1426), at any ranks and in either wording, name no one;
* the contrast: one rank's wrapped failure alone names that rank (a device-memory allocation failure); one rank's
  graph compile failure alone names no one since batch 129 (the graph compiler's refusal is every rank's:
  tests/test_accelerators_batch129_wordings.py).

Parser readings are checked on the assembler (no analysis); the pastes go through tests/bundle_batch.py (one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings
from parser_kit import body_events

NOW = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.timezone.utc)
HABANA = corpus_log("optimum-habana-1426-gaudi2d-ranks6-2-graph-compile-synstatus26-control")
COMPILE = "Graph compile failed. synStatus=synStatus 26 [Generic failure]."
DEVMEM = "FATAL ERROR :: MODULE:DEVMEM Allocation failed for size::40960000 (39.0625)MB"

#: a rank's launch-thread failure as the newer bridge prints it (the ``[Rank:N]`` tag, the pointer to its logs)
WRAPPED = ("[rank{r}]: RuntimeError: [Rank:{r}] FATAL ERROR :: MODULE:PT_BRIDGE Exception in Launch thread...\n"
           "[rank{r}]: Check $HABANA_LOGS/ for details{detail}\n"
           "[rank{r}]: [Rank:{r}] Habana exception raised from compile at graph.cpp:599\n")
#: the same as an older release prints it (no rank tag in the message, the failure alone on the next line)
OLDER = ("[rank{r}]: RuntimeError: FATAL ERROR :: MODULE:BRIDGE Exception in Launch thread...\n"
         "[rank{r}]: {detail}\n")
#: the same failure raised in a collective's call (optimum-habana-1426's rank 2)
IN_COLLECTIVE = ("[rank{r}]: Traceback (most recent call last):\n"
                 "[rank{r}]:   File \"/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py\", line 3208, in all_gather_into_tensor\n"
                 "[rank{r}]:     work = group._allgather_base(output_tensor, input_tensor, opts)\n"
                 "[rank{r}]: RuntimeError: {detail}\n")


def _moved(first: int, second: int) -> str:
    """optimum-habana-1426 with its ranks 6 and 2 moved to ``first`` and ``second``."""
    return (HABANA.replace("[rank6]", "[rankA]").replace("[Rank:6]", "[Rank:A]").replace("[rank2]", f"[rank{second}]")
            .replace("[rankA]", f"[rank{first}]").replace("[Rank:A]", f"[Rank:{first}]"))


def _alike(template: str, ranks: tuple[int, ...], detail: str) -> str:
    return "".join(template.format(r=r, detail=detail) for r in ranks)


BUILD = {"habana": lambda _: HABANA, "moved": lambda _: _moved(0, 5), "moved_high": lambda _: _moved(7, 1),
         "older_alike": lambda _: _alike(OLDER, (3, 1), DEVMEM),
         "wrapped_and_collective": lambda _: WRAPPED.format(r=4, detail=COMPILE) + IN_COLLECTIVE.format(r=0, detail=COMPILE),
         "wrapped_alone": lambda r: WRAPPED.format(r=r, detail=DEVMEM),
         "wrapped_compile_alone": lambda r: WRAPPED.format(r=r, detail=COMPILE),
         "older_alone": lambda r: OLDER.format(r=r, detail=DEVMEM)}
CONTROLS = [("habana", 6), ("moved", 0), ("moved_high", 7), ("older_alike", 3), ("wrapped_and_collective", 4),
            ("wrapped_compile_alone", 3)]
CULPRITS = {("wrapped_alone", 3): 3, ("older_alone", 5): 5}
BATCHED = Batched("accelerators-batch93", CONTROLS + list(CULPRITS))


def _make(key: tuple, folder: Path) -> object:
    return pasted(BUILD[key[0]](key[1]), folder, 8, NOW)


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_ranks_failing_alike_behind_the_bridge_name_no_one(tmp_path_factory, key):
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), None)


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_one_rank_s_wrapped_failure_alone_names_it(tmp_path_factory, key):
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), CULPRITS[key], "python-exception")


def _raised(text: str) -> list[tuple]:
    return [(e.get("rank"), e["error_message"]) for e in body_events(text.splitlines(), NOW) if e["kind"] == "python_exception"]


@pytest.mark.parametrize(("text", "want"), [
    (WRAPPED.format(r=6, detail=COMPILE), [(6, COMPILE)]),  # the pointer glued to the failure
    (WRAPPED.format(r=6, detail=" " + COMPILE), [(6, COMPILE)]),  # a release that puts a space after it
    (OLDER.format(r=3, detail=DEVMEM), [(3, DEVMEM)]),  # the failure alone under the older wrapper
    (OLDER.format(r=3, detail=DEVMEM).replace("[rank3]: ", ""), [(None, DEVMEM)]),  # untagged lines (one process)
    (HABANA, [(6, COMPILE), (2, COMPILE)]),  # the real paste: both ranks say the same failure
])
def test_the_failure_under_the_bridge_s_wrapper_is_the_exception_s_message(text, want):
    assert _raised(text) == want


WRAPPER = "[Rank:6] FATAL ERROR :: MODULE:PT_BRIDGE Exception in Launch thread..."


@pytest.mark.parametrize(("text", "want"), [
    # the next line is another process's: the wrapper stays (a paste interleaving ranks)
    (WRAPPED.format(r=6, detail=COMPILE).replace("[rank6]: Check", "[rank1]: Check"), [(6, WRAPPER)]),
    # not the next line: a line of other output between
    (WRAPPED.format(r=6, detail=COMPILE).replace("[rank6]: Check", "[rank6]: step 12 done\n[rank6]: Check"), [(6, WRAPPER)]),
    # the pointer under an exception that is not the wrapper: nothing changes, the pointer is no event
    ("[rank2]: RuntimeError: synapse device acquire failed\n[rank2]: Check $HABANA_LOGS/ for details", [(2, "synapse device acquire failed")]),
    # another wrapper under the wrapper is no failure of its own
    (WRAPPED.format(r=6, detail=COMPILE).replace(f"for details{COMPILE}", "\n[rank6]: FATAL ERROR :: MODULE:PT_BRIDGE Exception in Launch thread..."), [(6, WRAPPER)]),
])
def test_a_line_that_is_not_the_wrapper_s_next_line_of_the_same_process_changes_nothing(text, want):
    assert _raised(text) == want


def test_the_variants_keep_their_shape():
    """The builders move the ranks, not the wording the tests are about."""
    assert _moved(6, 2) == HABANA
    assert "[rank0]: RuntimeError: [Rank:0] FATAL ERROR :: MODULE:PT_BRIDGE" in _moved(0, 5) and "[rank5]: RuntimeError: Graph" in _moved(0, 5)
    assert _alike(OLDER, (3, 1), DEVMEM).count("Exception in Launch thread...") == 2
