"""The ``d`` screen: what changed since the baseline on the selected node or job; Esc closes it."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..diffpane import diff_lines


class ChangesScreen(ModalScreen):
    BINDINGS = [Binding("escape", "dismiss", "close"), Binding("d", "dismiss", "close", show=False), Binding("q", "dismiss", "close", show=False)]

    def __init__(self, kind: str, key: str):
        super().__init__()
        self.kind, self.key = kind, key

    def compose(self) -> ComposeResult:
        title, lines = diff_lines(getattr(self.app.data, "baseline_diff", None), self.kind, self.key)
        with VerticalScroll(id="diagnosis"):
            yield Static(title + "\n\n" + "\n".join(lines), id="changes-text", markup=False)

    def action_dismiss(self) -> None:
        self.dismiss()
