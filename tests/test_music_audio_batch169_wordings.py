"""The music, sound and audio-codec generators (real incidents batch 169): their wordings, pinned as read.
A DAC+RVQ codec under stable-audio-tools' Lightning DDP whose reducer unused-parameter error is glued onto the
progress bar (Stability-AI/stable-audio-tools#20: ``...train/latenRuntimeError: Expected to have finished reduction in
the prior iteration ...``, no rank in the paste) names no one, glued or on its own line; audiolm-pytorch's SoundStream
hanging after step 0 with one rank's BROADCAST watchdog timeout (lucidrains/audiolm-pytorch#279: ``[rank6]:[E1108 ...]
[Rank 6] Watchdog caught collective operation timeout: ...``, a waiter; the trainer's code path, fixed in the library)
names no one, with or without the trainer's ``0:`` lines, the blank lines, the ``[rank6]:`` tag or a layout.
Contrast: the batch's three named controls keep the corpus's culprit shapes and stay NOT_YET (tests/corpus_not_yet_s34):
torch.multiprocessing's lone ``-- Process 1 terminated with the following error:`` whose traceback stops in the
generator's ``backward()`` (MB-iSTFT-VITS2-15; the thread's collective-mismatch exception is cut) names process 1;
the torch-elastic agent's ``failed (exitcode: -6) local_rank: 3`` after two SIGTERMs (diffusers-10160) names local
rank 3, as ChatGLM-Efficient-Tuning-275 and LlamaFactory-6000 (fewer SIGTERMs than peers) need; torchrun's failure
table with ``<NO_OTHER_FAILURES>`` and root cause ``rank : 0`` (MMAudio-40, the exit code cut) names rank 0, as
SevenNet-83's reason says. No rule changed for the batch.
Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 6, 0, tzinfo=dt.timezone.utc)
REDUCER = (
    "RuntimeError: Expected to have finished reduction in the prior iteration before starting a new one. This error "
    "indicates that your module has parameters that were not used in producing loss. You can enable unused parameter "
    "detection by passing the keyword argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by "
)
REDUCER_TAIL = [
    "making sure all `forward` function outputs participate in calculating loss. ",
    "If you already have done the above, then the distributed data parallel module wasn't able to locate the output "
    "tensors in the return value of your module's `forward` function. Please include the loss function and the "
    "structure of the return value of `forward` of your module when reporting this issue (e.g. list, dict, iterable).",
]
BAR = (
    "Epoch 0:   0%| | 2/48248 [00:15<106:04:35,  7.92s/it, v_num=q5e6, train/loss=8.820, train/mrstft_loss=7.590, "
    "train/l1_time_loss=0.000, train/loss_adv=-.00369, train/feature_matching=0.145, train/laten"
)
WATCHDOG = (
    "[Rank 6] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=977, OpType=BROADCAST, NumelIn=414297, "
    "NumelOut=414297, Timeout(ms)=1800000) ran for 1800039 milliseconds before timing out."
)
SOUNDSTREAM = [
    "training with dataset of 2567 samples and validating with randomly splitted 136 samples",
    "",
    "0: soundstream total loss: 21.566, soundstream recon loss: 0.010 | discr (scale 1) loss: 2.000 | discr (scale "
    "0.5) loss: 2.000 | discr (scale 0.25) loss: 2.000",
    "0: saving to /mnt/data/tomtrain/audiolm-pytorch/results",
    "",
    f"[rank6]:[E1108 19:03:44.372992501 ProcessGroupNCCL.cpp:616] {WATCHDOG}",
]
VITS = "/workspace/tts/MB-iSTFT-VITS2/train.py"
ENV = "/opt/miniconda3/envs/vits/lib/python3.8/site-packages/torch"
SPAWN_BACKWARD = [
    "-- Process 1 terminated with the following error:",
    "Traceback (most recent call last):",
    f'  File "{ENV}/multiprocessing/spawn.py", line 69, in _wrap',
    "    fn(i, *args)",
    f'  File "{VITS}", line 359, in train_and_evaluate',
    "    scaler.scale(loss_gen_all).backward()",
    f'  File "{ENV}/autograd/__init__.py", line 197, in backward',
    "    Variable._execution_engine.run_backward(  # Calls into the C++ engine to run the backward pass",
]
API = "torch/distributed/elastic/multiprocessing/api.py"
AGENT_ABORT = [
    "frame #4: clone + 0x44 (0x7c9a8dd7fa04 in /lib/x86_64-linux-gnu/libc.so.6)",
    "",
    f"W1209 15:58:49.098000 2511 {API}:897] Sending process 2642 closing signal SIGTERM",
    f"W1209 15:58:49.098000 2511 {API}:897] Sending process 2643 closing signal SIGTERM",
    f"E1209 15:58:49.276000 2511 {API}:869] failed (exitcode: -6) local_rank: 3 (pid: 2644) of binary: /usr/bin/python3",
]
ROOT_CAUSE = [
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "============================================================",
    "train.py FAILED",
    "------------------------------------------------------------",
    "Failures:",
    "  <NO_OTHER_FAILURES>",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2025-02-08_16:14:18",
    "  host      : Cinemamix-AI",
    "  rank      : 0 (local_rank: 0)",
]

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone: None)
CASES = {
    # stable-audio-tools-20's shape: the reducer's unused-parameter error glued onto the bar, or on its own line
    "reducer-glued-to-bar": ([BAR + REDUCER] + REDUCER_TAIL, None, None, None),
    "reducer-glued-to-bar-two-per-node": ([BAR + REDUCER] + REDUCER_TAIL, 2, 2, None),
    "reducer-own-line": ([BAR, REDUCER] + REDUCER_TAIL, 4, 4, None),
    # audiolm-pytorch-279's shape: one rank's BROADCAST watchdog timeout after the main process's step-0 lines
    "lone-rank6-watchdog": (SOUNDSTREAM, 8, 8, None),
    "lone-rank6-watchdog-no-layout": (SOUNDSTREAM, None, None, None),
    "lone-rank6-watchdog-no-blanks": ([x for x in SOUNDSTREAM if x], 8, 8, None),
    "lone-rank6-watchdog-alone": (SOUNDSTREAM[-1:], 8, 8, None),
    "lone-rank6-watchdog-untagged": (
        [f"[E ProcessGroupNCCL.cpp:563] {WATCHDOG}"],
        8,
        8,
        None,
    ),
    # contrast: the batch's named controls are the corpus's culprit shapes (NOT_YET with their reasons)
    "spawn-process1-backward-cut": (SPAWN_BACKWARD, 2, 2, 1),
    "agent-local-rank3-sigabrt-two-sigterms": (AGENT_ABORT, 4, 4, 3),
    "torchrun-root-cause-rank0-no-other-failures": (ROOT_CAUSE, 4, 4, 0),
}
BATCHED = Batched("b169", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_music_audio_wordings_as_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3])
