"""The seventy-third set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
70, no rule, parser or query changed). ``_T73``: both ways alike (each miss is both ways', the same findings from
import-logs and the pod logs).

None remain since session 71. As recorded, 46/64: five runs were missed (nine run-versions, both ways each). Read right
since session 71:

- two ``@record`` runs under ``--redirects 3 --log-dir`` whose consoles hold only torchrun's failure tables: the
  never-joining rank 3 under ``--standalone`` 1 x 6 (every victim's traceback field 'DistStoreError: wait timeout after
  3000ms, keys: /default_pg/0//cpu//0/3', the key of the rank that never joined) and rank 2's caught ``MemoryError`` at
  step 2 (its field 'MemoryError'): docs/rules.md, "Session 71: a failure table's traceback field is the rank's own
  error";
- the node-lost CONTROL under ``--redirects 3 --log-dir`` (node 1 killed whole at init, its console empty; node 0's
  table's 'first observed' a victim's exit 1, named before): no rank named, docs/rules.md "Session 71: a node whose log
  went silent";
- the every-attempt SIGABRT of rank 3 under ``--tee 3 --local-ranks-filter 0`` (the culprit's own lines filtered out; a
  victim's exit 1 was named beside (2.14.1) or instead of (2.13.0) rank 3's crash loop): docs/rules.md, "Session 71: a
  victim's exit 1 beside a crash-looping abort";
- 2.13.0's t73-trun-2x3-raise-rank5-init-w0-error-norank-logdir (rank 5's ``logger.error`` + ``sys.exit(2)`` at init
  under ``--tee 3 --log-dir``, read ``exit-2`` because its stdout's 'starting' line, flushed at exit, reached the
  console after the handler's message; now python-exception): docs/rules.md, "Session 71: a handler's message before its
  stdout's flush"."""

from __future__ import annotations

_T73: dict[str, str] = {}
