"""The fifty-ninth set's training program (tests/tools/torch_scenarios59.py records it): the fifty-eighth set's
(tests/tools/t58_worker.py: t56_worker.py's tiny model on gloo on CPU, 10 steps, gloo timeouts of 3 s, its own lines in
the drawn logging convention K10S_LOG_STYLE / K10S_RANK_FORMAT), but the program's TOP LEVEL HANDLES the failure, the
way K10S_HANDLER says. Every exception of the program goes through that one handler: the culprit's own error and the
victims' (gloo timeouts, connection resets, ``DistBackendError``) alike.

exception     ``logger.exception("training failed")`` (in the drawn convention) then ``sys.exit(1)``
error         ``logger.error(f"rank {rank}: {e}")`` (the message only, no traceback) then ``sys.exit(2)``
print-exc     ``traceback.print_exc()`` then ``os._exit(1)``
record        torch's ``@record`` (torch.distributed.elastic.multiprocessing.errors.record) on main, the exception
              re-raised: the launcher's failure table carries the error
uncaught      nothing caught (as in earlier sets)

Where the convention configures no ``logging`` (``print-norank``, ``rank0-only``) ``logger.exception`` and
``logger.error`` reach stderr through Python's last-resort handler (the message, and for ``exception`` the traceback),
on every rank, as an unconfigured program's do.

Faults added to t56_worker.py's (K10S_FAULT, on K10S_FAULT_RANK at K10S_FAULT_STEP; the others are t56's):

raise-runtime   the rank raises ``RuntimeError`` with a telling message (non-finite loss in its own batch)
raise-value     the rank raises ``ValueError`` (its batch has 7 features where the model takes 8)
assert          ``assert`` on the rank's batch size fails (``AssertionError: expected 4 samples ...``)
missing-shard   the rank opens its own shard ``data/train/shard-0000N.bin``, which is not there: ``FileNotFoundError``
keyerror        the rank's batch has no ``labels``: ``KeyError: 'labels'``
memoryerror     the rank allocates a 1 PiB buffer (``bytearray``): ``MemoryError``
missing-every   every rank opens the same missing ``data/vocab/tokenizer.json`` at the step (common-mode)
"""

from __future__ import annotations

import logging
import os
import sys
import traceback

import t58_worker

ENV = os.environ
HANDLER = ENV.get("K10S_HANDLER", "uncaught")
FAULT = ENV.get("K10S_FAULT", "none")
BAD = int(ENV.get("K10S_FAULT_RANK", "-1"))
AT = int(ENV.get("K10S_FAULT_STEP", "3"))
ME = int(ENV.get("RANK", "0"))
LOG = logging.getLogger("train")


def _own_fault(step: int) -> None:
    """This set's catchable faults (t56's own, for the others)."""
    if FAULT == "missing-every" and step == AT:
        with open("data/vocab/tokenizer.json") as f:
            f.read()
    if ME != BAD or step != AT:
        return
    if FAULT == "raise-runtime":
        raise RuntimeError(f"non-finite loss at step {step}: loss is nan for batch 17 (fp32 overflow in layer 2)")
    if FAULT == "raise-value":
        raise ValueError(f"batch 17 at step {step} has 7 features per sample; the model expects 8")
    if FAULT == "assert":
        got = 3
        assert got == 4, f"expected 4 samples in the batch at step {step}, got {got}"
    if FAULT == "missing-shard":
        with open(f"data/train/shard-{ME:05d}.bin", "rb") as f:
            f.read(16)
    if FAULT == "keyerror":
        batch = {"input_ids": [1, 2, 3], "attention_mask": [1, 1, 1]}
        batch["labels"]
    if FAULT == "memoryerror":
        bytearray(1 << 50)


def _failed() -> str:
    """``training failed`` in the drawn convention."""
    style = t58_worker.STYLE
    if style == "logging-rank":
        return t58_worker._ranked("training failed")
    if style == "lightning":
        return f"[rank: {ME}] training failed"
    return "training failed"


def _run() -> None:
    t58_worker._setup()
    import t56_worker  # reads the environment when imported

    t56_worker.print = t58_worker.say
    t56_fault = t56_worker._fault

    def fault(step: int) -> None:
        _own_fault(step)
        t56_fault(step)

    t56_worker._fault = fault
    t56_worker.main()


def main() -> None:
    if HANDLER == "uncaught":
        _run()
    elif HANDLER == "record":
        from torch.distributed.elastic.multiprocessing.errors import record

        record(_run)()
    else:
        try:
            _run()
        except Exception as e:
            sys.stdout.flush()
            if HANDLER == "exception":
                LOG.exception(_failed())
                sys.exit(1)
            if HANDLER == "error":
                LOG.error(f"rank {ME}: {e}")
                sys.exit(2)
            traceback.print_exc()
            sys.stderr.flush()
            os._exit(1)


if __name__ == "__main__":
    main()
