"""``repair_paste`` (parsers/log_paste.py): each shape undone, and what must stay as it is."""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_paste import repair_paste
from paste_damage import bullets, double_space, fences_quotes, nested_quotes, wrap

LOG = "\n".join([
    "[rank0]:[E ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=43459, "
    "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600034 milliseconds before timing out.",
    "[rank1]:[E ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=43459, "
    "OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600035 milliseconds before timing out.",
    "",
    "Traceback (most recent call last):",
    '  File "train.py", line 3, in <module>',
    "RuntimeError: boom",
])


def test_a_plain_log_is_left_alone():
    r = repair_paste(LOG)
    assert r.text == LOG and r.notes == []


@pytest.mark.parametrize("damage,note", [
    (double_space, "double spacing"),
    (lambda t: t.replace("\n", "\r\n"), "CRLF line ends"),
    (lambda t: t.replace("\n", "\r"), "carriage returns"),
    (lambda t: "\n".join(f"\x1b[32m{ln}\x1b[0m\x1b[K" for ln in t.split("\n")), "ANSI codes"),
    (fences_quotes, "> quoting (depth 1)"),
    (nested_quotes, "> quoting (depth 2)"),
    (bullets, "list bullets"),
    (lambda t: wrap(t, 80, True), "terminal wrapping at 80 columns (4 lines joined) with padding"),
    (lambda t: wrap(t, 100, False), "terminal wrapping at 100 columns (4 lines joined)"),
    (lambda t: wrap(t, 57, True), "terminal wrapping at 57 columns (6 lines joined) with padding"),
], ids=["double-space", "crlf", "lone-cr", "ansi", "fences-quotes", "nested-quotes", "bullets", "wrap-80-padded", "wrap-100",
        "wrap-57-padded"])
def test_each_shape_is_undone(damage, note):
    r = repair_paste(damage(LOG))
    assert [ln.rstrip() for ln in r.text.split("\n")] == LOG.split("\n")
    assert note in r.notes


def test_double_spacing_keeps_the_logs_own_blank_lines():
    r = repair_paste(double_space("a line\nanother\n\n\nafter two blank lines\nlast"))
    assert r.text.split("\n") == ["a line", "another", "", "", "after two blank lines", "last"]


@pytest.mark.parametrize("times", [2, 3])
def test_a_double_spaced_paste_copied_double_spaced_again(times):
    text = LOG
    for _ in range(times):
        text = double_space(text)
    r = repair_paste(text.replace("\n", "\r\n"))
    assert r.text.split("\n") == LOG.split("\n") and "double spacing" in r.notes


def test_one_wrapped_line_double_spaced_is_joined_again():
    """Two rows cut at one terminal width with a blank line between: too few lines to call the paste
    double spaced by its gaps alone, but the cut says so (a one-line launcher report pasted from a page)."""
    line = ("[2025-08-15 16:52:01,935] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -8) "
            "local_rank: 0 (pid: 3175446) of binary: /opt/conda/bin/python3.10")
    r = repair_paste(double_space(wrap(line, 100, pad=True)))
    assert r.text.rstrip() == line and "double spacing" in r.notes
    assert repair_paste("first line\n\nsecond line").text == "first line\n\nsecond line"  # no cut: not double spaced


def test_a_log_with_some_blank_lines_is_not_double_spaced():
    text = "one\n\ntwo\nthree\n\nfour\nfive"
    assert repair_paste(text).text == text


@pytest.mark.parametrize("text", [
    # the same longest line twice (two ranks), and lines that merely fill the width: no terminal
    "x" * 30 + "\n" + "[rank0]: " + "a" * 91 + "\n" + "[rank1]: " + "a" * 91 + "\nshort",
    # failure table: separator lines as wide as the widest field
    "  traceback : Signal 9 (SIGKILL) received by PID 16\n" + "-" * 51 + "\nRoot Cause (first observed failure):\n"
    + "  traceback : Signal 9 (SIGKILL) received by PID 17\n" + "-" * 51,
    # a rich box: every line as wide as the console
    "╭" + "─" * 60 + "╮\n│ /opt/conda/bin/accelerate:8 in <module>" + " " * 20 + " │\n│" + " " * 60 + "│\n╰" + "─" * 60 + "╯",
    # a traceback frame line, then its code line
    '  File "/usr/lib/python3.8/site-packages/torch/distributed/run.py", line 345, in wrapper\n    return f(*args)\n'
    '  File "/usr/lib/python3.8/site-packages/torch/distributed/run.py", line 762, in mainxx\n    run(args)',
], ids=["repeated-longest-line", "failure-table", "rich-box", "traceback-frames"])
def test_lines_that_fill_a_width_by_design_are_not_joined(text):
    assert repair_paste(text).text == text


def test_html_lines_of_a_collapsed_block_go_but_a_log_in_angle_brackets_stays():
    text = "<details>\n<summary>Click to expand</summary>\n<frozen importlib._bootstrap>\nRuntimeError: x\n</details>"
    assert repair_paste(text).text == "<frozen importlib._bootstrap>\nRuntimeError: x"


@pytest.mark.parametrize("head", [
    'time="2024-02-21T09:30:56Z" level=info msg="PyTorchJob=mnist, ReplicaType=Master expected=1, running=1, succeeded=0, failed=0, Replicas=1"',
    '1.708507856644096e+09\tDEBUG\tevents\tError pod mnist-worker-0 container pytorch exitCode: 1 terminated message: \t{"type": "Warning", "x": 1}',
    '1708507856.644096\tINFO\tcontroller\tReconciling PyTorchJob mnist in namespace team-a, worker replicas 3, master replicas 1 {"job": "mnist"}',
])
def test_go_controller_records_start_a_line_of_their_own(head):
    """A training operator's logrus (``time="…"``) and zap (epoch seconds) lines, wrapped with
    padding: each record starts a line again (was: the whole log joined into one line)."""
    log = "\n".join([head, head.replace("mnist", "bert"), head.replace("mnist", "gpt2")])
    assert repair_paste(wrap(log)).text.split("\n") == log.split("\n")
