"""The sixty-third set's runs not read right yet (tests/test_torch_runs.py's NOT_YET), with why, as recorded (session
67, no rule, parser or query changed). ``_T63``: both ways alike (the one miss is both versions' and both ways').

The one miss is t61's missing shard's and t62's ``AssertionError``'s pattern again, now under the legacy launcher: a
caught Python exception under the ``error`` handler (``logger.error(f'rank {rank}: {e}')``, the message only, then
``sys.exit(2)``), the rank right from the tables, the cause ``exit-2``."""

from __future__ import annotations

_RAISE = ("legacy torch.distributed.launch --use-env, 3 x 2, no output option, rank-0-only prints, "
          "logger.error(f'rank {rank}: {e}') then sys.exit(2): rank 3's RuntimeError in step 3's validation loop "
          "('rank 3: bad batch at step 3: sample 17 has no tokens', the exception's type never printed; the others' "
          "'rank N: ... Connection closed by peer' / 'Timed out waiting 3000ms' lines, the same handler); the tables: "
          "ranks 1, 3, 4 exit 2 in 2.13.0 (0, 1, 3, 4 in 2.14.1), the others SIGTERM, rank 3's the first failure; k10s "
          "said 'Rank 3 exited with status 2 and the job was torn down' (rank-failure, warning, exit-2, rank 3: the rank "
          "right, the cause not); truth: rank 3, python-exception")
_RUNS = {"t63-legacy-3x2-raise-rank3-step3-eval-w0-error-rank0only": _RAISE}
_T63 = {f"{v}/{name}": why for v in ("2.13.0", "2.14.1") for name, why in _RUNS.items()}
