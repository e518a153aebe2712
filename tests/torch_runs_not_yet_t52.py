"""The fifty-second set's runs not read right yet (tests/test_torch_runs.py's NOT_YET, both ways), with why."""

from __future__ import annotations

_FILTERED_LOCK = ("2 x 3, --tee 3 --local-ranks-filter 1: rank 0 blocks taking node 0's loader.lock a stale process "
                  "holds (its lines filtered out: only ranks 1 and 4 shown, each 'Timed out waiting 3000ms for "
                  "send/recv operation to complete'); the tables show rank 0 SIGTERMed beside other SIGTERMed and exit-1 "
                  "ranks (2.13.0: node 0's root cause rank 2, exit 1; 2.14.1: rank 1): read as a hang of no single "
                  "culprit (nccl-hang, info), rank 0 not named: nothing shown tells it from the other SIGTERMed ranks")
_PORT_EVERY_NODE = ("2.13.0, --tee 3: stale processes hold both nodes' loader ports: ranks 0 and 2 (each node's local "
                    "rank 0) raise 'OSError: [Errno 98] Address already in use' 9 ms apart, ranks 1 and 3 then see "
                    "'Connection closed by peer': named 'Ranks 0, 2 raised an exception and the job was torn down' "
                    "(rank-failure, critical), every node's alike; 2.14.1 (rank 1 SIGTERMed before its gloo error "
                    "printed) reads right, no single rank (warning)")
_T52 = {f"{v}/t52-trun-2x3-stale-lock-node0-filter1": _FILTERED_LOCK for v in ("2.13.0", "2.14.1")}
_T52["2.13.0/t52-trun-2x2-stale-port-every-node-tee"] = _PORT_EVERY_NODE
