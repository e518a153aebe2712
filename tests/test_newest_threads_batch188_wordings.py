"""The newest threads' training and serving failures (real incidents batch 188, opened July-September 2026): ezpz's
FSDP2 LoRA run on Perlmutter whose rank 0 stops after its first forward until the job is cancelled at its time bound
(ezpz#239: every rank stuck in the backward), a JAX gang whose coordination service reports one of eight tasks at the
shutdown barrier (marin#6950: every task parked in the first-step collective), a TP=2 vLLM engine across two DGX
Spark whose Worker_TP0 waits on its shared-memory broadcast before ``RPC call to sample_tokens timed out``
(local-inference-lab/vllm#827: the other rank silent, never placed), and the two culprits the logs cannot show: an
author's digest ``task 9 (global rank 36, rack 0)`` with ``CUDA_ERROR_ILLEGAL_INSTRUCTION`` (marin#7344) and a
launch of rank 1 that never joins the store, the error beyond the excerpt (eugr/spark-vllm-docker#335). None names a
rank, as read (docs/rules.md, "Session 35: batch 188"); the contrast: the same fault in PyTorch's own watchdog
wording, tagged with its rank, names it. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 9, 0, tzinfo=dt.timezone.utc)
EZPZ = ["[06:17:19] examples/fsdp_tp:3303:train  Starting 2D training...",
        "[06:17:19] ezpz/history:225 Using History with distributed_history=True",
        "[06:17:26] examples/fsdp_tp:3535:_at_forward_done  loss_inputs rank=0 tp=0",
        "           local_seq_len=2048 labels=(1, 2048) valid_labels=2048"]
SLURM = "slurmstepd: error: *** {what} 57589647{step} ON nid001234 CANCELLED AT 2026-08-25T06:27:19 DUE TO TIME LIMIT ***"
STACK = ['File "/app/experiments/grug/moe/train.py", line 513 in _run_grug_local',
         'File "/app/.venv/lib/python3.12/site-packages/jax/_src/pjit.py", line 1177 in _pjit_call_impl_python',
         'File "/app/.venv/lib/python3.12/site-packages/jax/_src/interpreters/pxla.py", line 388 in __call__']
BARRIER = ["Barrier result: 'DEADLINE_EXCEEDED: Barrier timed out. Id: Shutdown::{bid}::0.",
           "# of tasks that reached the barrier: {n}/8.", "Fatal Python error: Aborted"]
SHM = ("No available shared memory broadcast block found in 60 seconds. This typically happens when some processes are "
       "hanging or doing some time-consuming work (e.g. compilation, weight/kv cache quantization).")
DIGEST = ["06:14:42  {who}", "          cudaFreeAsync failed to free 0xc663e3400: INTERNAL: CUDA error:",
          "          CUDA_ERROR_ILLEGAL_INSTRUCTION: an illegal instruction was encountered   (x48)"]
BAR = "\u2588"
SPARK = ["Executing command: /workspace/exec-script.sh", "Launching worker (rank 1) on 192.168.177.12...",
         "Executing command on head node (rank 0): /workspace/exec-script.sh",
         "(APIServer pid=25) INFO 08-03 13:25:20 [api_utils.py:345]",
         f"(APIServer pid=25) INFO 08-03 13:25:20 [api_utils.py:345]        {BAR}     {BAR}   ",
         f" {BAR}\u2584   \u2584{BAR}"]


def _barrier(n: int, bid: str = "...") -> list[str]:
    return [line.format(n=n, bid=bid) for line in BARRIER]


def _vllm(engine_pid: int = 2100) -> list[str]:
    return ([f"(Worker_TP0 pid=2211) INFO 09-19 09:{m}:37 [shm_broadcast.py:466] {SHM}" for m in (10, 11, 12, 13)]
            + [f"(EngineCore pid={engine_pid}) ERROR 09-19 09:14:37 [core.py:1138] {x}" for x in
               ("TimeoutError: RPC call to sample_tokens timed out.", "EngineCore encountered a fatal error.")])


#: key: (the pasted lines, processes per node, world size, the rank a warning/critical finding must name alone: None
#: for none, the cause one of them gives)
CASES = {
    # ezpz-239: rank 0's start-up then the job's cancellation at its bound, as pasted, and in Slurm's own wording
    "ezpz-rank0-then-cancelled-as-pasted": (EZPZ + ["[13:25:00] *** CANCELLED ... DUE TO SIGNAL Killed ***     "
                                                    "<- my 600s bound"], 4, 8, None, None),
    "ezpz-rank0-then-slurm-time-limit": (EZPZ + [SLURM.format(what="JOB", step=""),
                                                 SLURM.format(what="STEP", step=".0")], 4, 8, None, None),
    # marin-6950: the coordination service's barrier report, bare, after the parked stack, and with 7 of 8 there
    "jax-barrier-1-of-8": (_barrier(1), None, 8, None, None),
    "jax-barrier-1-of-8-after-stack": (STACK + [""] + _barrier(1, "1751612345678"), None, 8, None, None),
    "jax-barrier-7-of-8": (_barrier(7, "1751612345678"), None, 8, None, None),
    # vllm-827: Worker_TP0's broadcast wait and the engine's RPC timeout, as the author digested it and as vLLM logs
    "vllm-tp0-shm-wait-digest": (["09:10:37 (Worker_TP0) No available shared memory broadcast block found...   <- "
                                  "repeats every ~60s for 4 min",
                                  "09:14:37 TimeoutError: RPC call to sample_tokens timed out.",
                                  "09:14:37 EngineCore encountered a fatal error.  -> full shutdown, API 500s"],
                                 1, 2, None, None),
    "vllm-tp0-shm-wait-vllm-wording": (_vllm(), 1, 2, None, None),
    # the missed culprits as read: marin-7344's digest (task first, and global rank first) and spark-vllm-docker-335's
    # launch of the rank that never joins, its error beyond the excerpt
    "marin-digest-task9-global-rank36": ([x.format(who="task 9 (global rank 36, rack 0)") for x in DIGEST],
                                         4, 512, None, None),
    "marin-digest-global-rank36-task9": ([x.format(who="global rank 36 (task 9, rack 0)") for x in DIGEST],
                                         4, 512, None, None),
    "spark-launch-rank1-then-banner": (SPARK, 1, 2, None, None),
    # contrast: the same fault in PyTorch's watchdog wording, tagged with its rank, names it
    "watchdog-rank36-illegal-instruction": (["[rank36]:[E806 06:14:42.476061221 ProcessGroupNCCL.cpp:2068] [PG ID 0 PG "
                                             "GUID 0(default_pg) Rank 36] Process group watchdog thread terminated with "
                                             "exception: CUDA error: an illegal instruction was encountered",
                                             "CUDA kernel errors might be asynchronously reported at some other API "
                                             "call, so the stacktrace below might be incorrect."], 4, 512, 36,
                                            "cuda-error"),
}
BATCHED = Batched("b188", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world = CASES[key][:3]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_newest_thread_wordings_name_the_rank_at_fault_or_none(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])
