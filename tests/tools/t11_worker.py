"""The eleventh set's training program (tests/tools/torch_scenarios11.py records it): a tiny model whose
gradients are all-reduced by hand over gloo, run by ``torchrun`` or, with ``--launch METHOD``, by
torch's programmatic launcher (``torch.distributed.launcher.api.elastic_launch``, a function entrypoint,
``start_method`` METHOD: ``spawn`` / ``forkserver``). One fault injected on K10S_FAULT_RANK (-1: every
rank) at step K10S_FAULT_STEP.

Faults (K10S_FAULT):
keyerror        ``KeyError`` in the rank's batch lookup
sigkill         the rank SIGKILLs itself
wait-lag        every rank waits on its async all-reduce with a per-call timeout
                (``work.wait(timeout=2 s)``); the rank sleeps past it
bad-alloc       ``RLIMIT_AS`` a little above the rank's size, then a 1 GiB activation buffer:
                ``DefaultCPUAllocator: can't allocate memory``
dump-hang       every rank arms ``faulthandler.dump_traceback_later`` each step; the rank hangs,
                the watchdog dumps every waiting rank's stack, the peers time out
cpp-matmul      a matmul of the wrong shape under ``TORCH_SHOW_CPP_STACKTRACES=1`` (C++ frames)
handler-barrier the rank raises ``ValueError``; its ``except`` calls ``dist.barrier()`` to let the
                others finish, which fails too ("During handling of the above exception …")
warn-error      every rank turns ``UserWarning`` into errors; the rank's read-only numpy batch warns
linalg          ``torch.linalg.inv`` of a singular matrix (``torch._C._LinAlgError``)
slow-dump       (control) the rank is slow once; the watchdog dumps every rank's stack; the run ends well
glog-noise      (control) the rank logs ERROR lines in glog's format for a retried upload; the run ends well
K10S_LOG: ``lines`` (a ``logging`` formatter that puts time, host and rank before every line, tracebacks
included) or ``glog`` (``E1129 14:00:00.123456 1234 t11_worker.py:88] …``); a failure is then logged
(``logger.exception``) and the rank leaves with ``sys.exit(1)``.
"""

from __future__ import annotations

import datetime as dt
import faulthandler
import logging
import os
import resource
import signal
import sys
import time
import warnings

import torch
import torch.distributed as dist

ENV = os.environ
GLOO_TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
ATTEMPT = int(ENV.get("TORCHELASTIC_RESTART_COUNT", "0"))
LOG = logging.getLogger("trainer")


class EveryLine(logging.Formatter):
    """Time, host and rank before every line of the record (its traceback's lines too)."""

    def format(self, record):
        head = f"{self.formatTime(record)} node-{ENV.get('GROUP_RANK', '0')} rank={ENV.get('RANK', '?')} {record.levelname} "
        return "\n".join(head + line for line in super().format(record).splitlines())


def _logging() -> None:
    style = ENV.get("K10S_LOG")
    if not style:
        return
    handler = logging.StreamHandler(sys.stdout)
    if style == "lines":
        handler.setFormatter(EveryLine("%(message)s"))
    else:
        handler.setFormatter(logging.Formatter("%(levelname).1s%(asctime)s.%(msecs)03d000 %(process)d %(filename)s:%(lineno)d] "
                                               "%(message)s", datefmt="%m%d %H:%M:%S"))
    logging.basicConfig(level=logging.INFO, handlers=[handler])


def say(msg: str) -> None:
    if ENV.get("K10S_LOG"):
        LOG.info(msg)
    else:
        print(msg)  # no flush: with PYTHONUNBUFFERED unset, a pipe is block-buffered


def _bad_alloc() -> None:
    with open("/proc/self/statm") as f:
        size = int(f.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (size + (256 << 20), resource.RLIM_INFINITY))
    torch.empty(64, 1024, 1024, 4)  # the activation buffer for batch 64: 1 GiB


