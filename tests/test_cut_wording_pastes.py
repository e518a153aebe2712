"""Two paste damages of real incidents batch 24 (parsers/log_cut_wordings.py, parsers/log_bare_tags.py):
one known wording (torchrun agent's failure line, the NCCL watchdog's) cut in two where the paste wrapped
only that line, and horovodrun's ``[1]<stderr>:`` tag whose ``<stderr>`` a markdown renderer dropped.
Each wording variant is a case; the shapes that must stay as they are are cases too.
"""

from __future__ import annotations

import pytest

from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers.log_bare_tags import restore_bare_tags
from k10s_forensics.parsers.log_cut_wordings import rejoin_cut_wordings
from k10s_forensics.parsers.log_normalize import normalize
from k10s_forensics.parsers.log_paste import repair_paste

AGENT = "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 12 (pid: 1801442) of binary: /usr/bin/python"
BAR = "[                                                  ] 0/6019, elapsed: 0s, ETA:"
WATCHDOG = ("[rank0]:[E305 16:45:41.088377452 ProcessGroupNCCL.cpp:1515] [PG 1 Rank 0] Process group watchdog thread terminated "
            "with exception: [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3369, OpType=ALLTOALL, "
            "NumelIn=610560, NumelOut=610560, Timeout(ms)=600000) ran for 600000 milliseconds before timing out.")
NCCL_RETURN = "n124-137-109:312247:326969 [0] NCCL INFO misc/socket.cc:829 -> 3"
OLD_WATCHDOG = ("[E ProcessGroupNCCL.cpp:458] [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, "
                "Timeout(ms)=1800000) ran for 1800419 milliseconds before timing out.")


def _cut(line: str, after: str, keep_space: bool = True) -> list[str]:
    """``line`` cut right after ``after`` (the space there kept on the first piece, or on neither)."""
    at = line.index(after) + len(after)
    head, tail = line[:at], line[at:]
    if not keep_space and head.endswith(" "):
        head = head[:-1]
    return [head, tail.lstrip(" ") if not keep_space else tail]


@pytest.mark.parametrize(("line", "after", "keep_space"), [
    (AGENT, "local_rank: ", True),  # the BEVFormer_segmentation_detection#18 cut
    (BAR + AGENT, "local_rank: ", True),  # glued behind a progress bar, as there
    (AGENT, "local_rank: 1", True),  # inside the rank number
    (AGENT, "local_rank: 12", False),  # on the space before (pid: , the space lost
    (AGENT, "(exitcode:", False),  # right after the opening words
    (AGENT, "(pid: 1801", True),  # inside the pid
    (WATCHDOG, "timeout: Work", True),  # the FastVideo#242 cut
    (WATCHDOG, "WorkNCCL(Seq", True),
    (OLD_WATCHDOG, "timeout:", False),  # torch 1.x, no SeqNum
    (NCCL_RETURN, "[0] NCCL ", True),  # NCCL's prefix at the end of a row, its level on the next
    (NCCL_RETURN, "[0] NCCL", False),
    ("Steps:   0%| | 1/5 [12:44<14:40, 104.11s/it]" + NCCL_RETURN.replace("INFO", "WARN"), "[0] NCCL ", True),  # behind a bar
])
def test_a_known_wording_cut_in_two_is_one_line_again(line, after, keep_space):
    pieces = _cut(line, after, keep_space)
    lines, note = rejoin_cut_wordings(["INFO: epoch 1 done", *pieces, "Traceback (most recent call last):"])
    assert note == "a known wording cut in two (1 lines joined)"
    assert lines == ["INFO: epoch 1 done", line, "Traceback (most recent call last):"]


def test_pieces_behind_api_timestamps_lose_the_second_stamp():
    head, tail = _cut(AGENT, "local_rank: ")
    lines, note = rejoin_cut_wordings(["2026-11-21T10:05:00.000001Z " + head, "2026-11-21T10:05:00.000002Z " + tail])
    assert note and lines == ["2026-11-21T10:05:00.000001Z " + AGENT]


