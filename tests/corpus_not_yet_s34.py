"""The corpus' expectations k10s does not meet yet from session 34's blind batches (162-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 34's batches that we do not meet, with why.
NOT_YET_S34: dict[str, str] = {
    # batch 162
    "neuralforecast-865-timesnet-4week-databricks-cell-process1-sigsegv-in-title": (
        "the excerpt is the start of a notebook cell's IPython traceback (`ProcessExitedException  Traceback (most "
        "recent call last)`, the cell, `NeuralForecast.fit`), cut before the exception's last line: no process, rank, "
        "signal or exit status is in the log. The culprit (`process 1 terminated with signal SIGSEGV`) is only in the "
        "author's prose; naming process 1 from a header that names no process would be a guess."
    ),
    "neuralforecast-482-nbeatsx-cell-traceback-process1-sigsegv-in-title": (
        "the excerpt is a notebook cell's IPython traceback down to Lightning's `trainer.strategy.launcher.launch(...)` "
        "frame, cut before the exception's message: no process, rank, signal or exit status is in the log; "
        "`process 1 terminated with signal SIGSEGV` is only the issue's title. Naming process 1 would be a guess."
    ),
    # batch 163
    # batch 164
    # batch 165
    # batch 166
    # batch 167
    # batch 168
    # batch 169
    # session 34 leftovers
}
