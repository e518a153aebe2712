"""A log copied out of a page's source (HTML entities) or a numbering viewer (line numbers), repaired."""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_page_copies import decode_entities, strip_line_numbers, web_spaces
from k10s_forensics.parsers.log_paste import repair_paste

LOG = [
    "[1,0]<stderr>:Traceback (most recent call last):",
    '[1,0]<stderr>:  File "train.py", line 3, in <module>',
    "[1,0]<stderr>:    main()",
    "[1,0]<stderr>:KeyError: 'labels'",
    "",
    "Primary job  terminated normally, but 1 process returned a non-zero exit code & was aborted.",
]


@pytest.mark.parametrize("escape", [
    {"<": "&lt;", ">": "&gt;", "'": "&#39;", "&": "&amp;"},
    {"<": "&lt;", ">": "&gt;", "'": "&#x27;", "&": "&amp;"},
    {"<": "&#60;", ">": "&#62;", "'": "&apos;", "&": "&amp;"},
], ids=["named", "hex-apostrophe", "numeric"])
def test_a_page_s_escaping_is_decoded(escape):
    escaped = ["".join(escape.get(ch, ch) for ch in line) for line in LOG]
    lines, note = decode_entities(escaped)
    assert lines == LOG and note == "HTML entities (5 lines)"


@pytest.mark.parametrize("lines", [
    ["step 10 loss=1.2 && echo done", "[rank0]: RuntimeError: a < b"],  # no entity
    ["<html><body>Bad Gateway &amp; retry</body></html>", "[rank1]: RuntimeError: boom"],  # HTML a program wrote
    ["&lt;b&gt; and &lt;i&gt;", "[rank0]: x = a < b"],  # a bare < beside them: the page did not escape it
])
def test_a_log_s_own_ampersands_are_left_alone(lines):
    assert decode_entities(lines) == (lines, None)


def test_markdown_tags_around_an_escaped_paste_do_not_stop_the_decoding():
    lines = ["<details><summary>log</summary>", "<pre>", "[rank0]: in &lt;module&gt;", "[rank0]: KeyError: &#39;x&#39;", "</pre>"]
    assert repair_paste("\n".join(lines)).text.split("\n") == ["[rank0]: in <module>", "[rank0]: KeyError: 'x'"]


@pytest.mark.parametrize(("numbered", "tool"), [
    ([f"{i:6d}\t{line}" for i, line in enumerate(LOG, 1)], "cat -n"),
    ([f"{i:7d} {line}" for i, line in enumerate(LOG, 1)], "less -N"),
    ([f"{i}:{line}" for i, line in enumerate(LOG, 1)], "grep -n ''"),
    ([f"{i:3d} | {line}" if line else f"{i:3d} |" for i, line in enumerate(LOG, 101)], "a gutter from line 101"),
    ([f"{i}  {line}" for i, line in enumerate(LOG, 1)], "two spaces"),
])
def test_line_numbers_are_taken_off_and_indentation_kept(numbered, tool):
    lines, note = strip_line_numbers(numbered)
    assert [ln.rstrip() for ln in lines] == LOG, tool
    assert note == f"line numbers ({len(LOG)} lines)"


@pytest.mark.parametrize("lines", [
    ["0: [rank0]: step 1", "1: [rank1]: step 1", "0: [rank0]: step 2", "1: [rank1]: boom", "0: RuntimeError"],  # srun --label
    ["12 loss=1.0", "12 loss=1.1", "12 loss=0.9", "12 loss=0.8", "12 loss=0.7"],  # a counter that does not go up by one
    ["1 a", "2 b", "3 c"],  # too few lines to tell
    ["0: [rank0]: OOM", "1: [rank1]: OOM", "2: [rank2]: OOM", "3: [rank3]: OOM", "4: [rank4]: OOM"],  # srun --label, in order
    ["1 step", "2 step", "3 step", "x", "y", "z", "4 step", "5 step"],  # most lines carry no number
])
def test_numbers_that_are_the_log_s_own_are_kept(lines):
    assert strip_line_numbers(lines) == (lines, None)


def test_two_lines_numbered_with_a_tab_are_enough():
    assert strip_line_numbers(["     1\t[rank0]: boom", "     2\t"]) == (["[rank0]: boom", ""], "line numbers (2 lines)")


@pytest.mark.parametrize("space", ["\u00a0", "\u202f", "\u2007", "\u2003"], ids=["nbsp", "narrow-nbsp", "figure", "em"])
def test_a_page_s_spaces_become_spaces(space):
    pasted = [line.replace(" ", space) for line in LOG]
    lines, note = web_spaces(pasted)
    assert lines == LOG and note == "non-breaking or zero-width spaces (5 lines)"


def test_zero_width_spaces_go_and_plain_lines_are_left_alone():
    pasted = ["[rank1]: torch.distributed.elastic.\u200bmultiprocessing.errors.\u200bChildFailedError:", "local_\u200brank: 1 (pid: 12)",
              "plain"]
    assert web_spaces(pasted) == (["[rank1]: torch.distributed.elastic.multiprocessing.errors.ChildFailedError:",
                                   "local_rank: 1 (pid: 12)", "plain"], "non-breaking or zero-width spaces (2 lines)")
    assert web_spaces(["plain", "训练 ✓"]) == (["plain", "训练 ✓"], None)
