"""The twenty-fifth set's training program (tests/tools/torch_scenarios25.py records it), run by ``torchrun`` (or by
``torchrun --run-path``: runpy in the agent's spawned worker processes): the twenty-second set's program
(tests/tools/t22_worker.py: the twenty-first, nineteenth and seventeenth sets' loop and faults) with this set's faults.
One fault on K10S_FAULT_RANK (-1: every rank) at step K10S_FAULT_STEP.

K10S_DUMP_ON_SIGTERM  (any value) every rank registers ``faulthandler`` for SIGTERM (``all_threads``, ``chain``): a rank
                      signalled by its agent prints every thread's stack, then ends by the signal, as training
                      scripts do to see where a hung job stood

Faults (K10S_FAULT):
error-file  the rank's data pipeline reports its own error the way launcher-aware frameworks do: it writes the JSON
            error file torchrun gave it (``TORCHELASTIC_ERROR_FILE``: ``{"message": …, "timestamp": …}``), prints
            nothing, and exits 1 (torchrun's failure table shows the message as the rank's traceback)
"""

from __future__ import annotations

import faulthandler
import importlib
import json
import os
import signal
import sys
import time

ENV = os.environ
MINE = ("error-file",)
MESSAGE = "ValueError: no training samples left after the length filter (0 of 4096 kept, max_length=128)"


def _error_file() -> None:
    with open(ENV["TORCHELASTIC_ERROR_FILE"], "w", encoding="utf-8") as f:
        json.dump({"message": MESSAGE, "timestamp": int(time.time())}, f)
    sys.exit(1)


def main() -> None:
    if ENV.get("K10S_DUMP_ON_SIGTERM"):
        faulthandler.register(signal.SIGTERM, all_threads=True, chain=True)
    t19, t17, t22 = (importlib.import_module(m) for m in ("t19_worker", "t17_worker", "t22_worker"))
    base_inject = t19._inject

    def _inject(step: int, model) -> None:
        """In the loop's step (the faulting ranks only): this set's fault, else the earlier sets'."""
        if t17.FAULT == "error-file":
            _error_file()
        else:
            base_inject(step, model)

    t19._inject = _inject  # the twenty-second set's step falls back on it
    t22.main()


if __name__ == "__main__":
    main()
