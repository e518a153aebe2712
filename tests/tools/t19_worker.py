"""The nineteenth set's training program (tests/tools/torch_scenarios19.py records it). Run by ``torchrun``
(``python t19_worker.py``): the seventeenth set's loop (tests/tools/t17_worker.py) with this set's faults in its step;
run by a wrapper (``python t19_worker.py accelerate|deepspeed|lightning``): the fourth set's loops
(tests/tools/wrapper_worker.py) with the same faults. One fault on K10S_FAULT_RANK (-1: every rank) at step
K10S_FAULT_STEP.

Faults (K10S_FAULT):
zerodiv      the rank's accuracy metric divides by the samples it saw (none): ``ZeroDivisionError: division by zero``
crit-abort   a ``logging.critical`` line (time, level, logger), then ``os.abort()``
check        ``torch._check`` on the rank's label ids fails: ``RuntimeError`` with the check's message
warn         a ``UserWarning`` (``warnings.warn``): a warning where Python runs with ``-W default``, an exception
             where ``PYTHONWARNINGS=error::UserWarning`` (one node's environment) turns warnings into errors

A rank whose fault makes it fail writes ``fault-<global rank>`` in K10S_MARK_DIR (the recorder's truth where the
scenario lets the run say which global ranks the fault landed on: one node's environment, whichever node rank it got).
"""

from __future__ import annotations

import logging
import os
import sys
import warnings

import t17_worker as t17
import torch
import torch_worker as tw
import wrapper_worker as ww

ENV = os.environ
LOG = logging.getLogger("trainer.guard")
_BASE_FAULT, _BASE_INJECT = tw._fault, t17._inject


def _fails(kind: str) -> bool:
    return kind != "warn" or "error" in ENV.get("PYTHONWARNINGS", "")


def _mark_fault(rank: int) -> None:
    mark = ENV.get("K10S_MARK_DIR")
    if mark:
        with open(os.path.join(mark, f"fault-{rank}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))


def _eval_accuracy(rank: int) -> float:
    shard = [s for s in range(48) if s // 12 == rank + 4]  # the rank's eval samples: none (its shard came back empty)
    return sum(s % 2 for s in shard) / len(shard)


def _fault(kind: str, rank: int, step: int) -> None:
    """This set's faults; any other kind: the first set's (torch_worker.py's ``_fault``)."""
    if kind in ("zerodiv", "crit-abort", "check", "warn") and _fails(kind):
        _mark_fault(rank)
    if kind == "zerodiv":
        print(f"rank {rank}: step {step} eval accuracy {_eval_accuracy(rank):.3f}", flush=True)
    elif kind == "crit-abort":
        logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        LOG.critical("rank %d: optimizer state is inconsistent after step %d (non-finite loss scale); aborting", rank, step)
        os.abort()
    elif kind == "check":
        labels = torch.tensor([3, 17, 50300, 9])
        torch._check(bool(labels.max() < 50257), lambda: f"label id {int(labels.max())} out of range for vocab size 50257")
    elif kind == "warn":
        warnings.warn("the eval set has 17 samples, not a multiple of the batch size 4: the last batch is dropped", UserWarning,
                      stacklevel=1)
    else:
        _BASE_FAULT(kind, rank, step)


def _inject(step: int, model: torch.nn.Module) -> None:
    """In the seventeenth set's step: this set's fault, else the seventeenth's."""
    if t17.FAULT in ("zerodiv", "crit-abort", "check", "warn"):
        _fault(t17.FAULT, t17.ME, step)
    else:
        _BASE_INJECT(step, model)


def main() -> None:
    tw._fault = _fault
    style = next((a for a in sys.argv[1:] if not a.startswith("--")), "")
    if style:  # a wrapper's loop; deepspeed's ranks mark their node (its loop does not)
        if style == "deepspeed":
            local, size = int(ENV.get("LOCAL_RANK", "0")), int(ENV.get("LOCAL_SIZE", ENV.get("LOCAL_WORLD_SIZE", "1")))
            ww._mark((int(ENV.get("RANK", "0")) - local) // max(1, size), local)
        ww.main()
        return
    t17._inject = _inject
    t17.main()


if __name__ == "__main__":
    main()
