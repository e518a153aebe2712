"""The training loop of tests/tools/torch_worker.py run through the wrappers users put around
torchrun (tests/tools/torch_scenarios4.py records them): ``python wrapper_worker.py <style>``.

accelerate  run by ``accelerate launch`` (its torchrun underneath): ``Accelerator(cpu=True)``, a
            tiny DDP model, ``accelerator.backward`` (gloo all-reduce), ``accelerator.print``
notebook    accelerate's ``notebook_launcher(train, num_processes=N)`` called in this process
deepspeed   DeepSpeed's launcher (``deepspeed --num_gpus N`` / ``--include localhost:0,1`` / ``--no_ssh
            --node_rank i`` per node) with DS_ACCELERATOR=cpu: ``deepspeed.initialize`` on gloo
lightning   PyTorch Lightning's ``Trainer(strategy=DDPStrategy(...), devices=N, num_nodes=M)``
            started as ``python wrapper_worker.py lightning`` (Lightning starts the other local
            ranks itself; NODE_RANK/MASTER_ADDR/MASTER_PORT from the environment)

The fault comes from the same environment as torch_worker.py's (K10S_FAULT, K10S_FAULT_RANK,
K10S_FAULT_STEP, K10S_STEPS); ``never-joins`` sleeps before the process group exists, ``hang``
sleeps in a step while the others wait in the backward all-reduce.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import time

import torch

import torch_worker as tw

TIMEOUT = dt.timedelta(seconds=tw.GLOO_TIMEOUT_S)


def _plan() -> tuple[str, int, int, int]:
    env = os.environ
    return env.get("K10S_FAULT", "none"), int(env.get("K10S_FAULT_RANK", "1")), int(env.get("K10S_FAULT_STEP", "3")), int(env.get("K10S_STEPS", "6"))


def _mark(node_rank: int, local_rank: int) -> None:
    mark = os.environ.get("K10S_MARK_DIR")
    if mark and local_rank == 0:
        with open(os.path.join(mark, f"group-{node_rank}"), "w") as f:
            f.write(os.environ.get("K10S_AGENT", ""))


def _culprit(kind: str, bad: int, rank: int) -> bool:
    return kind != "none" and bad in (rank, -1)


def accelerate_train(*_args) -> None:
    from accelerate import Accelerator
    from accelerate.utils import InitProcessGroupKwargs

    kind, bad, bad_step, steps = _plan()
    if kind == "never-joins" and bad == int(os.environ.get("RANK", "0")):
        time.sleep(tw.GLOO_TIMEOUT_S * 6)
        sys.exit(0)
    acc = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(backend="gloo", timeout=TIMEOUT)])
    rank = acc.process_index
    _mark(int(os.environ.get("GROUP_RANK", os.environ.get("NODE_RANK", "0"))), acc.local_process_index)
    model = torch.nn.Linear(8, 1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    model, opt = acc.prepare(model, opt)
    acc.print(f"process {rank}/{acc.num_processes} on {acc.device}, distributed_type={acc.distributed_type}")
    for step in range(steps):
        if _culprit(kind, bad, rank) and step == bad_step:
            tw._fault(kind, rank, step)
        loss = model(torch.ones(4, 8) * (rank + 1)).pow(2).mean()
        acc.backward(loss)
        opt.step()
        opt.zero_grad()
        acc.print(f"step {step} loss {loss.item():.4f}")
        time.sleep(0.3)
    acc.wait_for_everyone()
    acc.print("training done")
    acc.end_training()


class _Data(torch.utils.data.Dataset):
    def __len__(self) -> int:
        return 256

    def __getitem__(self, i: int):
        return torch.ones(8) * (i % 3), torch.ones(1)


def lightning_main() -> None:
    import pytorch_lightning as pl
    from pytorch_lightning.strategies import DDPStrategy

    kind, bad, bad_step, steps = _plan()
    nodes, devices = int(os.environ.get("K10S_NODES", "1")), int(os.environ.get("K10S_NPROC", "2"))

    class Tiny(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Linear(8, 1)

        def setup(self, stage: str) -> None:
            _mark(self.trainer.node_rank, self.trainer.local_rank)

        def training_step(self, batch, step):
            rank = self.trainer.global_rank
            if _culprit(kind, bad, rank) and step == bad_step:
                tw._fault(kind, rank, step)
            time.sleep(0.3)
            x, y = batch
            loss = torch.nn.functional.mse_loss(self.net(x), y)
            self.log("train_loss", loss)
            return loss

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.1)

    if kind == "never-joins" and bad == int(os.environ.get("LOCAL_RANK", "0")) + int(os.environ.get("NODE_RANK", "0")) * devices:
        time.sleep(tw.GLOO_TIMEOUT_S * 6)
        sys.exit(0)
    trainer = pl.Trainer(accelerator="cpu", devices=devices, num_nodes=nodes, max_steps=steps, log_every_n_steps=1,
                         strategy=DDPStrategy(process_group_backend="gloo", timeout=TIMEOUT), enable_checkpointing=False,
                         logger=False, enable_progress_bar=os.environ.get("K10S_PROGRESS") == "1")
    trainer.fit(Tiny(), torch.utils.data.DataLoader(_Data(), batch_size=4))


def deepspeed_main() -> None:
    """Run by the ``deepspeed`` launcher (DS_ACCELERATOR=cpu): ``deepspeed.initialize`` on gloo."""
    import deepspeed

    kind, bad, bad_step, steps = _plan()
    rank = int(os.environ["RANK"])
    if kind == "never-joins" and bad == rank:
        time.sleep(tw.GLOO_TIMEOUT_S * 6)
        sys.exit(0)
    deepspeed.init_distributed(dist_backend="gloo", timeout=TIMEOUT)
    model = torch.nn.Linear(8, 1)
    config = {"train_batch_size": 4 * int(os.environ["WORLD_SIZE"]), "optimizer": {"type": "SGD", "params": {"lr": 0.1}}}
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=config)
    for step in range(steps):
        if _culprit(kind, bad, rank) and step == bad_step:
            tw._fault(kind, rank, step)
        loss = engine(torch.ones(4, 8) * (rank + 1)).pow(2).mean()
        engine.backward(loss)
        engine.step()
        if rank == 0:
            print(f"step {step} loss {loss.item():.4f}", flush=True)
        time.sleep(0.3)


def main() -> None:
    style = next((a for a in sys.argv[1:] if not a.startswith("--")), "accelerate")  # deepspeed puts --local_rank=N first
    if os.environ.get("K10S_WARN") == "1":
        torch.tensor(torch.ones(2))  # a real UserWarning on every rank (torch_worker.py's)
    if style == "lightning":
        lightning_main()
    elif style == "deepspeed":
        deepspeed_main()
    elif style == "notebook":
        from accelerate import notebook_launcher

        notebook_launcher(accelerate_train, num_processes=int(os.environ.get("K10S_NPROC", "2")),
                          use_port=os.environ.get("MASTER_PORT", "29500"))
    else:
        accelerate_train()


if __name__ == "__main__":
    main()
