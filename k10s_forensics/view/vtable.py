"""A virtual table: a header line and one line per row, of which only the lines on
screen are ever rendered.

Textual's DataTable keeps a copy of every row and renders each visible cell through
rich's padding/cropping pipeline again after every screen switch; on a 1024-rank job that
painting, not the data, was what a view switch waited for. This widget holds no copy: it
is handed the (filtered, sorted) list of rows, renders a row into one line the first time
that line is on screen (fixed column widths, one space of padding each side, longer text
cut) and keeps that line on the row, so scrolling, moving the cursor and coming back to a
view repaint from cache. Zebra stripes and the cursor are styles laid over the cached
line (``vtable--even-row`` / ``vtable--cursor`` / ``vtable--header`` in styles.tcss).

Keys (DataTable's): ↑ ↓ PgUp PgDn Ctrl+Home Ctrl+End move the cursor, ← → Home End
scroll sideways, Enter posts
:class:`VirtualTable.RowSelected`; a click moves the cursor, a click on it selects.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.segment import Segment
from rich.text import Text
from textual import events
from textual.binding import Binding
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

PAD = 1  # blank cells on each side of a column


def render_cells(cells: Sequence[Text], widths: Sequence[int], console: Console) -> Strip:
    """One table line: each cell cut or padded to its column's width (first line only)."""
    segments: list[Segment] = []
    pad = Segment(" " * PAD)
    for cell, width in zip(cells, widths):
        if "\n" in cell.plain:
            cell = cell.split("\n")[0]
        else:
            cell = cell.copy()
        cell.truncate(width, overflow="crop")
        segments.append(pad)
        # Text.render leaves out the Text's own style when it has no spans: lay it under
        segments.extend(Segment.apply_style(cell.render(console), console.get_style(cell.style)) if cell.style else cell.render(console))
        segments.append(Segment(" " * (width - cell.cell_len + PAD)))  # the blank rest, unstyled
    return Strip(segments, sum(widths) + 2 * PAD * len(widths))


class VirtualTable(ScrollView, can_focus=True):
    """Rows are any objects with ``cells`` (a list of rich Text); the widget keeps each
    row's rendered line on the row itself (attribute ``_line``)."""

    COMPONENT_CLASSES = {"vtable--header", "vtable--cursor", "vtable--even-row"}
    BINDINGS = [
        Binding("up", "move(-1)", "up", show=False),
        Binding("down", "move(1)", "down", show=False),
        Binding("pageup", "page(-1)", "page up", show=False),
        Binding("pagedown", "page(1)", "page down", show=False),
        Binding("ctrl+home", "jump(0)", "first", show=False),
        Binding("ctrl+end", "jump(-1)", "last", show=False),
        Binding("left", "scroll_left", "left", show=False),
        Binding("right", "scroll_right", "right", show=False),
        Binding("home", "scroll_home", "leftmost", show=False),
        Binding("end", "scroll_end", "rightmost", show=False),
        Binding("enter", "select", "select", show=False),
    ]

    cursor_row: reactive[int] = reactive(0, always_update=True, layout=False, repaint=False)

    class RowSelected(Message):
        """Enter (or a click on the cursor) on row ``cursor_row``."""

        def __init__(self, table: VirtualTable, cursor_row: int) -> None:
            super().__init__()
            self.table, self.cursor_row = table, cursor_row

        @property
        def control(self) -> VirtualTable:
            return self.table

    def __init__(self, columns: Sequence[str], widths: Sequence[int], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.columns = tuple(columns)
        self.widths = tuple(widths)
        self.rows: Sequence[Any] = ()
        self._header: Strip | None = None

    # -- data --------------------------------------------------------------------------------

    @property
    def row_count(self) -> int:
        return len(self.rows)

    @property
    def line_width(self) -> int:
        return sum(self.widths) + 2 * PAD * len(self.widths)

    def set_rows(self, rows: Sequence[Any], cursor: int | None = None) -> None:
        """Show ``rows`` (not copied); the cursor stays where it was, within the new rows."""
        self.rows = rows
        self.virtual_size = Size(self.line_width, len(rows) + 1)
        self.move_cursor(row=self.cursor_row if cursor is None else cursor)
        self.refresh()

    def move_cursor(self, row: int) -> None:
        """Put the cursor on ``row`` (clamped) and scroll it into view."""
        self.cursor_row = min(max(row, 0), max(len(self.rows) - 1, 0))

    def watch_cursor_row(self, old: int, new: int) -> None:
        self._scroll_to_cursor()
        self.refresh()

    @property
    def _page(self) -> int:
        return max(self.scrollable_content_region.height - 1, 1)

    def _scroll_to_cursor(self) -> None:
        top, page = round(self.scroll_y), self._page
        if self.cursor_row < top:
            self.scroll_to(y=self.cursor_row, animate=False, immediate=True)
        elif self.cursor_row >= top + page:
            self.scroll_to(y=self.cursor_row - page + 1, animate=False, immediate=True)

    def on_resize(self, event: events.Resize) -> None:
        self._scroll_to_cursor()

    # -- keys and mouse ----------------------------------------------------------------------

    def action_move(self, step: int) -> None:
        self.move_cursor(self.cursor_row + step)

    def action_page(self, step: int) -> None:
        self.move_cursor(self.cursor_row + step * self._page)

    def action_jump(self, where: int) -> None:
        self.move_cursor(where if where >= 0 else len(self.rows) - 1)

    def action_scroll_home(self) -> None:
        self.scroll_to(x=0, animate=False, immediate=True)

    def action_scroll_end(self) -> None:
        self.scroll_to(x=self.max_scroll_x, animate=False, immediate=True)

    def action_select(self) -> None:
        if self.rows:
            self.post_message(self.RowSelected(self, self.cursor_row))

    def on_click(self, event: events.Click) -> None:
        row = round(self.scroll_y) + event.y - 1
        if event.y < 1 or not 0 <= row < len(self.rows):
            return
        if row == self.cursor_row:
            self.action_select()
        else:
            self.move_cursor(row)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    # -- rendering ---------------------------------------------------------------------------

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._header = None

    def _row_line(self, row: Any) -> Strip:
        line = getattr(row, "_line", None)
        if line is None or line.cell_length != self.line_width:
            line = render_cells(row.cells, self.widths, self.app.console)
            row._line = line
        return line

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self.rich_style
        if y == 0:
            if self._header is None:
                header = [Text(c) for c in self.columns]
                self._header = render_cells(header, self.widths, self.app.console)
            style = base + self.get_component_rich_style("vtable--header")
            return self._header.crop(scroll_x, scroll_x + width).apply_style(style).extend_cell_length(width, style)
        index = scroll_y + y - 1
        if index >= len(self.rows):
            return Strip.blank(width, base)
        line = self._row_line(self.rows[index]).crop(scroll_x, scroll_x + width)
        if index == self.cursor_row:  # under the cells' own styles: a red flag stays red
            style = base + self.get_component_rich_style("vtable--cursor")
        elif index % 2:
            style = base + self.get_component_rich_style("vtable--even-row")
        else:
            style = base
        return line.apply_style(style).extend_cell_length(width, style)


__all__ = ["VirtualTable", "render_cells"]
