"""``k10s view`` on a bundle far larger than one screen (256 ranks; 45 rows fit): the table
renders only the lines on screen, yet the cursor reaches the last row, a filter finds a
row beyond the first page, sorting orders the whole set, and ``y`` on a row beyond the
first page diagnoses that row. Filter and sort run in DuckDB: their order is checked
against the plain Python ordering the views always had, for every column, both
directions, with and without a filter."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from k10s_forensics.view.rowindex import RowIndex
from k10s_forensics.view.screens.diagnose import DiagnoseScreen
from k10s_forensics.view.screens.jobs import JobsScreen
from k10s_forensics.view.screens.queue import QueueScreen
from k10s_forensics.view.screens.table import Row
from k10s_forensics.view.data import ViewData
from k10s_forensics.view.vtable import VirtualTable

from conftest import REPO, SAMPLE_BUNDLES
from view_helpers import command, run_app, settle

GPUS = 256
OOM_RANK = GPUS - 5  # the synthetic bundle's OOM culprit (benchmarks/bench_analyze.py)


@pytest.fixture(scope="module")
def big_bundle(tmp_path_factory) -> Path:
    """The benchmark's synthetic bundle (one PyTorchJob, OOM on rank 251, a throttled rank
    and a bad NIC), 256 GPUs x 10 minutes."""
    spec = importlib.util.spec_from_file_location("bench_analyze", REPO / "benchmarks" / "bench_analyze.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = tmp_path_factory.mktemp("view-large") / "bundle"
    bench.generate(out, GPUS, 10, 10)
    return out


@pytest.fixture(scope="module")
def big_data(big_bundle):
    """The big bundle opened once for the app tests: its analysis (~2 s of CPU) and views are
    built once, as one ``k10s view`` session builds them once whatever the user does."""
    data = ViewData.open(big_bundle)
    yield data
    data.close()


def _page(app) -> int:
    return app.screen.query_one(VirtualTable)._page


def _cursor_line(app) -> str:
    """The text of the table line the cursor is on, as painted."""
    table = app.screen.query_one(VirtualTable)
    return table.render_line(table.cursor_row - round(table.scroll_y) + 1).text


def _rank_rows(screen) -> list[Row]:
    return [r for r in screen.shown if not r.header]


def test_only_the_lines_on_screen_are_rendered_and_the_cursor_reaches_the_last_row(big_data):
    async def script(app, pilot):
        await command(app, pilot, "jobs")
        screen = app.screen
        assert isinstance(screen, JobsScreen) and len(screen.shown) == GPUS + 1
        rendered = [r for r in screen.rows if getattr(r, "_line", None) is not None]
        assert 0 < len(rendered) <= _page(app) + 2, f"{len(rendered)} rows rendered for a page of {_page(app)}"
        await pilot.press("ctrl+end")
        await settle(app, pilot)
        assert screen.selected() is screen.shown[-1] and screen.selected().payload["rank"] == GPUS - 1
        assert _cursor_line(app).split()[0] == str(GPUS - 1), "the last row is on screen under the cursor"
        await pilot.press("ctrl+home")
        assert screen.selected() is screen.shown[0]
        for _ in range(GPUS // _page(app) + 2):  # PgDn as far as it goes: the last row, never past it
            await pilot.press("pagedown")
        await settle(app, pilot)
        assert screen.selected() is screen.shown[-1]
        assert _cursor_line(app).split()[0] == str(GPUS - 1)
        table = screen.query_one(VirtualTable)
        await pilot.press("end")  # sideways, as in DataTable: the last columns
        await settle(app, pilot)
        assert table.scroll_x == table.max_scroll_x > 0 and "PODS" in table.render_line(0).text
        await pilot.press("home")
        await settle(app, pilot)
        assert table.scroll_x == 0 and table.render_line(0).text.split()[0] == "RANK"

    run_app(big_data, script)


def test_filter_finds_a_row_beyond_the_first_page_and_y_diagnoses_it(big_data):
    async def script(app, pilot):
        await command(app, pilot, "jobs")
        screen = app.screen
        position = next(i for i, r in enumerate(screen.shown) if r.payload.get("rank") == OOM_RANK and not r.header)
        assert position > 3 * _page(app), "the culprit is not beyond the first pages"
        await pilot.press("slash", *"oom-cascade", "enter")
        await settle(app, pilot)
        ranks = [r.payload["rank"] for r in _rank_rows(screen)]
        assert ranks == [OOM_RANK], ranks
        await pilot.press("escape")  # clears the filter: the cursor is in the full list again
        assert len(screen.shown) == GPUS + 1
        # walk there as a user does, ↓ by ↓ (well, PgDn first), then y
        while screen.query_one(VirtualTable).cursor_row + _page(app) < position:
            await pilot.press("pagedown")
        while screen.selected().payload.get("rank") != OOM_RANK:
            await pilot.press("down")
        await settle(app, pilot)
        assert _cursor_line(app).split()[0] == str(OOM_RANK)
        await pilot.press("y")
        await settle(app, pilot)
        assert isinstance(app.screen, DiagnoseScreen)
        text = str(app.screen.query_one("#diagnosis-text").content)
        assert f"rank {OOM_RANK}" in text and f"Rank {OOM_RANK} ran out of GPU memory" in text
        assert "Fix:" in text
        await pilot.press("escape")
        assert app.screen is screen and screen.selected().payload["rank"] == OOM_RANK

    run_app(big_data, script)


def test_sort_orders_the_whole_set(big_data):
    async def script(app, pilot):
        await command(app, pilot, "jobs")
        screen = app.screen
        await pilot.press("greater_than_sign")  # RANK
        await pilot.press("exclamation_mark")   # descending: the last page's rows come first
        ranks = [r.payload["rank"] for r in _rank_rows(screen)]
        assert ranks == list(range(GPUS - 1, -1, -1))
        assert screen.shown[0].header and _cursor_line(app).split()[0] == "▾"
        await pilot.press("down")
        assert _cursor_line(app).split()[0] == str(GPUS - 1)
        await pilot.press("greater_than_sign", "greater_than_sign")  # FLAG, POD ... still over every row
        await pilot.press("greater_than_sign", "greater_than_sign", "greater_than_sign", "greater_than_sign")  # ACT %
        assert screen.sort_col == 6 and screen.sort_desc
        acts = [r.sort[6] for r in _rank_rows(screen)]
        assert acts == sorted(acts, reverse=True) and len(acts) == GPUS
        assert _rank_rows(screen)[0].payload["rank"] == 85, "the busiest GPU (the throttled straggler) first"

    run_app(big_data, script)


# -- DuckDB's order == the views' Python order ------------------------------------------------


def _python_order(rows: list[Row], needle: str, col: int | None, desc: bool) -> list[Row]:
    """The views' ordering as it was written in Python before it moved to DuckDB."""
    def value(v: Any) -> tuple:
        if v is None:
            return (1, 0, "")
        if isinstance(v, (int, float)):
            return (0, float(v), "")
        return (0, 0, str(v))

    out = [r for r in rows if not needle or needle in r.text]
    if col is not None:
        groups: dict[str, int] = {}
        for r in out:
            groups.setdefault(r.group, len(groups))
        out.sort(key=lambda r: value(r.sort[col] if col < len(r.sort) else r.cells[col]), reverse=desc)
        out.sort(key=lambda r: (groups[r.group], not r.header))
    return out


