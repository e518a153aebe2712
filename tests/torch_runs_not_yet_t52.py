"""The fifty-second set's runs not read right yet (tests/test_torch_runs.py's NOT_YET, both ways), with why."""

from __future__ import annotations

_FILTERED_LOCK = ("2 x 3, --tee 3 --local-ranks-filter 1: rank 0 blocks taking node 0's loader.lock a stale process "
                  "holds (its lines filtered out: only ranks 1 and 4 shown, each 'Timed out waiting 3000ms for "
                  "send/recv operation to complete'); the tables show rank 0 SIGTERMed beside other SIGTERMed and exit-1 "
                  "ranks (2.13.0: node 0's root cause rank 2, exit 1; 2.14.1: rank 1): read as a hang of no single "
                  "culprit (nccl-hang, info), rank 0 not named: nothing shown tells it from the other SIGTERMed ranks")
_T52 = {f"{v}/t52-trun-2x3-stale-lock-node0-filter1": _FILTERED_LOCK for v in ("2.13.0", "2.14.1")}
# 2.13.0's stale-port-every-node-tee (ranks 0 and 2, each node's local rank 0, `OSError: [Errno 98] Address already
# in use` 9 ms apart, then ranks 1 and 3 'Connection closed by peer') read right since session 59: one rank on every
# node refused a host's resource alike is the hosts' state, no single culprit