@pytest.mark.parametrize("lines", [
    [AGENT, "Traceback (most recent call last):"],  # whole: nothing to join
    [WATCHDOG, "Exception raised from checkTimeout at ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:609"],
    ["failed (exitcode: -9) local_rank: ", "  File \"/opt/conda/bin/torchrun\", line 8, in <module>"],  # indented next line
    ["failed (exitcode: -9) local_rank: ", "Traceback (most recent call last):"],  # the next line completes nothing
    ["the job failed (exitcode: unknown) before start", "0 (pid: 12) of binary"],  # not the agent's wording
    ["Watchdog caught collective operation timeout: Work", "NCCL is not available"],
    ["n124-137-109:312247:326969 [0] NCCL", "INFO:root:epoch 3 started"],  # a logger's record, not NCCL's level
    ["the GPU [0] NCCL", "INFO misc"],  # no NCCL prefix before it
])
def test_lines_that_do_not_complete_a_known_wording_stay(lines):
    assert rejoin_cut_wordings(list(lines)) == (list(lines), None)


def test_the_repaired_paste_names_the_failed_local_rank():
    head, tail = _cut(BAR + AGENT, "local_rank: ")
    repaired = repair_paste("\n".join(["2024-01-05 13:21:28,371 - mmdet - INFO - Saving checkpoint at 1 epochs", head, tail]))
    assert "a known wording cut in two (1 lines joined)" in repaired.notes
    m = P.AGENT_FAILED.search(repaired.text)
    assert m and (m.group(1), m.group(2)) == ("-9", "12")


HOROVOD = [
    "[0] DEEPMD rank:0  INFO    built training",
    "[0] DEEPMD rank:0  INFO    broadcast global variables to other tasks",
    "[1] DEEPMD rank:1  INFO    built training",
    "[1] Traceback (most recent call last):",
    "[1] tensorflow.python.framework.errors_impl.UnknownError: ncclCommInitRank failed: unhandled cuda error",
]


@pytest.mark.parametrize(("lines", "ranks"), [
    (HOROVOD, [0, 0, 1, 1, 1]),
    ([ln.replace("[1]", "[3]") for ln in HOROVOD], [0, 0, 3, 3, 3]),  # ranks need not be contiguous
    ([ln + "\n" for ln in HOROVOD[:2]] + HOROVOD[2:] + ["[1] ", "[1]"], [0, 0, 1, 1, 1, 1, 1]),  # an empty tagged line
])
def test_bare_horovodrun_tags_are_ranks_again(lines, ranks):
    lines = "\n".join(lines).split("\n")
    out, note = restore_bare_tags(lines)
    assert note and note.startswith("horovodrun rank tags without their stream tag")
    assert [normalize(ln).rank for ln in out if ln] == ranks
    assert normalize(out[-1] if out[-1] else out[-2]).text.strip() in {ln[4:].strip() for ln in lines if ln}


@pytest.mark.parametrize("lines", [
    [ln.replace("[0]", "[48213]").replace("[1]", "[48214]") for ln in HOROVOD],  # logging's [%(process)d]: pids, no 0
    [ln.replace("[1]", "[0]") for ln in HOROVOD],  # one index only
    HOROVOD[1:] + ["[2] x", "[2] y"],  # index 0 on one line only
    HOROVOD + ["plain line"] * 6,  # tags on a minority of the lines
    [ln.replace("] ", "]:", 1) for ln in HOROVOD],  # torchrun's --tee prefix ([1]:text) is another tag
])
def test_other_bracketed_numbers_stay(lines):
    assert restore_bare_tags(list(lines)) == (list(lines), None)


def test_the_repaired_paste_routes_the_tagged_traceback():
    repaired = repair_paste("\n".join(HOROVOD))
    assert repaired.notes == ["horovodrun rank tags without their stream tag (2 ranks)"]
    assert normalize(repaired.text.split("\n")[-1]).rank == 1
