"""SkyPilot's and Determined's node tags in a short paste (docs/parsers-logs.md, batch 53's probes): their CLIs print
lines of their own between the tagged ones (``ERROR: Job 1 failed with return code list: [0, 1]``), which a paste of a
few lines holds a good share of; the tag words cannot occur by chance, so half the lines carrying them is enough. A
SkyPilot tag is its node's rank: a paste holding only ``worker1``'s lines is node 1's, not node 0's."""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_launcher_prefix import split_launcher

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 72.00 MiB. GPU 0 has a total capacity of 15.89 GiB"
W1 = "(worker1, rank=1, pid=2345, ip=10.0.0.2) "
DRIVER = "ERROR: Job 1 failed with return code list: [0, 1]"


@pytest.mark.parametrize("tail", [DRIVER, "✓ Job finished (status: FAILED).", "Shared connection to 10.0.0.2 closed."],
                         ids=["return-code-list", "job-finished", "ssh-closed"])
def test_a_short_sky_paste_with_a_driver_line_is_worker1s_node(tail):
    text = f"{W1}Traceback (most recent call last):\n{W1}  File \"train.py\", line 3, in <module>\n{W1}{OOM}\n{tail}\n"
    logs, how = split_launcher("sky.txt", text)
    assert how == "sky logs: one node per task (1 of 2: 1)"
    assert [n for n, _ in logs] == ["sky.txt: sky logs 0", "sky.txt: sky logs 1"]
    assert logs[0][1] == "" and logs[1][1].split("\n") == ["Traceback (most recent call last):",
                                                           '  File "train.py", line 3, in <module>', OOM, tail]


def test_a_missing_node_between_two_keeps_the_others_at_their_rank():
    text = "".join(f"(worker{r}, rank={r}, pid=9{r}, ip=10.0.0.{r}) step {s}\n" for s in range(2) for r in (1, 3))
    logs, how = split_launcher("sky.txt", text)
    assert how == "sky logs: one node per task (2 of 4: 1, 3)"
    assert [t.split("\n") if t else [] for _, t in logs] == [[], ["step 0", "step 1"], [], ["step 0", "step 1"]]


def test_every_node_present_reads_as_before():
    text = "(head, rank=0, pid=90) step 0\n(worker1, rank=1, pid=91, ip=10.0.0.1) step 0\n"
    logs, how = split_launcher("sky.txt", text)
    assert how == "sky logs: one node per task (2: 0, 1)" and [t for _, t in logs] == ["step 0", "step 0"]


def test_head_alone_is_one_task_its_tag_taken_off():
    logs, how = split_launcher("sky.txt", f"(head, rank=0, pid=90) step 0\n(head, rank=0, pid=90) {OOM}\n{DRIVER}\n")
    assert how == "sky logs: one task (0), its tag taken off" and logs[0][1].split("\n")[1] == OOM


DET = "[2022-11-14T10:00:00.000000Z] 7a1b2c3d "
DET2 = "[2022-11-14T10:00:01.000000Z] 0f9e8d7c "


def test_a_short_determined_paste_with_the_cli_s_own_lines_is_split():
    text = (f"{DET}[rank=1] || {OOM}\n{DET2}[rank=0] || INFO: step 10\n"
            "Trial 7 failed: process exited with code 1\nWaiting for trial logs...\n")
    logs, how = split_launcher("det.txt", text)
    assert how.startswith("det logs: one node per task (2")
    assert logs[0][1].startswith("2022-11-14T10:00:01.000000Z [rank=0] || INFO") and OOM in logs[1][1]


@pytest.mark.parametrize("text", [
    "0: step 1\n1: step 1\nplain line\nplain line\n",  # srun labels keep the 90 % bar
    "host01: step 1\nplain line\nplain line\n",  # pdsh hosts too
    "(RayTrainWorker pid=1, ip=10.0.0.1) step 1\nplain\n",  # Ray's worker prefix is no SkyPilot node tag
], ids=["srun-label", "pdsh-host", "ray-worker"])
def test_other_tags_keep_the_ninety_percent_bar(text):
    assert split_launcher("x.txt", text) is None
