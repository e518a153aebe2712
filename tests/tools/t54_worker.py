"""The fifty-fourth set's training program (tests/tools/torch_scenarios54.py records it): a DDP loop on gloo on CPU, the
same program on every rank, each rank logging through ``logging`` as training scripts do. Two things may go on in one
run: a red herring (K10S_HERRING, on rank K10S_HERRING_RANK, -1: every rank; at step K10S_HERRING_STEP, default 2) that
ends nothing, and the real fault (K10S_FAULT, on rank K10S_FAULT_RANK, ``every`` faults on every rank; at step
K10S_FAULT_STEP, default 4). Herrings:

value       the rank's eval batch raises a ``ValueError``; the script catches it and logs it with its traceback
            (``logging.exception("eval batch failed, skipping")``) and goes on
key         the same with a ``KeyError`` (a missing field in the batch's metadata)
retry       the rank's shard read fails once: ``ERROR ... read of shard ... failed: ... retrying (1/3)``; the retry
            succeeds (``read of shard ... ok on attempt 2``)
warn        a deprecation ``FutureWarning`` (``warnings.warn``, printed as ``file:line: FutureWarning: ...`` with its
            source line), the same on every rank
probe       the rank's own health probe of its peers' store raises a ``torch.distributed.DistBackendError`` worded as
            gloo words its errors; the script catches it and logs it with its traceback
            (``logging.exception("health probe failed (1/3), continuing")``)
error-line  one ERROR-level line (``ERROR ... failed to write metrics ...: metrics dropped``), no traceback; training
            survives

Faults (the real ones):

sigkill     the rank kills itself with SIGKILL (as the kernel's OOM killer would), no word
exit1       the rank leaves with ``os._exit(1)``, no word
raise       the rank raises ``RuntimeError`` (not caught)
segfault    the rank dereferences NULL (``ctypes.string_at(0)``): SIGSEGV
hang        the rank sleeps in its own compute (a stuck data loader or kernel) far past the gloo timeout: only its peers'
            all-reduce timeouts print
config      every rank raises the same ``ValueError`` from its config check at the step (common-mode)
none        nothing: the job completes

Each step does a few small matrix products (a little CPU work) and prints the step's loss and wall time.
"""

from __future__ import annotations

import ctypes
import datetime as dt
import logging
import os
import signal
import time
import warnings

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

ENV = os.environ
TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
FAULT = ENV.get("K10S_FAULT", "none")
BAD = int(ENV.get("K10S_FAULT_RANK", "-1"))
AT = int(ENV.get("K10S_FAULT_STEP", "4"))
HERRING = ENV.get("K10S_HERRING", "none")
HERRING_RANK = int(ENV.get("K10S_HERRING_RANK", "-1"))
HERRING_AT = int(ENV.get("K10S_HERRING_STEP", "2"))
STEPS = int(ENV.get("K10S_STEPS", "8"))
ME, LOCAL = int(ENV.get("RANK", "0")), int(ENV.get("LOCAL_RANK", "0"))
NODE = int(ENV.get("GROUP_RANK", "0"))

logging.basicConfig(level=logging.INFO, format=f"%(asctime)s %(levelname)s [rank{ME}] %(name)s: %(message)s")
log = logging.getLogger("train")


def _eval_batch(step: int) -> float:
    """The rank's eval batch (the herring's error where it puts it)."""
    if HERRING == "value":
        raise ValueError(f"eval batch {step}: expected 4 samples, got 3 (last shard truncated)")
    meta = {"shard": ME, "step": step}
    return float(meta["num_tokens"])  # the herring ``key``: KeyError


def _herring(step: int) -> None:
    if HERRING == "none" or step != HERRING_AT or HERRING_RANK not in (-1, ME):
        return
    if HERRING in ("value", "key"):
        try:
            _eval_batch(step)
        except (ValueError, KeyError):
            log.exception("eval batch failed, skipping")
    elif HERRING == "retry":
        log.error("read of shard /data/shard-%05d.bin failed: [Errno 5] Input/output error, retrying (1/3)", ME)
        time.sleep(0.3)
        log.info("read of shard /data/shard-%05d.bin ok on attempt 2", ME)
    elif HERRING == "warn":
        warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cuda', args...)` instead.", FutureWarning, stacklevel=1)
    elif HERRING == "probe":
        try:
            raise dist.DistBackendError("[../third_party/gloo/gloo/transport/tcp/pair.cc:534] Read error "
                                        "[127.0.0.1]:29517: Connection reset by peer (health probe of the metrics store)")
        except dist.DistBackendError:
            log.exception("health probe failed (1/3), continuing")
    elif HERRING == "error-line":
        log.error("failed to write metrics to /tmp/metrics-rank%d.jsonl: [Errno 122] Disk quota exceeded; "
                  "metrics dropped", ME)


def _fault(step: int) -> None:
    if FAULT == "config" and step == AT:
        raise ValueError(f"config: scheduler.warmup_steps (1000) must be smaller than trainer.max_steps ({STEPS})")
    if FAULT == "none" or ME != BAD or step != AT:
        return
    if FAULT == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    if FAULT == "exit1":
        os._exit(1)
    if FAULT == "raise":
        raise RuntimeError(f"tokenizer returned an empty sequence for sample {step * 4 + 2} of shard {ME}")
    if FAULT == "segfault":
        ctypes.string_at(0)
    if FAULT == "hang":
        time.sleep(600)


def _work() -> None:
    a = torch.randn(256, 256, generator=torch.Generator().manual_seed(ME))
    for _ in range(40):  # about 20 ms of one CPU
        a = torch.tanh(a @ a / 256)


def main() -> None:
    world = int(ENV["WORLD_SIZE"])
    print(f"rank {ME}/{world} (local {LOCAL}, node {NODE}, pid {os.getpid()}) starting", flush=True)
    dist.init_process_group("gloo", timeout=dt.timedelta(seconds=TIMEOUT_S))
    mark = ENV.get("K10S_MARK_DIR")
    if mark and LOCAL == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
    ddp = DDP(model)
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    for step in range(STEPS):
        t0 = time.time()
        _herring(step)
        _fault(step)
        _work()
        opt.zero_grad()
        g = torch.Generator().manual_seed(step * 100 + ME)
        x, y = torch.randn(4, 8, generator=g), torch.zeros(4, 1)
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        loss.backward()
        opt.step()
        print(f"rank {ME} step {step} loss {loss.item():.4f} ({time.time() - t0:.2f}s)", flush=True)
        time.sleep(0.2)
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
