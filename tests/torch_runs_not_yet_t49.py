"""The forty-ninth set's runs not read right yet (tests/test_torch_runs.py's NOT_YET, both ways), with why."""

from __future__ import annotations

_REDIRECTED_ALIKE = ("--redirects 3: the consoles hold only the agents' tables; three ranks' ValueErrors (0, 1, 2, rank 3 "
                     "waiting) are in the --log-dir files only, and the tables' exit 1s within one second (ranks 0-2; "
                     "2.13.0: ranks 1-2, rank 0's own exit recorded as SIGTERM) read as failing the same way, common mode")
_T49 = {f"{v}/t49-trun-2x2-valueerror-ranks012-redirects": _REDIRECTED_ALIKE for v in ("2.13.0", "2.14.1")}
