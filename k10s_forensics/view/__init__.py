"""``k10s view``: the terminal views (Fleet, Jobs, Queue, Findings, Events, Logs) over a
bundle or live, with the ``y`` diagnostic. Textual is imported only by :mod:`.app` and the
screens; :mod:`.data` and :mod:`.diagnose` are plain Python over DuckDB.
"""
