"""A log pasted through a rich-text editor (smart quotes, smart dashes), kept as markdown's indented code block or
wrapped in a forum's or wiki's code tags, repaired: ``log_quotes.straight_quotes``/``straight_dashes``,
``log_page_copies.dedent_shared`` and ``log_paste``'s markdown step."""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_page_copies import dedent_shared
from k10s_forensics.parsers.log_paste import repair_paste
from k10s_forensics.parsers.log_quotes import straight_dashes, straight_quotes

DESYNC = "             [7] finished collective #182, but didn't join collective #183 (count from 1)"


@pytest.mark.parametrize("word", ["didn't", "can't", "doesn't", "isn't", "rank's", "won't"])
def test_an_editor_s_apostrophe_inside_a_word_is_made_straight(word):
    line = DESYNC.replace("didn't", word.replace("'", "\u2019"))
    assert straight_quotes([line]) == ([DESYNC.replace("didn't", word)], "typographic apostrophes (1 lines)")


def test_a_lone_typographic_quote_between_words_and_spaces_is_left_alone():
    lines = ["see \u2018the docs\u2019 for more", "GCC: \u2018foo\u2019 was not declared"]
    assert straight_quotes(lines) == (lines, None)


@pytest.mark.parametrize("dash", ["\u2014", "\u2013"], ids=["em", "en"])
@pytest.mark.parametrize(("damaged", "meant"), [
    ("{d} Process 0 terminated with the following error:", "-- Process 0 terminated with the following error:"),
    ("  {d} Process 3 terminated with signal SIGKILL", "  -- Process 3 terminated with signal SIGKILL"),
    ("# {d} Process 3 terminated with the following error:", "# -- Process 3 terminated with the following error:"),
    ("python -m torch.distributed.run {d}nproc_per_node=8 {d}nnodes=2 train.py",
     "python -m torch.distributed.run --nproc_per_node=8 --nnodes=2 train.py"),
    ("args=['train.py', '{d}local_rank=3']", "args=['train.py', '--local_rank=3']"),
    ("{d} Boot 0123456789abcdef0123456789abcdef {d}", "-- Boot 0123456789abcdef0123456789abcdef \u2014"),
])
def test_an_editor_s_dash_where_a_log_writes_two_hyphens_is_undone(dash, damaged, meant):
    lines, note = straight_dashes([damaged.format(d=dash)])
    assert lines == [meant.replace("\u2014", dash)] and note == "typographic dashes (1 lines)"


@pytest.mark.parametrize("line", ["epoch 3 \u2014 loss 1.2", "ranks 0\u20137 ready", "a \u2013 b", "plain -- Process"])
def test_a_dash_inside_a_sentence_is_left_alone(line):
    assert straight_dashes([line]) == ([line], None)


TRACEBACK = [
    "Traceback (most recent call last):",
    '  File "train.py", line 3, in <module>',
    "    main()",
    "",
    " 3: srun: error: nid001: task 3: Exited with exit code 1",
]


@pytest.mark.parametrize("indent", ["    ", "\t", "   ", "        "], ids=["markdown", "tab", "three", "eight"])
def test_an_indent_every_line_shares_is_taken_off(indent):
    lines, note = dedent_shared([(indent + line) if line else line for line in TRACEBACK])
    assert lines == TRACEBACK and note == f"shared indent ({len(indent)} columns)"


@pytest.mark.parametrize("lines", [
    TRACEBACK,  # the first line starts at column 0
    ["    main()", "KeyError: 'x'"],  # one line does not share the run
    ["   ", ""],  # blank lines alone
    [" \t a", "\t  b"],  # different runs: nothing shared
    ['  File "t.py", line 3, in f', "    g()"],  # two spaces: a traceback's own frames, pasted alone
])
def test_lines_that_do_not_all_share_an_indent_are_left_alone(lines):
    assert dedent_shared(lines) == (lines, None)


def test_an_indented_fenced_block_loses_its_indent_and_its_fences():
    pasted = "\n".join(["      ```text", *["      " + line if line else line for line in TRACEBACK], "      ```"])
    repaired = repair_paste(pasted)
    assert repaired.text.split("\n") == TRACEBACK
    assert repaired.notes[:2] == ["shared indent (6 columns)", "markdown fences/details (2 lines)"]


@pytest.mark.parametrize(("opening", "closing"), [
    ("[code]", "[/code]"), ("[code=python]", "[/code]"), ("{code}", "{code}"), ("{code:java}", "{code}"),
    ("{code:title=train.log|borderStyle=solid}", "{code}"), ("{noformat}", "{noformat}"),
])
@pytest.mark.parametrize("glued", [True, False], ids=["glued", "own-lines"])
def test_a_forum_s_or_a_wiki_s_code_tags_go(opening, closing, glued):
    body = "\n".join(TRACEBACK)
    pasted = f"{opening}{body}{closing}" if glued else f"{opening}\n{body}\n{closing}\n"
    assert repair_paste(pasted).text.rstrip("\n").split("\n") == TRACEBACK


@pytest.mark.parametrize("line", ["[rank0]: config {code} missing", "{'code': 1, 'msg': 'x'}", "see [code] below"])
def test_code_words_inside_a_log_line_stay(line):
    assert repair_paste(line).text == line
