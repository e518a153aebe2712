"""The forty-ninth set's training program (tests/tools/torch_scenarios49.py records it): a DDP loop on gloo on CPU, 2
agents x 2 processes, reading K10S_DATA_DIR (one folder every node sees, as a shared volume): ``config.json`` and
``tokenizer.json`` at start, then at step K10S_FAULT_STEP (default 3) its node's shard ``train-<node>-of-00002.jsonl``
and a batch from it. The fault from K10S_FAULT, on the ranks in K10S_T49_RANKS (a comma list) or K10S_FAULT_RANK (-1:
every rank):

empty-shard   (the data) node 1's shard is empty: its ranks' first ``json.loads`` raises ``JSONDecodeError: Expecting
              value: line 1 column 1 (char 0)``, alike on both; node 0's ranks wait in the step's all-reduce
empty-batch   the ranks' step batch holds only samples longer than ``max_length``: each filters every sample out and
              raises the same ``ValueError: empty batch at step 3: every sample filtered out by max_length=512``
bad-config    (the data; every rank, a control) ``config.json``'s ``batch_size`` is ``"4x"``: ``int()``'s ``ValueError``
              on every rank at start, after ``init_process_group``
missing-file  (the data; every rank, a control) ``tokenizer.json`` is absent: ``FileNotFoundError`` on every rank at start
none          (a control) a clean run
"""

from __future__ import annotations

import datetime as dt
import json
import os
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

ENV = os.environ
TIMEOUT_S = float(ENV.get("K10S_GLOO_TIMEOUT_S", "3"))
FAULT, AT = ENV.get("K10S_FAULT", "none"), int(ENV.get("K10S_FAULT_STEP", "3"))
STEPS = int(ENV.get("K10S_STEPS", "6"))
ME, LOCAL = int(ENV.get("RANK", "0")), int(ENV.get("LOCAL_RANK", "0"))
NODE = int(ENV.get("GROUP_RANK", "0"))
RANKS = [int(r) for r in ENV.get("K10S_T49_RANKS", "").split(",") if r]
HIT = FAULT != "none" and (ME in RANKS or int(ENV.get("K10S_FAULT_RANK", "1")) in (ME, -1))
DATA = ENV.get("K10S_DATA_DIR", "/tmp/k10s-t49-data")


def _read_shard(step: int) -> list[dict]:
    path = os.path.join(DATA, f"train-{NODE:05d}-of-00002.jsonl")
    print(f"rank {ME}: step {step} opening shard {path}", flush=True)
    with open(path) as f:
        first = json.loads(f.readline())  # an empty shard: JSONDecodeError
        samples = [first] + [json.loads(line) for line in f]
    print(f"rank {ME}: shard {os.path.basename(path)} holds {len(samples)} samples", flush=True)
    return samples


def _batch(samples: list[dict], step: int, max_length: int, size: int) -> list[dict]:
    start = (ME % 2) * 32 + step * size
    picked = samples[start:start + size]
    if HIT and FAULT == "empty-batch":  # these ranks' step batch: only overlong samples
        picked = [dict(s, tokens=list(range(600 + i))) for i, s in enumerate(picked)]
    batch = [s for s in picked if len(s["tokens"]) <= max_length]
    if not batch:
        raise ValueError(f"empty batch at step {step}: every sample filtered out by max_length={max_length}")
    return batch


def main() -> None:
    world = int(ENV["WORLD_SIZE"])
    print(f"rank {ME}/{world} (local {LOCAL}, node {NODE}, pid {os.getpid()}) starting, data in {DATA}", flush=True)
    dist.init_process_group("gloo", timeout=dt.timedelta(seconds=TIMEOUT_S))
    mark = ENV.get("K10S_MARK_DIR")
    if mark and LOCAL == 0:
        with open(os.path.join(mark, f"group-{ENV.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(ENV.get("K10S_AGENT", ""))
    with open(os.path.join(DATA, "config.json")) as f:
        cfg = json.load(f)
    print(f"rank {ME}: config {cfg}", flush=True)
    size, max_length = int(cfg["batch_size"]), int(cfg["max_length"])
    with open(os.path.join(DATA, "tokenizer.json")) as f:
        vocab = json.load(f)["vocab_size"]
    torch.manual_seed(0)
    ddp = DDP(torch.nn.Linear(vocab, 1))
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    samples: list[dict] = []
    for step in range(STEPS):
        if step == AT:
            samples = _read_shard(step)
        if samples:
            batch = _batch(samples, step, max_length, size)
            x = torch.tensor([s["tokens"][:vocab] for s in batch], dtype=torch.float32)
        else:
            x = torch.randn(size, vocab, generator=torch.Generator().manual_seed(step * 10 + ME))
        loss = torch.nn.functional.mse_loss(ddp(x), torch.zeros(x.shape[0], 1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"rank {ME} step {step} loss {loss.item():.4f}", flush=True)
        time.sleep(0.2)
    dist.barrier()
    dist.destroy_process_group()
    print(f"rank {ME} done", flush=True)


if __name__ == "__main__":
    main()
