"""The eighteenth set's training program (tests/tools/torch_scenarios18.py records it), run by ``torchrun`` or the
legacy ``torch.distributed.launch``: the seventeenth set's program (tests/tools/t17_worker.py: the fourteenth set's
loop with its faults, K10S_FAULT_RANKS for several culprits) with one more way to place a fault.

K10S_FAULT_LAG  ``RANK:SECONDS`` pairs (comma-separated): that culprit waits so long at the fault step before its
                fault, e.g. ``5:1.5`` (two culprits failing seconds apart)
"""

from __future__ import annotations

import os
import time

import t17_worker as t17

ENV = os.environ
LAG = {int(r): float(s) for r, s in (p.split(":") for p in ENV.get("K10S_FAULT_LAG", "").split(",") if p)}
_BASE_INJECT = t17._inject


def _inject(step: int, model) -> None:
    """The seventeenth set's fault, after the rank's lag."""
    time.sleep(LAG.get(t17.ME, 0.0))
    _BASE_INJECT(step, model)


def main() -> None:
    t17._inject = _inject
    t17.main()


if __name__ == "__main__":
    main()
