"""A code view's empty table cells on every copied row (real incidents batch 39; parsers/log_page_copies.py
``strip_table_cells``, docs/import.md).

* A gist's, a repository's or Hugging Face's file view lays a log out as a table; copied, each row keeps the empty
  cells after its code (``[rank14]: Traceback (most recent call last): | |``), sometimes the opening ``| `` too. The
  line no longer ends where the program ended it, so wordings anchored at the end (a traceback's header, an
  exception's last line) are not read. When most rows end so, the cells are taken off; a markdown table (its rows end
  in one ``|`` after a word), one line with a ``| |`` or a minority of such lines is left alone.
"""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_page_copies import strip_table_cells
from k10s_forensics.parsers.log_paste import repair_paste

GIST = ["ME: | |",
        "[rank14]: Traceback (most recent call last): | |",
        '[rank14]: File "<frozen runpy>", line 198, in _run_module_as_main | |',
        "[rank14]: fire.Fire(do_cli) | |"]


@pytest.mark.parametrize("rows, want", [
    # a gist page: each row followed by its two empty cells
    (GIST, ["ME:", "[rank14]: Traceback (most recent call last):", '[rank14]: File "<frozen runpy>", line 198, in _run_module_as_main',
            "[rank14]: fire.Fire(do_cli)"]),
    # trailing blanks after the cells, as a copy keeps them
    ([r + "  " for r in GIST[1:]], ["[rank14]: Traceback (most recent call last):",
                                    '[rank14]: File "<frozen runpy>", line 198, in _run_module_as_main', "[rank14]: fire.Fire(do_cli)"]),
    # a view that copies the row's opening cell too (Hugging Face's file view)
    (["| 0: Initialized rank 0 | |", "| 1: Initialized rank 1 | |", "| 0: CUDA error: invalid device context | |"],
     ["0: Initialized rank 0", "1: Initialized rank 1", "0: CUDA error: invalid device context"]),
    # the last row cut mid-line by the copy has no cells: the rest are still taken off
    (GIST + ["[rank14]: File \"/scratch/train.py"], [g[:-4] for g in GIST] + ["[rank14]: File \"/scratch/train.py"]),
])
def test_a_code_views_cells_are_taken_off(rows, want):
    assert strip_table_cells(rows)[0] == want
    assert strip_table_cells(rows)[1].startswith("code-view table cells")


@pytest.mark.parametrize("rows", [
    # a markdown table: rows end in one bar after a word
    ["| rank | exit |", "|---|---|", "| 0 | -9 |", "| 1 | 1 |"],
    # one row with empty cells among log lines
    ["[rank0]: step 1 | |", "[rank0]: step 2", "[rank0]: step 3", "[rank0]: step 4"],
    # too few rows to tell a view from a log
    ["x | |", "y | |"],
])
def test_other_bars_are_left_alone(rows):
    assert strip_table_cells(rows) == (rows, None)


def test_the_paste_repair_reads_the_cut_traceback_under_a_code_view():
    repaired = repair_paste("\n".join(GIST))
    assert repaired.text.splitlines()[1] == "[rank14]: Traceback (most recent call last):"
    assert any(n.startswith("code-view table cells") for n in repaired.notes)