def _same_order(rows: list[Row], columns: int, needles: tuple[str, ...]) -> None:
    index = RowIndex(rows, columns)
    try:
        for needle in needles:
            for col in (None, *range(columns)):
                for desc in (False, True):
                    got = [rows[i] for i in index.order(needle, col, desc)]
                    want = _python_order(rows, needle, col, desc)
                    assert [r.key for r in got] == [r.key for r in want], (needle, col, desc)
    finally:
        index.close()


def test_duckdb_filter_and_sort_give_the_python_order_on_every_column(big_bundle):
    from k10s_forensics.view.data import ViewData

    data = ViewData.open(big_bundle)
    try:
        rows = JobsScreen.load(data)
        _same_order(rows, len(JobsScreen.COLUMNS), ("", "worker-1", "oom", "gpu-node-0010", "no-such-row"))
    finally:
        data.close()


def test_duckdb_order_keeps_groups_in_first_appearance_order_with_mixed_values():
    """Groups (a queue's workloads under it), absent values, numbers before text, ties,
    non-ASCII text, and a group whose rows are not contiguous."""
    rows = [
        Row("h:b", ["ClusterQueue b", "", 1], sort=["b", None, 1], group="b", header=True),
        Row("b1", ["  wl-β", "pending", 4], sort=["wl-β", "pending", 4], group="b"),
        Row("b2", ["  wl-a", "admitted", None], sort=["wl-a", "admitted", None], group="b"),
        Row("h:a", ["ClusterQueue a", "", 2], sort=["a", None, 2], group="a", header=True),
        Row("a1", ["  x", "pending", 2.5], sort=["x", "pending", 2.5], group="a"),
        Row("a2", ["  y", "pending", "7"], sort=["y", "pending", "7"], group="a"),
        Row("a3", ["  z", "pending", 2.5], sort=["z", "pending", 2.5], group="a"),
        Row("b3", ["  wl-c", "Pending", 0], sort=["wl-c", "Pending", 0], group="b"),
        Row("u1", ["  loose", "", True], sort=["loose", None, True], group=""),
    ]
    _same_order(rows, 3, ("", "pending", "wl", "β", "queue"))


