"""The twentieth set's training program (tests/tools/torch_scenarios20.py records it): the nineteenth set's
(tests/tools/t19_worker.py), where the ranks listed in K10S_LATE_RANKS start too late for the store's setup: each
marks ``fault-<global rank>`` in K10S_MARK_DIR, sleeps K10S_LATE_S (default: twice K10S_GLOO_TIMEOUT_S) before it
makes any process group and exits 0, so the store's host times out waiting for its clients (``N/M clients joined``).
Run by a wrapper (``python t20_worker.py lightning``: the global rank is NODE_RANK x K10S_NPROC + LOCAL_RANK) or by
``mp.spawn`` (``spawn_main``: the global rank is the local rank, ``tcp://`` init on one node).
"""

from __future__ import annotations

import os
import sys
import time

import t19_worker as t19
import torch_worker as tw

ENV = os.environ


def _late(rank: int) -> None:
    """A rank listed late never reaches the store in time: it marks itself, waits, and leaves without a word."""
    if str(rank) in ENV.get("K10S_LATE_RANKS", "").split(","):
        t19._mark_fault(rank)
        time.sleep(float(ENV.get("K10S_LATE_S", str(tw.GLOO_TIMEOUT_S * 2))))
        sys.exit(0)


def spawn_main(local_rank: int, world: int, port: int) -> None:
    """mp.spawn's entry (one node): late ranks wait, the others run the first set's loop on ``tcp://`` init."""
    _late(local_rank)
    tw.spawn_main(local_rank, world, port)


def main() -> None:
    if ENV.get("LOCAL_RANK") is not None or ENV.get("NODE_RANK") is not None:  # a wrapper's process (Lightning)
        _late(int(ENV.get("NODE_RANK", "0")) * int(ENV.get("K10S_NPROC", "1")) + int(ENV.get("LOCAL_RANK", "0")))
    t19.main()


if __name__ == "__main__":
    main()
