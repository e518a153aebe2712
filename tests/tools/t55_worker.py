"""The fifty-fifth set's training program (tests/tools/torch_scenarios55.py records it): a fast DDP loop on gloo on CPU
(420 steps), the same program on every rank, as chatty as a real pod's: the fault comes late, deep in the noise.

Noise (K10S_NOISE, a comma list; each rank its own unless said):
bars        a tqdm-like progress bar on stderr, redrawn every 5 steps with a carriage return (``\\r``) and ANSI colour,
            no newline until its epoch (128 steps) ends: one long line of redraws per epoch; whatever the rank writes to
            stderr next (a warning, a traceback) is glued after the last bar fragment on that line
steps       a progress line on stdout every 2 steps (``rank N step S/420 loss ... lr ... tok/s ...``): hundreds per rank
eval        every 50 steps an eval line (``eval @ step S: val_loss ... acc ...``), rank 0 a checkpoint line every 100
warn        the same ``UserWarning`` (``warnings.warn`` with the filter ``always``) every 20 steps on every rank (on stderr,
            with its source line)
health      rank 0 prints a health line every 0.2 s from a thread (``health: ok (uptime ..., rss ... MB, step S)``)
errline     an ERROR-level line every 25 steps on every rank (``ERROR ... metrics: failed to push ...: Connection
            refused; will retry``): it ends nothing

Faults (K10S_FAULT, on rank K10S_FAULT_RANK, at step K10S_FAULT_STEP):

sigkill     the rank kills itself with SIGKILL (as the kernel's OOM killer would), no word
exit1       the rank leaves with ``os._exit(1)``, no word
raise       the rank raises ``RuntimeError`` (not caught): its traceback glued after its last bar fragment
segfault    the rank dereferences NULL (``ctypes.string_at(0)``): SIGSEGV
abort       the rank calls ``os.abort()``: SIGABRT, no word
hang        the rank sleeps in its own compute far past the gloo timeout: only its peers' all-reduce timeouts print
config      every rank raises the same ``ValueError`` (a shape check of its batch) at the step (common-mode)
none        nothing: the job completes
"""

from __future__ import annotations

import ctypes
import datetime as dt
import logging
import os
import signal
import sys
import threading
import time
import warnings

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

ENV = os.environ
TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
FAULT = ENV.get("K10S_FAULT", "none")
BAD = int(ENV.get("K10S_FAULT_RANK", "-1"))
AT = int(ENV.get("K10S_FAULT_STEP", "300"))
STEPS = int(ENV.get("K10S_STEPS", "420"))
NOISE = set(ENV.get("K10S_NOISE", "bars,steps,eval,warn,health").split(","))
EPOCH = 128
ME, LOCAL = int(ENV.get("RANK", "0")), int(ENV.get("LOCAL_RANK", "0"))
NODE = int(ENV.get("GROUP_RANK", "0"))

logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                    format=f"%(asctime)s %(levelname)s [rank{ME}] %(name)s: %(message)s")
log = logging.getLogger("train")
warnings.simplefilter("always", UserWarning)
T0 = time.time()
STATE = {"step": 0}


def _bar(step: int, loss: float) -> None:
    """The tqdm-like bar, redrawn in place (``\\r``); a newline only when its epoch ends."""
    epoch, done = divmod(step, EPOCH)
    n = done * 20 // EPOCH
    el = time.time() - T0
    rate = (step + 1) / max(el, 1e-6)
    sys.stderr.write(f"\r\x1b[32mepoch {epoch}\x1b[0m {done * 100 // EPOCH:3d}%|{'█' * n}{' ' * (20 - n)}| "
                     f"{done}/{EPOCH} [{int(el) // 60:02d}:{int(el) % 60:02d}<00:{int((EPOCH - done) / rate) % 60:02d}, "
                     f"{rate:.2f}it/s, loss={loss:.3f}]")
    if done == EPOCH - 1:
        sys.stderr.write("\n")
    sys.stderr.flush()


def _health() -> None:
    while True:
        time.sleep(0.2)
        log.info("health: ok (uptime %.1fs, rss %d MB, step %d)", time.time() - T0, 300 + STATE["step"] // 10,
                 STATE["step"])


def _noise(step: int) -> None:
    if "warn" in NOISE and step % 20 == 10:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. In version 2.5 "
                      "we will raise an exception if use_reentrant is not passed.", UserWarning, stacklevel=1)
    if "eval" in NOISE and step and step % 50 == 0:
        log.info("eval @ step %d: val_loss %.4f acc %.3f (16 batches, 0.03s)", step, 1.0 / (1 + step / 100),
                 0.5 + step / 1000)
        if ME == 0 and step % 100 == 0:
            log.info("saving checkpoint to /ckpt/run-42/step-%06d.pt", step)
    if "errline" in NOISE and step and step % 25 == 0:
        log.error("metrics: failed to push to http://pushgateway.monitoring:9091/metrics/job/train: [Errno 111] "
                  "Connection refused; will retry")


def _fault(step: int) -> None:
    if FAULT == "config" and step == AT:
        raise ValueError(f"batch at step {step}: expected input of shape [4, 8], got [4, 16] (data.seq_len changed by "
                         "the curriculum schedule)")
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
    if FAULT == "abort":
        os.abort()
    if FAULT == "hang":
        time.sleep(600)


def _work() -> None:
    a = torch.randn(64, 64, generator=torch.Generator().manual_seed(ME))
    for _ in range(4):
        a = torch.tanh(a @ a / 64)


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
    if "health" in NOISE and ME == 0:
        threading.Thread(target=_health, daemon=True).start()
    for step in range(STEPS):
        STATE["step"] = step
        t0 = time.time()
        _noise(step)
        _fault(step)
        _work()
        opt.zero_grad()
        g = torch.Generator().manual_seed(step * 100 + ME)
        x, y = torch.randn(4, 8, generator=g), torch.zeros(4, 1)
        loss = torch.nn.functional.mse_loss(ddp(x), y)
        loss.backward()
        opt.step()
        if "steps" in NOISE and step % 2 == 0:
            print(f"rank {ME} step {step}/{STEPS} loss {loss.item():.4f} lr 1.0e-02 tok/s {int(32 / max(time.time() - t0, 1e-3))}",
                  flush=True)
        if "bars" in NOISE and (step % 5 == 4 or step % EPOCH == EPOCH - 1):
            _bar(step, loss.item())
        time.sleep(0.01)
    if "bars" in NOISE:
        sys.stderr.write("\n")
        sys.stderr.flush()
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
