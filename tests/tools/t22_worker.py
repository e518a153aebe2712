"""The twenty-second set's training program (tests/tools/torch_scenarios22.py records it), run by ``torchrun``: the
twenty-first set's program (tests/tools/t21_worker.py: the nineteenth and seventeenth sets' loop and faults) with this
set's faults in its step. One fault on K10S_FAULT_RANK (-1: every rank) at step K10S_FAULT_STEP.

Faults (K10S_FAULT):
child-kill     the rank's tokenizer child (``subprocess.run(check=True)``) is SIGKILLed, as the kernel's OOM killer ends
               the biggest process of a cgroup (the child, not the rank): ``CalledProcessError … died with
               <Signals.SIGKILL: 9>`` in the rank
ckpt-truncated the rank resumes a checkpoint that was cut short (its copy half written): ``torch.load`` raises
               ``RuntimeError: PytorchStreamReader failed reading zip archive: failed finding central directory``
shared-missing the rank opens its tokenizer file on a shared volume that is not mounted: ``FileNotFoundError``
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys

ENV = os.environ
MINE = ("child-kill", "ckpt-truncated", "shared-missing")
#: The tokenizer child: it announces its shard, then is killed as the OOM killer would kill it.
CHILD = "import os, signal, sys; print('tokenizing', sys.argv[1], flush=True); os.kill(os.getpid(), signal.SIGKILL)"


def _tokenize_shard(me: int, step: int) -> None:
    print(f"rank {me}: step {step} tokenizing the next shard in a child process", flush=True)
    subprocess.run([sys.executable, "-c", CHILD, f"shard-{me:05d}.jsonl"], check=True)


def _resume(me: int) -> None:
    import torch

    path = os.path.join(ENV.get("K10S_MARK_DIR", "/tmp"), f"resume-rank{me}.pt")
    torch.save({"step": 2, "weight": torch.zeros(64, 64)}, path)
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)
    print(f"rank {me}: resuming from {os.path.basename(path)}", flush=True)
    torch.load(path)


def _open_tokenizer() -> None:
    with open("/mnt/shared/tokenizers/bpe-50k/tokenizer.json", encoding="utf-8") as f:
        f.read()


def main() -> None:
    t21, t19, t17 = (importlib.import_module(m) for m in ("t21_worker", "t19_worker", "t17_worker"))
    base_inject = t19._inject

    def _inject(step: int, model) -> None:
        """In the loop's step: this set's fault, else the earlier sets'."""
        if t17.FAULT == "child-kill":
            _tokenize_shard(t17.ME, step)
        elif t17.FAULT == "ckpt-truncated":
            _resume(t17.ME)
        elif t17.FAULT == "shared-missing":
            _open_tokenizer()
        else:
            base_inject(step, model)

    t19._inject = _inject  # the twenty-first set's step falls back on it
    t21.main()


if __name__ == "__main__":
    main()
