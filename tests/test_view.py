"""``k10s view`` driven by Textual's Pilot with real keys, over the OOM-crashloop sample:
land on Fleet, go to Jobs, select the culprit rank, press y and read culprit, cascade and
fix; filters, sorting, drill-downs, Esc, ? help, r, and "---" with the reason."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from k10s_forensics.store.bundle import RAW_SCHEMAS
from k10s_forensics.view.app import K10sApp
from k10s_forensics.view.keys import KEYS, VIEWS
from k10s_forensics.view.screens.diagnose import DiagnoseScreen
from k10s_forensics.view.screens.fleet import FleetScreen
from k10s_forensics.view.screens.help import HelpScreen
from k10s_forensics.view.screens.jobs import JobsScreen
from k10s_forensics.view.screens.node import NodeScreen
from k10s_forensics.view.screens.rank import RankScreen
from k10s_forensics.view.screens.table import TableScreen
from k10s_forensics.view.vtable import VirtualTable

from conftest import SAMPLE_BUNDLES
from view_helpers import command, run_app, settle, table_text

OOM = SAMPLE_BUNDLES / "oom-crashloop"
TRUTH = json.loads((SAMPLE_BUNDLES / "oom-crashloop.truth.json").read_text())["expected"][0]
CULPRIT_RANK, CULPRIT_POD = TRUTH["ranks"][0], TRUTH["pods"][0]


async def _cursor_to(app, pilot, predicate) -> None:
    """Press ↓ until the selected row satisfies ``predicate`` (as a user would)."""
    screen = app.screen
    for _ in range(len(screen.shown) + 1):
        row = screen.selected()
        if row is not None and predicate(row):
            return
        await pilot.press("down")
    raise AssertionError(f"no row matched on {type(screen).__name__}: {table_text(screen)[:5]}")


def _diagnosis_text(app) -> str:
    return str(app.screen.query_one("#diagnosis-text").content)


def test_newcomer_reads_culprit_cascade_and_fix():
    async def script(app, pilot):
        assert isinstance(app.screen, FleetScreen)
        assert app.screen.rows, "Fleet is empty"
        await command(app, pilot, "jobs")
        assert isinstance(app.screen, JobsScreen)
        await _cursor_to(app, pilot, lambda r: r.payload.get("rank") == CULPRIT_RANK and not r.header)
        row = app.screen.selected()
        assert "oom-cascade" in str(row.cells[1]), "the culprit rank is not flagged"
        assert f"{CULPRIT_POD.split('/', 1)[1]}" == row.payload["pod"]
        await pilot.press("y")
        await settle(app, pilot)
        assert isinstance(app.screen, DiagnoseScreen)
        text = _diagnosis_text(app)
        assert f"Rank {CULPRIT_RANK} OOM" in text                 # the culprit
        assert "hit NCCL watchdog timeout" in text                # the cascade
        assert "Fix: Reduce the per-rank batch size" in text      # the fix
        assert "Last OOM and headroom" in text and "headroom" in text.split("Last OOM and headroom", 1)[1]
        await pilot.press("escape")
        assert isinstance(app.screen, JobsScreen)

    run_app(OOM, script)


def test_y_on_a_healthy_rank_names_the_job_culprit_not_this_rank():
    async def script(app, pilot):
        await command(app, pilot, "jobs")
        await _cursor_to(app, pilot, lambda r: not r.header and r.payload.get("rank") not in TRUTH["ranks"])
        await pilot.press("y")
        await settle(app, pilot)
        text = _diagnosis_text(app)
        assert "no finding names this rank" in text
        assert "Elsewhere in this job" in text and f"Rank {CULPRIT_RANK}" in text

    run_app(OOM, script)


def test_filter_sort_and_escape():
    async def script(app, pilot):
        await command(app, pilot, "jobs")
        screen = app.screen
        total = len(screen.shown)
        await pilot.press("slash", *CULPRIT_POD.split("/", 1)[1][-5:])
        await settle(app, pilot)
        assert 0 < len(screen.shown) < total
        assert all(CULPRIT_POD.split("/", 1)[1][-5:] in " ".join(table_text(screen)) for _ in [0])
        await pilot.press("enter")         # keep the filter, back to the table
        assert screen.filter_text and len(screen.shown) < total
        await pilot.press("escape")        # Esc clears the filter
        assert not screen.filter_text and len(screen.shown) == total
        await pilot.press("slash", *"no-such-row-zzz", "enter")
        assert screen.shown == [] and "no row matches" in str(screen.query_one("#absent").content)
        await pilot.press("escape")
        await pilot.press("slash", *"a/qwen", "enter")      # '/' and ':' inside the prompt are characters
        assert screen.filter_text == "a/qwen" and screen.shown and screen.shown[0].header
        await pilot.press("escape")
        await pilot.press("greater_than_sign")              # sort by RANK
        ranks = [r.payload["rank"] for r in screen.shown if not r.header]
        assert ranks == sorted(ranks)
        await pilot.press("exclamation_mark")               # reverse
        ranks = [r.payload["rank"] for r in screen.shown if not r.header]
        assert ranks == sorted(ranks, reverse=True)
        assert screen.shown[0].header, "the job's own row stays on top of its ranks"

    run_app(OOM, script)


def test_drill_down_node_gpu_rank_and_back():
    async def script(app, pilot):
        fleet = app.screen
        await _cursor_to(app, pilot, lambda r: r.key == TRUTH["nodes"][0])
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, NodeScreen)
        gpus = app.screen.rows
        assert gpus and TRUTH["gpus"][0] in {r.key for r in gpus}
        assert all(any(ch in str(r.cells[3]) for ch in "▁▂▃▄▅▆▇█") for r in gpus), "activity sparklines missing"
        await _cursor_to(app, pilot, lambda r: r.key == TRUTH["gpus"][0])
        await pilot.press("enter")
        await settle(app, pilot)
        assert isinstance(app.screen, RankScreen) and app.screen.rank == CULPRIT_RANK
        kinds = {r.payload["kind"] for r in app.screen.rows}
        assert "cuda_oom" in kinds, kinds
        assert any("CUDA out of memory" in str(r.cells[3]) for r in app.screen.rows), "the log lines themselves"
        assert "sockets:" in str(app.screen.query_one("#info").content)
        await pilot.press("escape")
        assert isinstance(app.screen, NodeScreen)
        await pilot.press("escape")
        assert app.screen is fleet

    run_app(OOM, script)


def test_every_view_by_command_and_unknown_command():
    async def script(app, pilot):
        seen = {}
        for name in VIEWS:
            await command(app, pilot, name, typed=True)  # key by key, as a user types
            screen = app.screen
            assert isinstance(screen, TableScreen) and screen.loaded, name
            assert screen.rows or screen.absent, f":{name} shows neither rows nor a reason"
            seen[name] = screen
        assert "Kueue not present" in str(seen["queue"].query_one("#absent").content)
        assert seen["findings"].rows[0].payload["rule"] == "oom-cascade"
        assert any(r.payload.get("kind") == "cuda_oom" for r in seen["logs"].rows)
        await command(app, pilot, "nonsense", typed=True)
        assert app.screen is seen["logs"]

    run_app(OOM, script)


def test_help_lists_every_key():
    bound = {b.key for cls in (K10sApp, TableScreen, VirtualTable) for b in cls.BINDINGS}
    names = {"slash": "/", "colon": ":fleet", "y": "y", "escape": "Esc", "less_than_sign": "< >", "greater_than_sign": "< >",
             "exclamation_mark": "!", "question_mark": "?", "r": "r", "d": "d", "s": "s", "R": "R", "q": "q",
             "up": "↑ ↓ PgUp PgDn", "down": "↑ ↓ PgUp PgDn", "pageup": "↑ ↓ PgUp PgDn", "pagedown": "↑ ↓ PgUp PgDn",
             "ctrl+home": "Ctrl+Home Ctrl+End", "ctrl+end": "Ctrl+Home Ctrl+End", "enter": "Enter",
             "left": "← → Home End", "right": "← → Home End", "home": "← → Home End", "end": "← → Home End"}
    assert bound <= set(names), f"a key without a help entry: {bound - set(names)}"
    listed = {k for k, _ in KEYS}
    assert {names[b] for b in bound} <= listed

    async def script(app, pilot):
        await pilot.press("question_mark")
        assert isinstance(app.screen, HelpScreen)
        text = str(app.screen.query_one("#help-text").content)
        for key, what in KEYS:
            assert key in text and what in text
        await pilot.press("escape")
        assert isinstance(app.screen, FleetScreen)

    run_app(OOM, script)


def test_r_writes_the_report(tmp_path):
    out = tmp_path / "view-report.html"

    async def script(app, pilot):
        await pilot.press("r")
        await settle(app, pilot, timeout_s=120)
        return app.last_report

    written = run_app(OOM, script, report_path=out)
    assert written == out and out.stat().st_size > 100_000
    html = out.read_text(encoding="utf-8")
    assert "<html" in html.lower() and f"Rank {CULPRIT_RANK}" in html


@pytest.fixture
def bundle_without_ss(tmp_path) -> Path:
    """The OOM sample with every ss recording turned into 'ss: not found' (tables rebuilt)."""
    dest = tmp_path / "no-ss"
    shutil.copytree(OOM, dest)
    path = dest / "raw" / "exec.parquet"
    rows = pq.read_table(path).to_pylist()
    for r in rows:
        if r["source"] == "ss":
            r.update(exit_code=127, stdout="", stderr="sh: ss: not found", error=None)
    pq.write_table(pa.Table.from_pylist(rows, schema=RAW_SCHEMAS["exec"]), path, compression="zstd")
    shutil.rmtree(dest / "tables")
    return dest


def test_absent_source_is_dashes_with_the_reason(bundle_without_ss):
    async def script(app, pilot):
        await command(app, pilot, "jobs")
        await _cursor_to(app, pilot, lambda r: r.payload.get("rank") == CULPRIT_RANK and not r.header)
        await pilot.press("y")
        await settle(app, pilot)
        text = _diagnosis_text(app)
        sockets = text.split("Sockets (ss in the pod)", 1)[1].strip().splitlines()[0]
        assert sockets.startswith("--- (") and "no TCP socket samples" in sockets, sockets
        assert f"Rank {CULPRIT_RANK} OOM" in text  # the rest of the diagnostic still works

    run_app(bundle_without_ss, script)


def test_prefetch_ending_while_the_app_quits_adds_no_screen():
    """The background prefetch hands its screens over (``_prepare_modes``) whenever it ends; if the
    user has just quit, Textual is closing the screen stacks and a new one broke it (a
    RuntimeError on quitting). Once the app stops running, the hand-over does nothing."""
    async def script(app, pilot):
        # views the prefetch may already have made are set aside, so there is always one to make
        aside = {m: app._screen_stacks.pop(m) for m in list(app._screen_stacks) if m in app.MODES and m != app.current_mode}
        stacks = set(app._screen_stacks)
        app._running = False  # what Textual's shutdown sets first
        try:
            app._prepare_modes()
            assert set(app._screen_stacks) == stacks
        finally:
            app._running = True
            app._screen_stacks.update(aside)
        app._prepare_modes()  # running: the views are made ahead, as before
        assert set(app._screen_stacks) >= set(app.MODES)

    run_app(SAMPLE_BUNDLES / "healthy", script)


def test_live_tick_while_the_app_quits_is_quiet():
    """Live mode's banner timer may fire while Textual closes the screens (it stops running, then
    empties each stack): it broke the shutdown with a ScreenStackError on quitting. Now it waits."""
    async def script(app, pilot):
        stack = app._screen_stacks[app.current_mode]
        screens = list(stack)
        app._running = False  # what Textual's shutdown sets first, before emptying the stacks
        stack.clear()
        try:
            app.tick()
        finally:
            stack.extend(screens)
            app._running = True
        app.tick()  # running: the banner is drawn as before

    run_app(SAMPLE_BUNDLES / "healthy", script)
