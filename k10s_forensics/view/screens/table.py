"""The screen every view is made of: a title line, a banner (live state), one DataTable,
a prompt for ``/`` filters and ``:`` commands, and a status line.

A view subclass only says how to load its rows from :class:`ViewData` (run in a worker
thread, never on the UI thread), what ``y`` diagnoses and what Enter opens. Filtering
(substring over the row's text), sorting (``<``/``>`` choose the column, ``!`` reverses;
rows of one group stay together) and "---" with the reason for an empty view live here.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Input, Static

from ..diagnose import Target


@dataclass
class Row:
    """One table row: its cells, sort values and what ``y``/Enter act on."""

    key: str
    cells: list[Any]
    sort: list[Any] = field(default_factory=list)
    group: str = ""          # rows of a group stay together when sorting
    header: bool = False     # the group's own row (sorted first within its group)
    target: Target | None = None
    payload: dict[str, Any] = field(default_factory=dict)
    style: str = ""

    def __post_init__(self) -> None:
        # cells become rich Text here, in the loading thread, not on the UI thread
        self.cells = [c if isinstance(c, Text) else Text(str(c), style=self.style) for c in self.cells]
        self.text = " ".join(c.plain for c in self.cells).lower()


class FixedTable(DataTable):
    """A DataTable whose columns all have a fixed width and whose rows are one line high:
    nothing to measure when rows arrive (DataTable measures every cell of every new row,
    which takes most of a view switch on a 1024-rank job)."""

    def _update_dimensions(self, new_rows) -> None:
        if any(c.auto_width for c in self.columns.values()):
            super()._update_dimensions(new_rows)


def _sort_value(v: Any) -> tuple:
    if v is None:
        return (1, 0, "")
    if isinstance(v, (int, float)):
        return (0, float(v), "")
    return (0, 0, str(v))


class TableScreen(Screen):
    """Base of every view; subclasses set ``TITLE``/``COLUMNS`` and implement ``load``."""

    TITLE = ""
    COLUMNS: tuple[str, ...] = ()
    WIDTHS: tuple[int, ...] = ()  # cells per column; longer text is cut (Enter/y show it whole)
    BINDINGS = [
        # priority: they run before keys already queued behind them (typed fast, or by tmux)
        # reach the table; inside the open prompt they are ordinary characters
        Binding("slash", "prompt('/')", "filter", priority=True),
        Binding("colon", "prompt(':')", "command", priority=True),
        Binding("y", "diagnose", "why?"),
        Binding("escape", "back", "back"),
        Binding("less_than_sign", "sort_column(-1)", "sort ←", show=False),
        Binding("greater_than_sign", "sort_column(1)", "sort →", show=False),
        Binding("exclamation_mark", "sort_reverse", "reverse", show=False),
    ]

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        self.rows: list[Row] = []
        self.shown: list[Row] = []
        self.filter_text = ""
        self.sort_col: int | None = None
        self.sort_desc = False
        self.absent: str | None = None
        self.loaded = False
        self._prompt_kind = ""

    def compose(self) -> ComposeResult:
        yield Static(self.TITLE, id="title")
        yield Static("", id="banner")
        yield Static("", id="info")
        yield FixedTable(id="table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="absent")
        yield Input(id="prompt")
        yield Static("", id="status")

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        for label, width in zip(self.COLUMNS, self.WIDTHS or (None,) * len(self.COLUMNS)):
            table.add_column(label, width=width)
        self.query_one("#prompt", Input).display = False
        self.query_one("#info", Static).display = False
        self.app.refresh_banner(self)
        self.reload()

    def on_screen_resume(self) -> None:
        self.app.refresh_banner(self)
        if getattr(self, "_data_generation", None) != self.app.data_generation:
            self.reload()

    # -- loading ---------------------------------------------------------------------------

    def load(self, data) -> list[Row]:  # pragma: no cover - every view implements it
        raise NotImplementedError

    def absent_reason(self, data) -> str | None:
        """Why the view is empty (``---`` + reason), asked only when it is."""
        return None

    def reload(self) -> None:
        self._data_generation = self.app.data_generation
        if self.app.data is None:
            self._show([], "waiting for the first capture round…")
            return
        self.query_one("#status", Static).update("loading…")
        self._load_rows(self.app.data)

    @work(thread=True, exclusive=True, group="load")
    def _load_rows(self, data) -> None:
        try:
            rows = self.load(data)
            absent = None if rows else (self.absent_reason(data) or "nothing to show")
        except Exception as exc:  # shown, never a traceback: the view says what failed
            rows, absent = [], f"could not load this view: {exc.__class__.__name__}: {exc}"
        self.app.call_from_thread(self._show, rows, absent)

    def _show(self, rows: list[Row], absent: str | None) -> None:
        self.rows, self.absent, self.loaded = rows, absent, True
        self.render_rows()
        self.app.view_loaded(self)

    def render_rows(self) -> None:
        table = self.query_one(DataTable)
        cursor = table.cursor_row
        needle = self.filter_text.lower()
        rows = [r for r in self.rows if not needle or needle in r.text]
        if self.sort_col is not None:
            col = self.sort_col
            groups: dict[str, int] = {}
            for r in rows:
                groups.setdefault(r.group, len(groups))
            rows.sort(key=lambda r: _sort_value(r.sort[col] if col < len(r.sort) else r.cells[col]), reverse=self.sort_desc)
            rows.sort(key=lambda r: (groups[r.group], not r.header))
        self.shown = rows
        table.clear()
        for r in rows:
            table.add_row(*r.cells, key=r.key)
        if rows:
            table.move_cursor(row=min(max(cursor, 0), len(rows) - 1))
        absent = self.query_one("#absent", Static)
        absent.update(f"--- {self.absent}" if self.absent else ("--- no row matches the filter" if self.rows and not rows else ""))
        absent.display = bool(self.absent) or (bool(self.rows) and not rows)
        sort = f" · sorted by {self.COLUMNS[self.sort_col]}{' ↓' if self.sort_desc else ' ↑'}" if self.sort_col is not None else ""
        filt = f" · filter /{self.filter_text}" if self.filter_text else ""
        self.query_one("#status", Static).update(f"{len(rows)} of {len(self.rows)} rows{filt}{sort} · ? help")

    # -- selection -------------------------------------------------------------------------

    def selected(self) -> Row | None:
        table = self.query_one(DataTable)
        if not self.shown or table.cursor_row < 0 or table.cursor_row >= len(self.shown):
            return None
        return self.shown[table.cursor_row]

    def select_key(self, key: str) -> bool:
        """Move the cursor to the row with this key (tests and drill-downs use it)."""
        for i, r in enumerate(self.shown):
            if r.key == key:
                self.query_one(DataTable).move_cursor(row=i)
                return True
        return False

    def drill(self, row: Row) -> Screen | None:
        """The screen Enter opens for ``row`` (None: nothing below it)."""
        return None

    @on(DataTable.RowSelected)
    def _enter(self, event: DataTable.RowSelected) -> None:
        row = self.selected()
        screen = self.drill(row) if row else None
        if screen is not None:
            self.app.push_screen(screen)

    def action_diagnose(self) -> None:
        row = self.selected()
        if row is None or row.target is None:
            self.app.notify("nothing to diagnose on this row", severity="warning")
            return
        from .diagnose import DiagnoseScreen

        self.app.push_screen(DiagnoseScreen(row.target))

    def action_back(self) -> None:
        prompt = self.query_one("#prompt", Input)
        if prompt.display:
            prompt.display = False
            self.query_one(DataTable).focus()
        elif self.filter_text:
            self.filter_text = ""
            self.render_rows()
        elif len(self.app.screen_stack) > 1:
            self.app.pop_screen()

    # -- sorting, filter and command prompt -----------------------------------------------

    def action_sort_column(self, step: int) -> None:
        n = len(self.COLUMNS)
        self.sort_col = (0 if step > 0 else n - 1) if self.sort_col is None else (self.sort_col + step) % n
        self.render_rows()

    def action_sort_reverse(self) -> None:
        if self.sort_col is None:
            self.sort_col = 0
        self.sort_desc = not self.sort_desc
        self.render_rows()

    def action_prompt(self, kind: str) -> None:
        prompt = self.query_one("#prompt", Input)
        if prompt.display and self.focused is prompt:  # an ordinary character: queue it behind the ones typed before
            prompt.post_message(events.Key("slash" if kind == "/" else "colon", kind))
            return
        self._prompt_kind = kind
        prompt.placeholder = "filter rows (Enter keeps it, Esc clears)" if kind == "/" else "fleet jobs queue findings events logs help quit"
        prompt.value = self.filter_text if kind == "/" else ""
        prompt.display = True
        self.set_focus(prompt)  # now, not later: keys typed right after ':' are already queued

    @on(Input.Changed, "#prompt")
    def _typed(self, event: Input.Changed) -> None:
        if self._prompt_kind == "/":
            self.filter_text = event.value
            self.render_rows()

    @on(Input.Submitted, "#prompt")
    def _submitted(self, event: Input.Submitted) -> None:
        event.input.display = False
        self.query_one(DataTable).focus()
        if self._prompt_kind == ":":
            self.app.run_command(event.value.strip().lstrip(":"))


__all__ = ["TableScreen", "Row"]
