"""The sixty-third set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
67, no rule, parser or query changed). ``_T63``: both ways alike.

Its one miss, t63-legacy-3x2-raise-rank3-step3-eval-w0-error-rank0only (a caught exception under the legacy launcher,
``logger.error(f'rank {rank}: {e}')`` then ``sys.exit(2)``: ``rank 3: bad batch at step 3: sample 17 has no tokens``,
no error word, read ``exit-2``), reads rank 3 python-exception since session 68 (docs/rules.md, "Session 68: a rank's
own last message before its chosen exit status"): none is left."""

from __future__ import annotations

_T63: dict[str, str] = {}
