"""``?``: every key of ``k10s view`` (the same table docs/view.md shows)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..keys import KEYS


def help_text() -> str:
    width = max(len(k) for k, _ in KEYS)
    return "k10s view — keys\n\n" + "\n".join(f"  {k:<{width}}  {what}" for k, what in KEYS) + "\n\nEsc closes this help."


class HelpScreen(ModalScreen):
    BINDINGS = [Binding("escape", "dismiss", "close"), Binding("question_mark", "dismiss", "close", show=False),
                Binding("q", "dismiss", "close", show=False)]

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="help"):
            yield Static(help_text(), id="help-text")

    def action_dismiss(self) -> None:
        self.dismiss()
