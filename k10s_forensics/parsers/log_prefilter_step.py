"""The container-log parser's training-progress prefilter and step extraction: RE2 expressions DuckDB runs over every
log line (see log_prefilter, which re-exports them, and docs/parsers-logs.md)."""

from __future__ import annotations

#: Training progress. Case-insensitive words followed by a number, tqdm counters, HF dicts.
_STEP_ALTERNATIVES = (
    r"(?i:\b(?:global[_ ])?step\s*[:=#]?\s*\d)",
    r"(?i:\biter(?:ation)?\s*[:=#]?\s*\d)",
    r"\|\s*\d+/\d+\s*\[\d",
    r"\{'loss': ",
)
PREFILTER_STEP = "(?:" + "|".join(_STEP_ALTERNATIVES) + ")"

#: After the number: not part of a float (``global_step=3.2e+4`` is no step number).
_NOT_FLOAT = r"(?:$|[^.\deE]|\.(?:$|[^\d]))"
#: Step value extraction in DuckDB (RE2), tried in this order; group 1 is the step.
STEP_EXTRACT = (
    ("step", r"(?i)\b(?:global[_ ])?step\s*[:=#]?\s*(\d+)" + _NOT_FLOAT),
    ("iteration", r"(?i)\biter(?:ation)?\s*[:=#]?\s*(\d+)" + _NOT_FLOAT),
    ("tqdm", r"\|\s*(\d+)/\d+\s*\[\d"),
    ("hf_log", r"'step': (\d+)"),
)
STEP_HF = r"\{'loss': "

#: A progress line's own values (``progress_value``): the number a loss or grad-norm word names, as trainers print
#: them (``loss nan``, ``loss: nan``, ``'loss': nan``, ``loss=nan``, ``lm loss: 2.3E+00``, fairseq's ``loss 'nan'``,
#: ``loss tensor(nan``, ``grad_norm: inf``); ``nan``/``inf`` kept as printed (DuckDB casts them to NaN/±Infinity).
#: Not ``loss scale: 65536`` nor ``loss_scale=…`` (a word between), nor ``losses``.
_VALUE = r"(?:\s*[:=]\s*|\s+is\s+|\s+)(?:tensor\(\[?)?['\"]?([-+]?(?:nan|inf(?:inity)?|\d+\.?\d*(?:e[-+]?\d+)?|\.\d+))(?:[^a-z0-9_]|$)"
PROGRESS_LOSS = r"(?i)(?:^|[^a-z])loss['\"]?" + _VALUE
PROGRESS_GRAD_NORM = r"(?i)(?:^|[^a-z])grad(?:ient)?[_ ]?norm['\"]?" + _VALUE
