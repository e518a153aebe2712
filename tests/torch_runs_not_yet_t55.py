"""The fifty-fifth set's runs not read right yet (tests/test_torch_runs.py's NOT_YET, both ways), with why."""

from __future__ import annotations

_REDIRECTED = ("--redirects 3 --log-dir: the consoles hold only the agents' tables (every progress line, bar, warning and "
               "rank 0's health line is in the --log-dir files only); rank 2 leaves with os._exit(1) at step 250, no "
               "word; node 1's table gives the root cause to rank 2 (exit 1, 'To enable traceback see ...', rank 3 "
               "SIGTERMed), node 0's to rank 1 (exit 1 too: its own gloo error after rank 2 left, rank 0 SIGTERMed) ")
_T55 = {
    # both ways alike
    "2.13.0/t55-trun-2x2-health-exit1-rank2-step250-redirects": _REDIRECTED + (
        "0.5 s later: 'Ranks 1, 2 raised a Python exception; 2 ranks failed the same way within one second: no single "
        "culprit' (rank-failure, warning, python-exception, no rank): the two alike exit-1 roots are read as "
        "common-mode; not the noise: the first silent exit-1 recorded under --redirects"),
    "2.14.1/t55-trun-2x2-health-exit1-rank2-step250-redirects": _REDIRECTED + (
        "1.7 s later: 'Rank 2 ... raised a Python exception. Only its exit status is in the logs' (rank-failure, "
        "warning, python-exception, rank 2): the right rank, not exit-1: nothing on the consoles shows rank 2 was "
        "silent (its output went to the --log-dir files), so the exit 1 is read as a traceback the redirect hid"),
}
