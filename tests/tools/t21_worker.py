"""The twenty-first set's training program (tests/tools/torch_scenarios21.py records it), run by ``torchrun``: the
nineteenth set's program (tests/tools/t19_worker.py: the seventeenth set's loop and faults, the nineteenth's wordings)
with this set's faults. One fault on K10S_FAULT_RANK (-1: every rank) at step K10S_FAULT_STEP; under
``--max-restarts``, K10S_FAULT_RANK_BY_ATTEMPT (comma-separated, by TORCHELASTIC_RESTART_COUNT, the last repeating)
says which rank faults in each attempt.

Faults (K10S_FAULT):
memoryerror  the rank allocates past an address-space limit set just above what it maps (torch_worker.py's):
             ``MemoryError``
spin         the rank busy-loops in its own compute (no collective, no error, no line) until it is ended
dcp-efbig    at the fault step every rank saves a ``torch.distributed.checkpoint`` of its weights into one shared
             folder; the faulting rank's file-size limit is 0 (``RLIMIT_FSIZE``, SIGXFSZ ignored), so its shard's write
             fails with ``OSError: [Errno 27] File too large``: DCP gathers every rank's result and raises
             ``CheckpointException`` on every rank
"""

from __future__ import annotations

import importlib
import os
import resource
import signal

ENV = os.environ
ATTEMPT = int(ENV.get("TORCHELASTIC_RESTART_COUNT", "0"))
MINE = ("memoryerror", "spin", "dcp-efbig")


def _attempt_rank() -> None:
    """This attempt's faulting rank into K10S_FAULT_RANK (read when the loop's modules are imported)."""
    by = ENV.get("K10S_FAULT_RANK_BY_ATTEMPT")
    if by:
        ranks = by.split(",")
        ENV["K10S_FAULT_RANK"] = ranks[min(ATTEMPT, len(ranks) - 1)]


def _save_checkpoint(step: int, hit: bool, me: int) -> None:
    import torch
    import torch.distributed.checkpoint as dcp

    if hit:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    folder = os.path.join(ENV.get("K10S_MARK_DIR", "/tmp"), f"ckpt-step{step}")
    print(f"rank {me}: saving checkpoint step {step} to {os.path.basename(folder)}", flush=True)
    dcp.save({f"layer{me}.weight": torch.full((64, 64), float(me))}, checkpoint_id=folder)


def main() -> None:
    _attempt_rank()
    t19, t17, tw = (importlib.import_module(m) for m in ("t19_worker", "t17_worker", "torch_worker"))
    base_inject, base_gather = t19._inject, t17._gather

    def _inject(step: int, model) -> None:
        """In the loop's step: this set's fault, else the nineteenth's (and the seventeenth's)."""
        if t17.FAULT == "memoryerror":
            tw._host_memory_error()
        elif t17.FAULT == "spin":
            while True:
                sum(range(10000))
        elif t17.FAULT != "dcp-efbig":
            base_inject(step, model)

    def _gather(step: int, world: int, loss) -> None:
        """The seventeenth set's gather, then (``dcp-efbig``, at the fault step) every rank's checkpoint save."""
        base_gather(step, world, loss)
        if t17.FAULT == "dcp-efbig" and step == t17.AT_STEP:
            _save_checkpoint(step, t17.HIT, t17.ME)

    t19._inject, t17._gather = _inject, _gather
    t19.main()


if __name__ == "__main__":
    main()