def test_queue_view_on_a_sample_sorts_and_filters_as_before():
    async def script(app, pilot):
        await command(app, pilot, "queue")
        screen = app.screen
        assert isinstance(screen, QueueScreen) and screen.rows
        _same_order(screen.rows, len(QueueScreen.COLUMNS), ("", "pending", "team", "zzz"))

    run_app(SAMPLE_BUNDLES / "pending-quota", script)


def test_a_click_moves_the_cursor_and_a_click_on_it_drills_down(big_data):
    from k10s_forensics.view.screens.rank import RankScreen

    async def script(app, pilot):
        await command(app, pilot, "jobs")
        screen = app.screen
        await pilot.press("pagedown", "pagedown")
        await settle(app, pilot)
        table = screen.query_one(VirtualTable)
        top = round(table.scroll_y)
        assert top > 0, "scrolled down"
        await pilot.click(VirtualTable, offset=(3, 0))  # the header line: nothing happens
        assert table.cursor_row == 2 * _page(app)
        await pilot.click(VirtualTable, offset=(3, 5))
        assert table.cursor_row == top + 4
        rank = screen.selected().payload["rank"]
        await pilot.click(VirtualTable, offset=(3, 5))
        await settle(app, pilot)
        assert isinstance(app.screen, RankScreen) and app.screen.rank == rank

    run_app(big_data, script)


def test_cell_styles_are_drawn_flag_red_and_idle_amber():
    """A cell's own style (a Text with no spans) reaches the terminal: the culprit's flag
    is white on red, an idle node's IDLE cell is on dark orange, and only the text is."""
    from k10s_forensics.view.screens.fleet import FleetScreen

    def styled(line, needle: str):
        return [seg for seg in line if needle in seg.text and seg.style is not None and seg.style.bgcolor is not None]

    async def jobs(app, pilot):
        await command(app, pilot, "jobs")
        table = app.screen.query_one(VirtualTable)
        culprit = next(r for r in app.screen.shown if not r.header and "oom-cascade" in str(r.cells[1]))
        segs = styled(table._row_line(culprit), "oom-cascade")
        assert segs and segs[0].style.bgcolor.name == "red" and segs[0].style.bold

    async def fleet(app, pilot):
        assert isinstance(app.screen, FleetScreen)
        table = app.screen.query_one(VirtualTable)
        idle = next(r for r in app.screen.shown if "idle" in str(r.cells[1]))
        segs = styled(table._row_line(idle), "idle")
        assert segs and segs[0].style.bgcolor.name == "dark_orange" and segs[0].text == str(idle.cells[1])

    run_app(SAMPLE_BUNDLES / "oom-crashloop", jobs)
    run_app(SAMPLE_BUNDLES / "idle-gpus", fleet)
