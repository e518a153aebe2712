"""The sixteenth set's training program (tests/tools/torch_scenarios16.py records it), run by ``torchrun``: the
fourteenth set's loop (tests/tools/t14_worker.py: a tiny linear model, gradients all-reduced by hand over gloo) with
this set's faults in its step (``argparse``: at start-up, before the process group). One fault on K10S_FAULT_RANK
(-1: every rank) at step K10S_FAULT_STEP.

Faults (K10S_FAULT):
eof-input     a leftover ``input()`` prompt (overwrite the checkpoint folder?) reads the pod's empty stdin: ``EOFError``
conn-refused  the rank pushes its metrics to a gateway that is down: ``urllib.error.URLError`` over ``ConnectionRefusedError``
user-timeout  the rank's prefetch (``concurrent.futures``) is waited on with ``result(timeout=0.2)``: ``TimeoutError``
sigprof       a profiler's ``setitimer(ITIMER_PROF)`` left armed with no handler: SIGPROF's default action ends the rank
argparse      the rank's overrides (``--lr 3e-4,``) are refused by ``argparse``: usage, an error line, exit status 2
grad-hook     a gradient hook on the weight raises ``ValueError`` (a norm guard) inside ``loss.backward()``
child-segv    the rank's data-prep child (``subprocess.run(check=True)``) segfaults: ``CalledProcessError``
net-handled   (control) the rank's failed metrics push and timed-out prefetch are caught, their tracebacks printed,
              the run goes on and ends well
"""

from __future__ import annotations

import argparse
import concurrent.futures
import os
import signal
import socket
import subprocess
import sys
import time
import traceback
import urllib.request

import t14_worker as t14
import torch

ENV = os.environ
FAULT, AT_STEP, ME, HIT = t14.FAULT, t14.AT_STEP, t14.ME, t14.HIT


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _push_metrics(step: int) -> None:
    body = f"loss{{rank=\"{ME}\"}} 0.5\nstep{{rank=\"{ME}\"}} {step}\n".encode()
    url = f"http://127.0.0.1:{_closed_port()}/metrics/job/train/instance/rank{ME}"
    urllib.request.urlopen(urllib.request.Request(url, data=body, method="PUT"), timeout=2)


def _prefetch(step: int) -> None:
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(time.sleep, 1.0).result(timeout=0.2)


def _guard(grad: torch.Tensor) -> None:
    raise ValueError(f"gradient norm {grad.norm().item() * 1e5:.4g} above the guard (1e+03): refusing the step")


def _inject(step: int, model: torch.nn.Module) -> None:
    """This set's fault in the fourteenth set's step (its ``_inject``)."""
    if FAULT == "eof-input":
        answer = input("checkpoint folder /ckpt/run-7 exists: overwrite? [y/N] ")
        print(f"rank {ME}: answer {answer!r}", flush=True)
    elif FAULT == "conn-refused":
        _push_metrics(step)
    elif FAULT == "user-timeout":
        _prefetch(step)
    elif FAULT == "sigprof":
        signal.setitimer(signal.ITIMER_PROF, 0.05)
        torch.randn(256, 256).matmul(torch.randn(256, 256)).sum().item()
        sum(i * i for i in range(10**7))
    elif FAULT == "grad-hook":
        model.weight.register_hook(_guard)
    elif FAULT == "child-segv":
        subprocess.run([sys.executable, "-c", "import ctypes; ctypes.string_at(0)"], check=True)
    elif FAULT == "net-handled":
        for what, call in (("metrics push", _push_metrics), ("prefetch", _prefetch)):
            try:
                call(step)
            except (OSError, TimeoutError):
                traceback.print_exc()
                print(f"rank {ME}: {what} failed, going on without it", flush=True)


def _overrides() -> None:
    parser = argparse.ArgumentParser(prog="t16_worker.py")
    parser.add_argument("--lr", type=float, default=3e-4)
    parser.add_argument("--batch-size", type=int, default=4)
    parser.parse_args(["--lr", "3e-4,", "--batch-size", "4"] if HIT else [])


def main() -> None:
    if FAULT == "argparse":
        _overrides()
    t14._inject = _inject
    t14.main()


if __name__ == "__main__":
    main()
