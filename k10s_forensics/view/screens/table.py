"""The screen every view is made of: a title line, a banner (live state), one table, a
prompt for ``/`` filters and ``:`` commands, and a status line.

A view subclass only says how to load its rows from :class:`ViewData` (run in a worker
thread, never on the UI thread), what ``y`` diagnoses and what Enter opens. Filtering
(substring over the row's text), sorting (``<``/``>`` choose the column, ``!`` reverses;
rows of one group stay together) and "---" with the reason for an empty view live here.

However many rows a view has, the table renders only the lines on screen
(:mod:`..vtable`); filter and sort run in DuckDB over all of them (:mod:`..rowindex`),
so the cursor, ``y`` and Enter reach any row.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Input, Static

from ..data import NotCached
from ..diagnose import Target
from ..rowindex import RowIndex
from ..vtable import VirtualTable


@dataclass(eq=False)
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


def _prepare(load, absent_reason, data, columns: int) -> tuple[list[Row], RowIndex, str | None]:
    rows = load(data)
    return rows, RowIndex(rows, columns), None if rows else (absent_reason(data) or "nothing to show")


class TableScreen(Screen):
    """Base of every view; subclasses set ``TITLE``/``COLUMNS`` and implement ``load``."""

    TITLE = ""
    #: The rows depend on the bundle alone (``load`` and ``absent_reason`` are static, not
    #: about a node or rank the screen was opened for): computed once per bundle, and in
    #: the background before the view is first opened (:meth:`prepared`).
    SHARED_ROWS = False
    COLUMNS: tuple[str, ...] = ()
    WIDTHS: tuple[int, ...] = ()  # cells per column; longer text is cut (Enter/y show it whole)
    BINDINGS = [
        # priority: they run before keys already queued behind them (typed fast, or by tmux)
        # reach the table; inside the open prompt they are ordinary characters
        Binding("slash", "prompt('/')", "filter", priority=True),
        Binding("colon", "prompt(':')", "command", priority=True),
        Binding("y", "diagnose", "why?"),
        Binding("d", "changes", "changed?", show=False),
        Binding("escape", "back", "back"),
        Binding("less_than_sign", "sort_column(-1)", "sort ←", show=False),
        Binding("greater_than_sign", "sort_column(1)", "sort →", show=False),
        Binding("exclamation_mark", "sort_reverse", "reverse", show=False),
    ]

    def __init__(self, **kwargs: Any):
        super().__init__(**kwargs)
        # Textual re-parses the whole stylesheet the first time a mode's screen is shown, to
        # catch up with theme changes made before the screen existed (~45 ms of a view
        # switch). A screen made now is styled from the current stylesheet when mounted:
        # nothing to catch up with. (Textual 8's counter; without it, only slower.)
        app = self.app
        self._css_update_count = getattr(app, "_css_update_count", -1)
        self.rows: list[Row] = []
        self.shown: list[Row] = []
        self.index = RowIndex([], 0)
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
        yield VirtualTable(self.COLUMNS, self.WIDTHS, id="table")
        yield Static("", id="absent")
        yield Input(id="prompt")
        yield Static("", id="status")

    def on_mount(self) -> None:
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
        ready = self._from_memory(self.app.data)
        if ready is not None:  # computed already: shown at once, no thread to wait for
            self._loaded(ready[0], ready[2], ready[1])
            return
        self.query_one("#status", Static).update("loading…")
        self._load_rows(self.app.data)

    def _from_memory(self, data) -> tuple[list[Row], RowIndex, str | None] | None:
        """The view's rows if they need no query (a view's prefetched rows; a drill-down's
        few rows over prefetched answers), else None: a worker makes them."""
        if self.SHARED_ROWS:  # a whole view: made in the background, never here
            return data.memoized(("rows", type(self).__name__))
        try:
            with data.from_memory():
                return _prepare(self.load, self.absent_reason, data, len(self.COLUMNS))
        except NotCached:
            return None

    @classmethod
    def prepared(cls, data) -> tuple[list[Row], RowIndex, str | None]:
        """Rows, their index and the reason when there is none, of a SHARED_ROWS view:
        computed once per bundle (any thread)."""
        return data.memo(("rows", cls.__name__), lambda: _prepare(cls.load, cls.absent_reason, data, len(cls.COLUMNS)))

    @work(thread=True, exclusive=True, group="load")
    def _load_rows(self, data) -> None:
        try:
            if self.SHARED_ROWS:
                rows, index, absent = self.prepared(data)
            else:
                rows, index, absent = _prepare(self.load, self.absent_reason, data, len(self.COLUMNS))
        except Exception as exc:  # shown, never a traceback: the view says what failed
            rows, index, absent = [], RowIndex([], 0), f"could not load this view: {exc.__class__.__name__}: {exc}"
        self.app.call_from_thread(self._loaded, rows, absent, index)

    def _loaded(self, rows: list[Row], absent: str | None, index: RowIndex) -> None:
        self.index = index
        self._show(rows, absent)

    def _show(self, rows: list[Row], absent: str | None) -> None:
        if self.index.rows is not rows:
            self.index = RowIndex(rows, len(self.COLUMNS))
        self.rows, self.absent, self.loaded = rows, absent, True
        self.render_rows()
        self.app.view_loaded(self)

    def render_rows(self) -> None:
        """Filter and sort every row (in DuckDB), then show the result from the cursor's place."""
        order = self.index.order(self.filter_text.lower(), self.sort_col, self.sort_desc)
        self.shown = rows = [self.rows[i] for i in order]
        self.query_one(VirtualTable).set_rows(rows)
        absent = self.query_one("#absent", Static)
        absent.update(f"--- {self.absent}" if self.absent else ("--- no row matches the filter" if self.rows and not rows else ""))
        absent.display = bool(self.absent) or (bool(self.rows) and not rows)
        sort = f" · sorted by {self.COLUMNS[self.sort_col]}{' ↓' if self.sort_desc else ' ↑'}" if self.sort_col is not None else ""
        filt = f" · filter /{self.filter_text}" if self.filter_text else ""
        self.query_one("#status", Static).update(f"{len(rows)} of {len(self.rows)} rows{filt}{sort} · ? help")

    # -- selection -------------------------------------------------------------------------

    def selected(self) -> Row | None:
        table = self.query_one(VirtualTable)
        if not self.shown or table.cursor_row < 0 or table.cursor_row >= len(self.shown):
            return None
        return self.shown[table.cursor_row]

    def select_key(self, key: str) -> bool:
        """Move the cursor to the row with this key (tests and drill-downs use it)."""
        for i, r in enumerate(self.shown):
            if r.key == key:
                self.query_one(VirtualTable).move_cursor(row=i)
                return True
        return False

    def drill(self, row: Row) -> Screen | None:
        """The screen Enter opens for ``row`` (None: nothing below it)."""
        return None

    @on(VirtualTable.RowSelected)
    def _enter(self, event: VirtualTable.RowSelected) -> None:
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

    def action_changes(self) -> None:
        row = self.selected()
        target = row.target if row else None
        if target is None or target.kind not in ("node", "job"):
            self.app.notify("d works on a node or a job row", severity="warning")
            return
        from .changes import ChangesScreen

        self.app.push_screen(ChangesScreen(target.kind, target.node if target.kind == "node" else target.job_key or target.label))

    def action_back(self) -> None:
        prompt = self.query_one("#prompt", Input)
        if prompt.display:
            prompt.display = False
            self.query_one(VirtualTable).focus()
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
        self.query_one(VirtualTable).focus()
        if self._prompt_kind == ":":
            self.app.run_command(event.value.strip().lstrip(":"))


__all__ = ["TableScreen", "Row"]
