"""The fifty-eighth set's training program (tests/tools/torch_scenarios58.py records it): the fifty-sixth set's
(tests/tools/t56_worker.py: a tiny DDP model on gloo on CPU, 10 steps, gloo timeouts of 3 s, one fault from K10S_FAULT
on K10S_FAULT_RANK at K10S_FAULT_STEP; its faults and settings unchanged), but the program's OWN lines are written the
way K10S_LOG_STYLE says (t56_worker.py's ``print`` replaced; the faults' errors still leave as uncaught tracebacks on
stderr, or as no word at all for the signals):

print-norank    ``print`` with no rank at all (``step 3/10 loss 0.1234``): only torchrun's prefix, if any, tells ranks apart
logging-rank    Python ``logging`` (``logging.basicConfig``, stderr) with the rank, by K10S_RANK_FORMAT: ``field``
                (``%(asctime)s - [rank %(rank)s] - %(levelname)s - %(message)s``), ``RANK`` (``[RANK 3] ...``), ``rank=``
                (``rank=3 ...``), ``slash`` (``[3/4] ...``), ``paren`` (``... (rank 3)``) in the message
logging-norank  Python ``logging`` with timestamps only (``2026-12-06 21:03:11,123 INFO step 3/10 ...``), every rank to
                the same stream, no rank anywhere
rank0-only      ``if rank == 0: print(...)``: only rank 0 says anything of its own
deepspeed       DeepSpeed-like records ``[2026-12-06 21:03:11,123] [INFO] [engine.py:123:step] ...`` (written here, nothing
                installed): every rank's own lines without a rank, the step lines ``log_dist``-like from rank 0 only
                (``[Rank 0] step 3/10 ...``)
lightning       Lightning-like: ``Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/4`` on every rank, then
                ``[rank: 1] ...`` lines (written here, nothing installed)
"""

from __future__ import annotations

import logging
import os
import re
import sys

STYLE = os.environ.get("K10S_LOG_STYLE", "print-norank")
RANKFMT = os.environ.get("K10S_RANK_FORMAT", "field")
ME, WORLD = int(os.environ.get("RANK", "0")), int(os.environ.get("WORLD_SIZE", "1"))
LOG = logging.getLogger("train")
_LINES = ((re.compile(r"rank \d+/\d+ \(local (\d+), pid (\d+)\) starting$"), "starting (local rank {0}, pid {1})"),
          (re.compile(r"rank \d+ step (\d+)/(\d+) loss (\S+)$"), "step {0}/{1} loss {2}"),
          (re.compile(r"rank \d+ done$"), "training done"))


class _Rank(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.rank = ME
        return True


def _setup() -> None:
    if STYLE == "logging-rank":
        fmt = ("%(asctime)s - [rank %(rank)s] - %(levelname)s - %(message)s" if RANKFMT == "field"
               else "%(asctime)s - %(levelname)s - %(message)s")
        logging.basicConfig(level=logging.INFO, format=fmt)
        for h in logging.getLogger().handlers:
            h.addFilter(_Rank())
    elif STYLE == "logging-norank":
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    elif STYLE == "deepspeed":
        logging.basicConfig(level=logging.INFO, format="[%(asctime)s] [%(levelname)s] [engine.py:%(lineno)d:step] "
                            "%(message)s")
    elif STYLE == "lightning":
        logging.basicConfig(level=logging.INFO, format="%(message)s")
        LOG.info(f"Initializing distributed: GLOBAL_RANK: {ME}, MEMBER: {ME + 1}/{WORLD}")


def _ranked(msg: str) -> str:
    return {"field": msg, "RANK": f"[RANK {ME}] {msg}", "rank=": f"rank={ME} {msg}", "slash": f"[{ME}/{WORLD}] {msg}",
            "paren": f"{msg} (rank {ME})"}[RANKFMT]


def say(*args, **_kw) -> None:
    """t56_worker.py's ``print``, written in the drawn style."""
    line = " ".join(map(str, args))
    for pat, out in _LINES:
        m = pat.match(line)
        if m:
            line = out.format(*m.groups())
            break
    step_line = line.startswith("step ")
    if STYLE == "print-norank":
        print(line, flush=True)
    elif STYLE == "rank0-only":
        if ME == 0:
            print(line, flush=True)
    elif STYLE == "logging-rank":
        LOG.info(_ranked(line))
    elif STYLE == "logging-norank":
        LOG.info(line)
    elif STYLE == "deepspeed":
        if not step_line:
            LOG.info(line)
        elif ME == 0:
            LOG.info(f"[Rank 0] {line}")
    elif STYLE == "lightning":
        LOG.info(f"[rank: {ME}] {line}")
    for h in logging.getLogger().handlers:
        h.flush()
    sys.stdout.flush()


def main() -> None:
    _setup()
    import t56_worker  # reads the environment when imported

    t56_worker.print = say  # the module's own lines, in this style
    t56_worker.main()


if __name__ == "__main__":
    main()
