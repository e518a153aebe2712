"""The forty-fifth set's training program (tests/tools/torch_scenarios45.py records it): a DDP loop on gloo on CPU whose
errors reach the console the way today's training scripts print them, by K10S_LOG_STYLE:

rich     ``rich.logging.RichHandler`` records and ``rich.traceback.install()``: an uncaught exception is a box-drawn
         traceback (``╭─ Traceback (most recent call last) ─╮``) with the exception line below the box
loguru   loguru's default sink (``YYYY-MM-DD HH:mm:ss.SSS | LEVEL | module:function:line - message``); ``main`` under
         ``@logger.catch`` (K10S_LOGURU_RERAISE=1: ``reraise=True``), whose report is ``An error has been caught in
         function 'main', process 'MainProcess' (pid), thread ...`` and a traceback annotated with the variables' values
json     one JSON object per record (``{"time", "level", "logger", "rank", "message", "exc_info"}``, as
         python-json-logger writes them); every error is logged with ``LOG.exception`` and the process exits 1
hydra    ``@hydra.main``: hydra's ``[time][logger][LEVEL] - message`` records; an exception ends in ``Error executing job
         with overrides: [...]``, the traceback and ``Set the environment variable HYDRA_FULL_ERROR=1 ...``

One fault from K10S_FAULT on K10S_FAULT_RANK (-1: every rank) after step K10S_FAULT_STEP (default 3):

keyerror       the rank's batch lacks its label: ``KeyError: 'label'``
segfault       the rank reads address 0 (no faulthandler): SIGSEGV
zerodiv        the rank's loss scale divides by a zero token count: ``ZeroDivisionError``
alloc          the rank asks the CPU allocator for 1 PiB: ``DefaultCPUAllocator: can't allocate memory``
corrupt-shard  the rank's data shard fails its checksum: ``RuntimeError: shard ... crc32 mismatch``
hang           the rank sleeps twice the gloo timeout before its step's all-reduce (its peers time out waiting)
eval-empty     the rank's evaluation set is empty: ``ValueError``
missing-key    (every rank, a control) the config lacks ``optim``: omegaconf's ``ConfigAttributeError``
noisy          (a control) no fault; WARNING records that mention errors (a retried fetch, an error estimate)
"""

from __future__ import annotations

import datetime as dt
import logging
import os
import sys
import tempfile
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

ENV = os.environ
STYLE = ENV.get("K10S_LOG_STYLE", "json")
TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
FAULT, BAD, AT = ENV.get("K10S_FAULT", "none"), int(ENV.get("K10S_FAULT_RANK", "1")), int(ENV.get("K10S_FAULT_STEP", "3"))
STEPS = int(ENV.get("K10S_STEPS", "6"))
RERAISE = ENV.get("K10S_LOGURU_RERAISE") == "1"
RANK = int(ENV["RANK"])
LOG = logging.getLogger("trainer")


def _hit(fault: str) -> bool:
    return FAULT == fault and BAD in (RANK, -1)


def _batch(step: int) -> dict:
    batch = {"input": torch.randn(4, 8), "label": torch.randn(4, 1), "tokens": 4}
    if step == AT and _hit("keyerror"):
        del batch["label"]
    if step == AT and _hit("zerodiv"):
        batch["tokens"] = 0
    return batch


def _fault_at_step() -> None:
    if _hit("segfault"):
        import ctypes
        ctypes.string_at(0)
    if _hit("alloc"):
        torch.empty(1 << 50, dtype=torch.uint8)
    if _hit("corrupt-shard"):
        raise RuntimeError(f"shard train-{RANK:05d}.tar: crc32 mismatch (expected 0x5f3a9c21, got 0x00000000)")
    if _hit("hang"):
        time.sleep(TIMEOUT_S * 2)
    if _hit("eval-empty"):
        raise ValueError("evaluation set /data/eval.jsonl has 0 records")
    if _hit("noisy"):
        _say("warning", "fetch of s3://bucket/shards/index.json failed, retrying in 1s after error: transient")
        _say("warning", f"grad-norm error estimate {0.02 * (RANK + 1):.3f} above 0.01")


def _say(level: str, msg: str) -> None:
    if STYLE == "loguru":
        from loguru import logger
        getattr(logger, level)(f"[rank {RANK}] {msg}")
    else:
        getattr(LOG, level)(msg if STYLE == "json" else f"[rank {RANK}] {msg}")


def train(cfg=None) -> None:
    if _hit("missing-key"):
        _say("info", f"optimizer lr {cfg.optim.lr}")
    dist.init_process_group("gloo", timeout=dt.timedelta(seconds=TIMEOUT_S))
    torch.manual_seed(RANK)
    ddp = DDP(torch.nn.Linear(8, 1))
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    for step in range(STEPS):
        batch = _batch(step)
        if step == AT:
            _fault_at_step()
        scale = 4 / batch["tokens"]  # the loss per token
        loss = torch.nn.functional.mse_loss(ddp(batch["input"]), batch["label"]) * scale
        opt.zero_grad()
        loss.backward()
        opt.step()
        _say("info", f"step {step}/{STEPS} loss {loss.item():.4f}")
        time.sleep(0.2)
    dist.barrier()
    _say("info", "training done")
    dist.destroy_process_group()


def _run_rich() -> None:
    from rich.logging import RichHandler
    from rich.traceback import install
    install(width=120)
    logging.basicConfig(level=logging.INFO, format="%(message)s", datefmt="[%X]", handlers=[RichHandler(rich_tracebacks=True)])
    train()


def _run_loguru() -> None:
    from loguru import logger
    logger.catch(reraise=RERAISE)(train)()


class _JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        import json
        out = {"time": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z", "level": record.levelname,
               "logger": record.name, "rank": RANK, "message": record.getMessage()}
        if record.exc_info:
            out["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(out)


def _run_json() -> None:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonFormatter())
    logging.Formatter.converter = time.gmtime
    logging.basicConfig(level=logging.INFO, handlers=[handler])
    try:
        train()
    except Exception:
        LOG.exception("training failed")
        sys.exit(1)


def _run_hydra() -> None:
    import hydra
    run_dir = os.path.join(ENV.get("K10S_MARK_DIR") or tempfile.mkdtemp(prefix="k10s-t45-"), f"outputs-rank{RANK}")
    sys.argv += [f"hydra.run.dir={run_dir}"]
    hydra.main(version_base=None, config_path=None, config_name=None)(train)()


if __name__ == "__main__":
    {"rich": _run_rich, "loguru": _run_loguru, "json": _run_json, "hydra": _run_hydra}[STYLE]()
