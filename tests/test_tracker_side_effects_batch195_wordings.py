"""An experiment tracker beside a distributed failure (real incidents batch 195, `experiment-tracking-side-effects`):
the W&B run is started on one rank only (rank 0 for the HF Trainer's callback and accelerate's trackers, the last rank
for Megatron's writer), so a tracker that cannot start (`wandb.init`'s 403 on the entity, its init timeout, `Error
communicating with wandb process`) fails that rank alone and the launcher tears the rest down: the logging rank is the
process that failed (huggingface/open-r1#323). A non-zero rank's dummy TensorBoard writer failing under mp.spawn is
that process's own error (williamFalcon/test-tube#67). Every non-logging rank calling `wandb.log` without a run
(wandb/wandb#6556), interleaved with no rank printed, names no one. The rule of this batch: a tracker client's
exception (``wandb.errors…``, ``mlflow.exceptions…``, ``neptune…``) is the process's own failure even when its words
say it timed out (W&B's `Run initialization has timed out`), where it was read as a peer's teardown and named no one;
torch's own timeouts stay teardowns (parsers/log_failures.py ``TRACKER_EXCEPTION``). Read as they are, not yet met: a
toolkit's own `(worker_N)` prefix names no rank (Megatron-LM-27), and waiters with one silent rank name it, whatever a
thread adds (profam-286; tests/corpus_not_yet_s36.py says why) (docs/rules.md, "Session 36: batch 195"). Pasted logs
through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)
SITE = "/data/u/open-r1/openr1/lib/python3.11/site-packages/wandb"
FORBIDDEN = ('wandb.errors.errors.CommError: failed to upsert bucket: returned error 403 Forbidden: {"errors":[{"message"'
             ':"permission denied","path":["upsertBucket"],"extensions":{"code":"PERMISSION_ERROR"}}],"data":'
             '{"upsertBucket":null}}')
INIT_TIMEOUT = ("wandb.errors.errors.CommError: Run initialization has timed out after 90.0 sec. Please try increasing "
                "the timeout with the `init_timeout` setting: `wandb.init(settings=wandb.Settings(init_timeout=120))`.")
NO_SERVICE = "wandb.errors.UsageError: Error communicating with wandb process"
MLFLOW = ("mlflow.exceptions.MlflowException: API request to http://mlflow:5000/api/2.0/mlflow/runs/create failed with "
          "exception HTTPConnectionPool(host='mlflow', port=5000): Read timed out. (read timeout=120)")
NEPTUNE = "neptune.exceptions.NeptuneConnectionLostException: Connection to Neptune timed out"
#: not a tracker's: the same words from torch's own store wait stay a peer's teardown
STORE = "torch.distributed.DistStoreError: Timed out after 1801 seconds waiting for clients. 3/4 clients joined."


def _tracker(rank: int, error: str, others: list[int], table: bool = False) -> list[str]:
    """``rank``'s `wandb.init` traceback tagged `[rankN]:`, wandb's closing lines, the agent's SIGTERMs to the others'
    pids (and torchrun's failure table of ``rank``, where asked)."""
    tag = f"[rank{rank}]:"
    lines = [f'{tag}   File "{SITE}/analytics/sentry.py", line 156, in reraise',
             f"{tag}     raise exc.with_traceback(sys.exc_info()[2])",
             f'{tag}   File "{SITE}/sdk/wandb_init.py", line 1471, in init',
             f"{tag}     return wi.init(run_settings, run_config)",
             f'{tag}   File "{SITE}/sdk/wandb_init.py", line 967, in init',
             f"{tag}     raise error",
             f"{tag} {error}",
             "wandb: ",
             "wandb: Find logs at: wandb/run-20250214_133729-oy6spqjh/logs"]
    lines += [f"W0214 13:37:34.{63 + i:03d}000 3074274 torch/distributed/elastic/multiprocessing/api.py:897] Sending "
              f"process {3075100 + i} closing signal SIGTERM" for i, _ in enumerate(others)]
    if table:
        lines += ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
                  "============================================================",
                  "sft.py FAILED",
                  "------------------------------------------------------------",
                  "Failures:",
                  "  <NO_OTHER_FAILURES>",
                  "------------------------------------------------------------",
                  "Root Cause (first observed failure):",
                  "[0]:",
                  "  time      : 2025-02-14_13:37:34",
                  "  host      : gpu-node-3",
                  f"  rank      : {rank} (local_rank: {rank})",
                  "  exitcode  : 1 (pid: 3075099)",
                  "  error_file: <N/A>",
                  "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
                  "============================================================"]
    return lines


SPAWN = "/scratch/u/envs/ln1/lib/python3.7/site-packages"
_SPAWN_EVAL = ["-- Process {p} terminated with the following error:",
               "Traceback (most recent call last):",
               f'  File "{SPAWN}/torch/multiprocessing/spawn.py", line 19, in _wrap',
               "    fn(i, *args)",
               f'  File "{SPAWN}/pytorch_lightning/trainer/ddp_mixin.py", line 181, in ddp_train',
               "    self.run_pretrain_routine(model)",
               f'  File "{SPAWN}/pytorch_lightning/trainer/train_loop_mixin.py", line 114, in run_training_epoch',
               "    self.run_evaluation(test=self.testing)",
               f'  File "{SPAWN}/pytorch_lightning/trainer/evaluation_loop_mixin.py", line 130, in run_evaluation',
               "    test)"]


def _spawn(process: int, exception: str | None = None) -> list[str]:
    return [line.format(p=process) for line in _SPAWN_EVAL] + ([exception] if exception else [])


