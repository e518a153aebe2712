"""The SQL of the log parse (``parsers/logs.py``): the candidate lines' API timestamp stripped and
cast, the event candidates handed to Python, and training-progress lines finished and thinned in SQL
(step number, ``[rankN]:`` rank; ``STEP_STRIDE_S``)."""

from __future__ import annotations

from k10s_forensics.parsers import log_patterns as P
from k10s_forensics.parsers import log_prefilter as PF
from k10s_forensics.parsers.log_prefilter_step import PREFILTER_STEP_COUNTER, PROGRESS_GRAD_NORM, PROGRESS_LOSS, PROGRESS_NO_STEP
from k10s_forensics.parsers.log_lines import LINE_CHARS

LONG_LINE = 65536
#: training_step thinning: per (log body, rank, script rank tag, --tee stream, subkind) series keep the first line of every
#: STEP_STRIDE_S-second interval, plus the first and last line of the series and both lines
#: around a step that goes back (restart, new epoch bar); lines without a timestamp are all kept, and so is
#: every line whose progress value is not finite (a rank's loss gone NaN: queries/_incident_common_mode.sql).
STEP_STRIDE_S = 10
#: A training script's rank tag opening its progress line, behind torchrun's --tee prefix or none: ``rank 1 step 3
#: loss nan``, ``Rank 3: step 2/6``, ``[rank 3] step …`` (``rank 1/4 …`` is a count, no tag)
SCRIPT_RANK_OPENING = r"^(?:\[default\d+\]:)?\s*\[?(?i:rank)[ =]?(\d{1,7})(?:\]|:|,)?\s"


def _lit(pattern: str) -> str:
    return "'" + pattern.replace("'", "''") + "'"


def _step_columns() -> str:
    """One column per STEP_EXTRACT wording (each regex run once), named ``x_<wording>``."""
    cols = []
    for name, rx in PF.STEP_EXTRACT:
        if name == "tqdm":  # the last tqdm counter on the line: tqdm redraws with \r, so one line holds many
            cols.append(f"nullif(list_extract(regexp_extract_all(text, {_lit(rx)}, 1), -1), '') AS x_{name}")
        else:
            cols.append(f"nullif(regexp_extract(text, {_lit(rx)}, 1), '') AS x_{name}")
    return ", ".join(cols)


def _step_sql() -> str:
    """``step`` and ``step_kind`` from the ``x_<wording>`` columns, first wording that matched, and ``step_counter``
    (the step wordings' own prefilter, evaluated once per line in STEPS_SQL's ``x``)."""
    order = [name for name, _ in PF.STEP_EXTRACT]
    value = "coalesce(" + ", ".join(f"x_{n}" for n in order) + ")"
    counter = "step_counter"  # a line the step wordings' own prefilter takes (a column of STEPS_SQL's `x`, run once a line)
    kind = f"CASE WHEN NOT {counter} THEN NULL " + " ".join(f"WHEN x_{n} IS NOT NULL THEN '{n}'" for n in order)
    kind += f" WHEN regexp_matches(text, {_lit(PF.STEP_HF)}) THEN 'hf_log' END"
    # no step counter: a progress line whose loss / grad norm is its one value (step null; log_prefilter_step.PROGRESS_NO_STEP)
    kind = f"coalesce({kind}, CASE WHEN regexp_matches(text, {_lit(PROGRESS_NO_STEP)}) THEN 'progress' END)"
    return f"CASE WHEN {counter} THEN try_cast({value} AS BIGINT) END AS step, {kind} AS step_kind"


def _value_sql() -> str:
    """``progress_value``: the line's loss (none: its grad norm), NaN/±Infinity as printed (``nan``, ``inf``)."""
    loss, norm = (f"nullif(regexp_extract(text, {_lit(rx)}, 1), '')" for rx in (PROGRESS_LOSS, PROGRESS_GRAD_NORM))
    return f"try_cast(coalesce({loss}, {norm}) AS DOUBLE) AS progress_value"


CANDIDATES_SQL = f"""
WITH hits AS (
    SELECT _row, line_no, raw_line, follow, event, regexp_extract(raw_line, {_lit('(' + P.API_TS[:-1] + ') ')}, 1) AS api_text
    FROM hits_arrow
), texts AS (
    SELECT _row, line_no, api_text, follow, event, raw_line,
           rtrim(CASE WHEN api_text = '' THEN raw_line ELSE substr(raw_line, length(api_text) + 2) END, chr(13)) AS text
    FROM hits
)
SELECT _row, line_no,
       try_cast(nullif(api_text, '') AS TIMESTAMPTZ) AS api_ts,
       length(text) > {LONG_LINE} AS long_line,
       follow,
       text,
       event,                         -- the raw line matches the event prefilter (logs._hits)
       text = raw_line AS unchanged   -- nothing stripped: that answer is the text's (logs._is_event)
FROM texts
"""
#: ``cand``: the candidates with ``is_event``, which pyarrow's RE2 computed (``_candidates``).
WITH_EVENTS_SQL = """
SELECT c._row, c.line_no, c.api_ts, c.long_line, e.is_event, c.follow, c.text
FROM cand_text c JOIN is_event_arrow e USING (_row, line_no)
"""

EVENTS_SQL = "SELECT _row, line_no, api_ts, long_line, text, follow AND NOT is_event AS follow FROM cand WHERE is_event OR follow ORDER BY _row, line_no"


STEPS_SQL = f"""
WITH x AS (
    SELECT _row, line_no, api_ts, long_line, text, {_step_columns()},
           regexp_matches(text, {_lit(PREFILTER_STEP_COUNTER)}) AS step_counter
    FROM cand WHERE NOT is_event AND NOT follow
), s AS (
    SELECT _row, line_no, api_ts, long_line, left(text, {LINE_CHARS}) AS line,
           coalesce(try_cast(nullif(regexp_extract(text, '\\[rank(\\d+)\\]:', 1), '') AS BIGINT),
                    try_cast(nullif(regexp_extract(text, '(?i)\\[rank (\\d+)\\]', 1), '') AS BIGINT)) AS rank,
           -- (thinning only, no column: the queries read them off the line) a script's own rank tag opening its progress
           -- line, `rank 1 step 3 …`, and torchrun's --tee prefix, `[default1]:`: one series per printing process
           regexp_extract(text, {_lit(SCRIPT_RANK_OPENING)}, 1) AS tag_rank, regexp_extract(text, '^\\[default(\\d+)\\]:', 1) AS tee_local,
           {_step_sql()}, {_value_sql()}
    FROM x
), series AS (
    SELECT *, lag(line_no) OVER w AS prev_line, lead(line_no) OVER w AS next_line,
           lag(step) OVER w AS prev_step, lead(step) OVER w AS next_step,
           lag(bucket) OVER w AS prev_bucket
    FROM (SELECT *, epoch_us(api_ts) // {STEP_STRIDE_S * 1_000_000} AS bucket FROM s WHERE step_kind IS NOT NULL)
    WINDOW w AS (PARTITION BY _row, rank, tag_rank, tee_local, step_kind ORDER BY line_no)
)
SELECT _row, line_no, api_ts, long_line, line, rank, step, step_kind, progress_value FROM series
WHERE api_ts IS NULL OR prev_line IS NULL OR next_line IS NULL OR prev_bucket IS DISTINCT FROM bucket
   OR step < prev_step OR next_step < step OR NOT isfinite(progress_value)
ORDER BY _row, line_no
"""


__all__ = ["CANDIDATES_SQL", "EVENTS_SQL", "LONG_LINE", "STEPS_SQL", "STEP_STRIDE_S", "WITH_EVENTS_SQL"]