def _fault(kind: str, rank: int, x: torch.Tensor) -> None:
    if kind == "keyerror":
        {"input_ids": x}["labels"]
    elif kind == "sigkill":
        os.kill(os.getpid(), signal.SIGKILL)
    elif kind == "wait-lag":
        time.sleep(4 * GLOO_TIMEOUT_S)
    elif kind == "bad-alloc":
        _bad_alloc()
    elif kind == "dump-hang":
        time.sleep(6 * GLOO_TIMEOUT_S)
    elif kind == "slow-dump":
        time.sleep(1.6)
    elif kind == "cpp-matmul":
        torch.mm(x, torch.ones(7, 8))
    elif kind == "handler-barrier":
        try:
            raise ValueError(f"rank {rank}: batch has 3 NaN labels at step {BAD_STEP}")
        except ValueError:
            dist.barrier()  # let the others finish the step before stopping
            raise
    elif kind == "warn-error":
        import numpy as np

        batch = np.ones((4, 8), dtype=np.float32)
        batch.setflags(write=False)
        torch.from_numpy(batch)
    elif kind == "linalg":
        torch.linalg.inv(torch.zeros(3, 3))
    elif kind == "glog-noise":
        try:
            raise ConnectionError("upload to s3://ckpt/step-3 timed out")
        except ConnectionError as e:
            LOG.error("checkpoint upload failed, will retry (1/3): %r", e)
        LOG.warning("checkpoint upload retried: ok")


def _init(rank: int, world: int) -> None:
    timeout = dt.timedelta(seconds=GLOO_TIMEOUT_S)
    if ATTEMPT:  # torch 2.13's agent store keeps the last attempt's gloo addresses: this attempt's keys apart
        store = dist.TCPStore(ENV["MASTER_ADDR"], int(ENV["MASTER_PORT"]), world, False, timeout=timeout)
        dist.init_process_group("gloo", store=dist.PrefixStore(f"attempt{ATTEMPT}", store), rank=rank, world_size=world,
                                timeout=timeout)
    else:
        dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timeout)


def _mark(local_rank: int) -> None:
    mark = ENV.get("K10S_MARK_DIR")
    if mark and local_rank == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))


def _reduce(t: torch.Tensor) -> None:
    if KIND == "wait-lag":
        dist.all_reduce(t, async_op=True).wait(timeout=dt.timedelta(seconds=2))
    else:
        dist.all_reduce(t)


def train(rank: int, world: int, local_rank: int) -> None:
    _logging()
    if KIND == "warn-error":
        warnings.simplefilter("error", UserWarning)
    _init(rank, world)
    _mark(local_rank)
    say(f"rank {rank}/{world} (local {local_rank}, pid {os.getpid()}) initialised")
    torch.manual_seed(0)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for step in range(int(ENV.get("K10S_STEPS", "6"))):
        if KIND in ("dump-hang", "slow-dump"):
            faulthandler.dump_traceback_later(1.0, exit=False)
        x = torch.ones(4, 8) * (step % 5)
        if step == BAD_STEP and CULPRIT:
            _fault(KIND, rank, x)
        loss = model(x).pow(2).mean()
        loss.backward()
        for p in model.parameters():
            _reduce(p.grad)
            p.grad /= world
        opt.step()
        opt.zero_grad()
        faulthandler.cancel_dump_traceback_later()
        say(f"rank {rank} step {step} loss {loss.item():.4f}")
        time.sleep(0.3)
    dist.destroy_process_group()
    say(f"rank {rank} done")


BAD_STEP = int(ENV.get("K10S_FAULT_STEP", "3"))
KIND = ENV.get("K10S_FAULT", "none")
RANK = int(ENV["RANK"]) if "RANK" in ENV else -2
CULPRIT = KIND != "none" and int(ENV.get("K10S_FAULT_RANK", "1")) in (RANK, -1)


def entry() -> None:
    """The rank's program: its place from the launcher's environment."""
    global RANK, CULPRIT
    RANK = int(ENV["RANK"])
    CULPRIT = KIND != "none" and int(ENV.get("K10S_FAULT_RANK", "1")) in (RANK, -1)
    try:
        train(RANK, int(ENV["WORLD_SIZE"]), int(ENV.get("LOCAL_RANK", "0")))
    except Exception:
        if not ENV.get("K10S_LOG"):
            raise
        LOG.exception("training failed")
        logging.shutdown()
        sys.exit(1)


def launch(method: str, nnodes: int, nproc: int, endpoint: str, run_id: str) -> None:
    """torch's programmatic launcher: one call per node, the entrypoint a function."""
    import t11_worker as me
    from torch.distributed.launcher.api import LaunchConfig, elastic_launch

    config = LaunchConfig(min_nodes=nnodes, max_nodes=nnodes, nproc_per_node=nproc, run_id=run_id, rdzv_backend="c10d",
                          rdzv_endpoint=endpoint, rdzv_configs={"join_timeout": 10}, max_restarts=0, monitor_interval=0.5,
                          start_method=method)
    elastic_launch(config, me.entry)()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--launch"]:
        method, nnodes, nproc, endpoint, run_id = sys.argv[2:7]
        launch(method, int(nnodes), int(nproc), endpoint, run_id)
    else:
        entry()
