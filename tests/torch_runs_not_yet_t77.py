"""The seventy-seventh set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
72, no rule, parser or query changed). ``_T77``: both ways alike.

None: as recorded, before any change, 64/64 readings right (32 runs, both torch versions, import-logs and the pod logs
alike), the 13 faults' 52 readings naming the culprit with its cause and the 3 controls' 12 naming no rank. Among the
awkward draws read right: rank 0's segfault under ``--local-ranks-filter 1`` (its own lines filtered out: the table's
'exitcode: -11' of local rank 0), the ``monitored_barrier`` late rank 0 (every other rank's 'received errors while
waiting for send/recv from rank 0'), the never-joining rank 0, the every-attempt SIGBUS of rank 5 (its crash loop), the
recovered SIGABRT of rank 5 at init, the legacy raise at init and the legacy DataLoader worker's SIGKILL, and node 0
(the rendezvous endpoint's node) lost whole under ``--redirects 3 --log-dir``, no rank named. The module is kept so
that a later change that breaks one of these readings is seen in the set's own file (an entry added here must be a
regression's, explained)."""

from __future__ import annotations

_T77: dict[str, str] = {}