PREINIT = "/home/u/.conda/envs/torch-env/lib/python3.8/site-packages/wandb/sdk/lib/preinit.py"
INTERLEAVED = [
    f'Training 10:   5%|▌         | 10/185 [00:10<02:15,  1.29it/s].Error  File "{PREINIT}", line 36, in preinit_wrapper',
    "wandb.errors.Errorwandb.errors: You must call wandb.init() before wandb.log()",
    "    : You must call wandb.init() before wandb.log()",
    ".Error: You must call wandb.init() before wandb.log()",
    'raise wandb.Error(f"You must call wandb.init() before {name}()")',
    "wandb.errors.Error: You must call wandb.init() before wandb.log()"]
WORKER_TAG = [
    "2023-02-17 22:39:17,767 (worker_0) : training ...",
    "2023-02-17 22:39:25,325 (worker_7) : wandb: - Waiting for wandb.init()...",
    "2023-02-17 22:40:24,365 (worker_7) : init_wandb",
    "2023-02-17 22:40:24,365 (worker_7) : wandb: ERROR Error communicating with wandb process",
    "wandb: ERROR For more info see: https://docs.wandb.ai/library/init#init-start-error",
    "",
    "2023-02-17 22:40:24,367 (worker_7) : Traceback (most recent call last):",
    '2023-02-17 22:40:24,367 (worker_7) :   File "/app/toolkit/run.py", line 34, in run',
    "2023-02-17 22:40:24,367 (worker_7) :     runnable.run()",
    '2023-02-17 22:40:24,368 (worker_7) :   File "/app/megatron/training.py", line 108, in pretrain']
WAIT = ("[rank{r}]:[E ProcessGroupNCCL.cpp:563] [Rank {r}] Watchdog caught collective operation timeout: WorkNCCL("
        "SeqNum=16675, OpType=ALLREDUCE, NumelIn=2412288, NumelOut=2412288, Timeout(ms)=3600000) ran for {ms} "
        "milliseconds before timing out.")


def _waiters(ranks: list[int]) -> list[str]:
    return [WAIT.format(r=r, ms=3600064 + i) for i, r in enumerate(ranks)]


#: key: (the pasted lines, processes per node (None: not stated), the rank a warning/critical finding must name alone
#: (None: none), its cause)
CASES = {
    # open-r1-323 as pasted: rank 0's W&B 403, three SIGTERM'd workers
    "rank0-wandb-403-sigterms": (_tracker(0, FORBIDDEN, [1, 2, 3]), None, 0, "python-exception"),
    # the same with torchrun's failure table, and with the init timeout in place of the 403
    "rank0-wandb-403-table": (_tracker(0, FORBIDDEN, [1, 2, 3], table=True), 4, 0, "python-exception"),
    "rank0-wandb-init-timeout": (_tracker(0, INIT_TIMEOUT, [1, 2, 3]), None, 0, "python-exception"),
    # the tracker's own timeout is the rank's failure, not a peer's teardown (the rule of batch 195): W&B's init
    # timeout, MLflow's HTTP read timeout, Neptune's lost connection
    "rank0-mlflow-read-timeout": (_tracker(0, MLFLOW, [1, 2, 3]), None, 0, "python-exception"),
    "rank2-neptune-timeout": (_tracker(2, NEPTUNE, [0, 1, 3]), 4, 2, "python-exception"),
    # rank 0's W&B init timing out while the others time out in the first ALLREDUCE: rank 0 (starVLA's PR #369 shape)
    "rank0-wandb-timeout-others-wait": (_tracker(0, INIT_TIMEOUT, [])
                                        + [w.replace("16675", "1") for w in _waiters([1, 2, 3])], 4, 0, None),
    # contrast: torch's store timeout in the same place stays a teardown, naming no one
    "rank0-store-timeout-sigterms": (_tracker(0, STORE, [1, 2, 3]), None, None, None),
    # Megatron's writer on the last rank, tagged by torchrun: that rank
    "last-rank-wandb-service": (_tracker(7, NO_SERVICE, [0, 1, 2, 3, 4, 5, 6]), 8, 7, "python-exception"),
    # test-tube-67: spawn's process 1 into the evaluation loop, cut before its exception, and whole
    "spawn-process1-eval-cut": (_spawn(1), None, 1, "python-exception"),
    "spawn-process1-dummy-writer": (_spawn(1, "AttributeError: 'TTDummyFileWriter' object has no attribute "
                                              "'add_scalars'"), 2, 1, "python-exception"),
    # wandb-6556: the non-logging ranks' identical errors interleaved, no rank printed
    "log-before-init-interleaved": (INTERLEAVED, None, None, None),
    # read as they are (tests/corpus_not_yet_s36.py): a toolkit's `(worker_N)` prefix names no rank ...
    "worker-tag-wandb-service": (WORKER_TAG, None, None, None),
    # ... and four waiters with rank 0 silent name it, never-joined (profam-286's paste) ...
    "waiters-1-4-rank0-silent": (_waiters([1, 2, 4, 3]), None, 0, "never-joined"),
    # ... while every rank waiting alike names no one
    "waiters-0-4-all-shown": (_waiters([1, 2, 4, 3, 0]), 5, None, None),
}
BATCHED = Batched("b195", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc = CASES[key][0], CASES[key][1]
    return pasted(lines, folder, nproc, NOW, world=nproc)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_tracker_failures_name_the_logging_rank_alone(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][2], CASES[key][3])
