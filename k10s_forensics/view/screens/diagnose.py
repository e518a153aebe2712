"""The ``y`` screen: the diagnostic of the selected row, computed in a worker thread (the
UI never waits on DuckDB); Esc closes it."""

from __future__ import annotations

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from ..diagnose import Diagnosis, Target, diagnose


def render(d: Diagnosis) -> Text:
    text = Text()
    text.append(d.title + "\n\n", style="bold")
    for heading, lines in d.sections:
        text.append(heading + "\n", style="bold underline" if heading.startswith("Finding") else "bold")
        for line in lines or ["---"]:
            style = "bold red" if line.startswith("[CRITICAL]") else ("green" if line.startswith("Fix:") else "")
            text.append(f"  {line}\n", style=style)
        text.append("\n")
    return text


class DiagnoseScreen(ModalScreen):
    BINDINGS = [Binding("escape", "dismiss", "close"), Binding("y", "dismiss", "close", show=False), Binding("q", "dismiss", "close", show=False)]

    def __init__(self, target: Target):
        super().__init__()
        self.target = target
        self.diagnosis: Diagnosis | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="diagnosis"):
            yield Static(f"y · {self.target.kind} {self.target.label}\n\nanalysing…", id="diagnosis-text")

    def on_mount(self) -> None:
        try:  # after the prefetch, every fact y reads is in memory: no thread to wait for
            with self.app.data.from_memory():
                d = diagnose(self.app.data, self.target)
        except Exception:  # NotCached (a worker computes it), or a failure the worker reports
            self._run(self.app.data)
            return
        self._show(d)

    @work(thread=True, exclusive=True)
    def _run(self, data) -> None:
        try:
            d = diagnose(data, self.target)
        except Exception as exc:  # the diagnostic says what failed, never a traceback
            d = Diagnosis(f"y · {self.target.kind} {self.target.label}", [("could not diagnose", [f"{exc.__class__.__name__}: {exc}"])])
        self.app.call_from_thread(self._show, d)

    def _show(self, d: Diagnosis) -> None:
        self.diagnosis = d
        self.query_one("#diagnosis-text", Static).update(render(d))

    def action_dismiss(self) -> None:
        self.dismiss()
