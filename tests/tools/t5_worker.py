"""The fifth set's training programs (tests/tools/torch_scenarios5.py records them):
``python t5_worker.py <style>``, the fault from torch_worker.py's environment (K10S_FAULT,
K10S_FAULT_RANK, K10S_FAULT_STEP, K10S_STEPS).

hf     run by torchrun: HF transformers ``Trainer`` on CPU (``use_cpu=True``, ``ddp_backend="gloo"``),
       a tiny BERT built from a config (no download); ``exception``: a KeyError raised in the
       culprit's ``compute_loss``
fsdp   run by torchrun: FSDP2 (``fully_shard``) on CPU with gloo; ``exception``: the culprit raises
       in its forward while its peers wait in the parameters' all-gather
dcp    run by torchrun: FSDP2 then ``torch.distributed.checkpoint.save`` into K10S_CKPT_DIR at the
       fault step; the culprit's file there was left immutable (its write fails: PermissionError)
ray    the driver of a Ray Train job (``TorchTrainer``, ``ScalingConfig(num_workers=K10S_NPROC,
       use_gpu=False)``, gloo with a short timeout) on a local Ray; its output is the job's log
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import time

import torch
import torch.distributed as dist

import torch_worker as tw

TIMEOUT = dt.timedelta(seconds=tw.GLOO_TIMEOUT_S)


def _plan() -> tuple[str, int, int, int]:
    env = os.environ
    return env.get("K10S_FAULT", "none"), int(env.get("K10S_FAULT_RANK", "1")), int(env.get("K10S_FAULT_STEP", "3")), int(env.get("K10S_STEPS", "6"))


def _culprit(kind: str, bad: int, rank: int) -> bool:
    return kind != "none" and bad in (rank, -1)


def _mark() -> None:
    mark = os.environ.get("K10S_MARK_DIR")
    if mark and os.environ.get("LOCAL_RANK", "0") == "0":
        with open(os.path.join(mark, f"group-{os.environ.get('GROUP_RANK', '0')}"), "w") as f:
            f.write(os.environ.get("K10S_AGENT", ""))


def hf_main() -> None:
    from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments

    kind, bad, bad_step, steps = _plan()
    _mark()

    class Data(torch.utils.data.Dataset):
        def __len__(self) -> int:
            return 64

        def __getitem__(self, i: int):
            return {"input_ids": torch.tensor([101, 7 + i % 5, 9, 102]), "attention_mask": torch.ones(4, dtype=torch.long),
                    "labels": torch.tensor(i % 2)}

    class FaultyTrainer(Trainer):
        def compute_loss(self, model, inputs, return_outputs=False, **kwargs):
            rank = dist.get_rank() if dist.is_initialized() else 0
            if _culprit(kind, bad, rank) and self.state.global_step == bad_step:
                if kind == "exception":
                    inputs = {k: v for k, v in inputs.items() if k != "labels"}
                    _ = inputs["labels"]
                tw._fault(kind, rank, bad_step)
            return super().compute_loss(model, inputs, return_outputs=return_outputs, **kwargs)

    config = BertConfig(vocab_size=128, hidden_size=16, num_hidden_layers=1, num_attention_heads=2, intermediate_size=32,
                        max_position_embeddings=16, num_labels=2)
    args = TrainingArguments(output_dir=os.environ.get("K10S_OUT_DIR", "/tmp/k10s-hf"), use_cpu=True, ddp_backend="gloo",
                             ddp_timeout=int(tw.GLOO_TIMEOUT_S), max_steps=steps, per_device_train_batch_size=4, logging_steps=1,
                             save_strategy="no", report_to=[], dataloader_num_workers=0, disable_tqdm=False)
    FaultyTrainer(model=BertForSequenceClassification(config), args=args, train_dataset=Data()).train()


def _fsdp_model(rank: int):
    from torch.distributed.fsdp import fully_shard

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    for layer in (model[0], model[2]):
        fully_shard(layer)
    fully_shard(model)
    return model


def fsdp_main(save: bool) -> None:
    kind, bad, bad_step, steps = _plan()
    dist.init_process_group("gloo", timeout=TIMEOUT)
    rank, world = dist.get_rank(), dist.get_world_size()
    _mark()
    model = _fsdp_model(rank)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    print(f"rank {rank}/{world}: FSDP2 model sharded over {world} ranks", flush=True)
    for step in range(steps):
        x = torch.ones(4, 16) * (rank + 1)
        if not save and _culprit(kind, bad, rank) and step == bad_step:
            if kind == "exception":
                raise RuntimeError(f"rank {rank}: forward got a batch of shape {tuple(x.shape)}, expected (4, 24)")
            tw._fault(kind, rank, step)
        loss = model(x).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
        if save and step == bad_step:
            import torch.distributed.checkpoint as dcp

            dcp.save({"model": model.state_dict()}, checkpoint_id=os.environ["K10S_CKPT_DIR"])
            if rank == 0:
                print(f"step {step}: checkpoint saved to {os.environ['K10S_CKPT_DIR']}", flush=True)
        time.sleep(0.3)
    dist.destroy_process_group()
    print(f"rank {rank} done", flush=True)


def ray_main() -> None:
    import ray
    import ray.train
    from ray.train import RunConfig, ScalingConfig
    from ray.train.torch import TorchConfig, TorchTrainer

    kind, bad, bad_step, steps = _plan()
    workers = int(os.environ.get("K10S_NPROC", "2"))

    def train_loop(config: dict) -> None:
        ctx = ray.train.get_context()
        rank = ctx.get_world_rank()
        model = ray.train.torch.prepare_model(torch.nn.Linear(8, 1))
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        print(f"worker rank {rank}/{ctx.get_world_size()} ready", flush=True)
        for step in range(steps):
            if _culprit(kind, bad, rank) and step == bad_step:
                tw._fault(kind, rank, step)
            loss = model(torch.ones(4, 8) * (rank + 1)).pow(2).mean()
            loss.backward()
            opt.step()
            opt.zero_grad()
            ray.train.report({"step": step, "loss": loss.item()})
            time.sleep(0.3)

    ray.init(num_cpus=workers + 1, include_dashboard=False)
    trainer = TorchTrainer(train_loop, scaling_config=ScalingConfig(num_workers=workers, use_gpu=False),
                           torch_config=TorchConfig(backend="gloo", timeout_s=int(tw.GLOO_TIMEOUT_S)),
                           run_config=RunConfig(name="k10s-t5", storage_path=os.environ.get("K10S_OUT_DIR", "/tmp/k10s-ray")))
    result = trainer.fit()
    print(f"Training finished: {result.metrics}", flush=True)


def main() -> None:
    style = next((a for a in sys.argv[1:] if not a.startswith("--")), "hf")
    if os.environ.get("K10S_WARN") == "1":
        torch.tensor(torch.ones(2))  # a real UserWarning (torch_worker.py's)
    if style == "hf":
        hf_main()
    elif style in ("fsdp", "dcp"):
        fsdp_main(save=style == "dcp")
    elif style == "ray":
        ray_main()
    else:
        raise SystemExit(f"unknown style {style}")


if __name__ == "__main__":
    main()
