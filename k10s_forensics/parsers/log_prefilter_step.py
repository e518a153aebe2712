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
#: The step wordings' own prefilter: only a line it takes is read for a step counter (log_sql._step_sql), so the loose
#: alternative below admits no new step rows (Ray's `metrics={'step': 0, 'loss': 0.16}` stays no hf_log row)
PREFILTER_STEP_COUNTER = "(?:" + "|".join(_STEP_ALTERNATIVES) + ")"
#: a loss / grad-norm word and its value (loose: PROGRESS_NO_STEP below decides in SQL, on the line's text)
_NO_STEP_LOOSE = r"(?i:(?:loss|norm)['\"]?(?:\s*[:=]\s*|\s+is\s+|\s+)(?:tensor\(\[?)?['\"]?[-+]?(?:nan|inf|\d|\.\d))"
PREFILTER_STEP = "(?:" + "|".join(_STEP_ALTERNATIVES + (_NO_STEP_LOOSE,)) + ")"

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

#: A progress line with no step counter whose loss or grad norm is its progress value (``Epoch 3 loss: nan``,
#: ``epoch 2 | train loss nan``, ``[rank1] loss=nan``, ``Train loss: inf``, ``avg_loss nan``): training_step rows of
#: subkind ``progress``, ``step`` null. Bounded to a progress line's shape: the word (``loss``, a ``train``/``avg``/``mean``/
#: ``total``/``batch``/``running``/``epoch``/``val`` loss, a grad norm), a separator and a number, ``nan`` or ``inf`` (_VALUE),
#: and before the word the line's start (behind at most two bracketed tags: ``[default1]:``, ``[rank1]``), or an epoch
#: counter (``Epoch 3``, ``Epoch [3/10],``) or a rank (``rank 1:``) and at most six separator characters. Not ``loss
#: scale: 65536``, ``loss_fn = nan_to_num``, ``loss_type: nan-safe``, ``skipping step, loss scale reduced``, an exception's
#: ``ValueError: loss is nan`` (a word before it), a code line ``loss = _loss(step, …)``.
_NO_STEP_CONTEXT = (r"(?:^(?:\s*\[[^\]]{1,40}\]:?){0,2}\s*"
                    r"|\bepoch\s*[:=#\[]?\s*\d+(?:\s*/\s*\d+)?\]?[\s,:;|)\-]{0,6}"
                    r"|\brank\s*[:=]?\s*\d+\]?[\s,:;|)\-]{0,6})")
PROGRESS_NO_STEP = (r"(?i)" + _NO_STEP_CONTEXT + r"(?:(?:train(?:ing)?|avg|average|mean|total|batch|running|epoch|val(?:id)?)[_ ])?"
                    r"(?:loss|grad(?:ient)?[_ ]?norm)['\"]?" + _VALUE)
