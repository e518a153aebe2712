"""Session 33, batch 153 (minimal and research pretraining codebases): a marker file the processes signal each other with, gone.

Frameworks coordinate a job's processes through small files on shared storage: one process (a node's local rank 0)
writes a signal file, the others wait for it, and one removes it again (llm-foundry / Composer's node signal file
``._signal_file_node0_<random>`` around the tokenizer download, Composer's autoresume marker
``.local_rank0_completed_autoresume``, a script's ``rank3.done``). A ``FileNotFoundError: [Errno 2]`` on such a marker
is the protocol's race on shared storage (another node's process removed the same name first, or the names disagreed),
or a leader that never wrote it (whose own failure is its own event): not a fault of the process that reports it.
llm-foundry-1736 (a multi-node run's lone ``[rank0]:`` traceback removing its node's signal file, a library bug) was
named at critical; ``staging_race`` now reads such a marker as common mode (queries/_incident.sql; docs/rules.md,
"Session 33: batch 153"). A marker is a file named a signal file, or named after a node or rank *and* a state
(complete, done, ready, finish, barrier). A data file, a checkpoint the rank removes itself, a lock file, a file merely
under a directory named after a node or rank stay the failing rank's own. Pasted logs through ``k10s import-logs``,
batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 2, 3, 0, tzinfo=dt.timezone.utc)

#: llm-foundry-1736's traceback (torch >= 2.4's ``[rankN]:`` prefix), its removal and its exception
FRAMES = [
    "[rank{r}]: Traceback (most recent call last):",
    '[rank{r}]:   File "/home/u/llm-foundry/scripts/train/train.py", line 9, in <module>',
    "[rank{r}]:     train_from_yaml(yaml_path, args_list)",
    '[rank{r}]:   File "/home/u/llm-foundry/llmfoundry/command_utils/train.py", line 366, in train',
    "[rank{r}]:     tokenizer = build_tokenizer(tokenizer_name, tokenizer_kwargs)",
    '[rank{r}]:   File "/home/u/llm-foundry/llmfoundry/utils/builders.py", line 545, in build_tokenizer',
    "[rank{r}]:     os.remove(signal_file_path)",
]


def _traceback(rank: int, error: str) -> list[str]:
    return [line.format(r=rank) for line in FRAMES] + [f"[rank{rank}]: {error}"]


def _unprefixed(error: str) -> list[str]:
    """The same traceback as torch < 2.4 printed it (no rank prefix), with torchrun's report naming the rank."""
    frames = [line.split("]: ", 1)[1] for line in _traceback(0, "x")[:-1]]
    return [*frames, error, TORCHRUN]


def _gone(quoted: str) -> str:
    return f"FileNotFoundError: [Errno 2] No such file or directory: {quoted}"


TORCHRUN = (
    "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 81234) of "
    "binary: /usr/bin/python3"
)

#: key: (the pasted lines, the rank a warning/critical finding must name alone: None for none)
CASES = {
    # the corpus's line (llm-foundry-1736)
    "composer-node-signal-file": (
        _traceback(0, _gone("'._signal_file_node0_KfmwNg'")),
        None,
    ),
    # the same through a rich-text editor's quotes, on the second node's leader, with a directory
    "signal-file-editor-quotes-node1": (
        _traceback(8, _gone("\u2018/lustre/run42/._signal_file_node1_Qx3Zt\u2019")),
        None,
    ),
    # Composer's autoresume marker (llm-foundry#504's wording), multi-node
    "autoresume-completed-marker": (
        _traceback(8, _gone("'.local_rank0_completed_autoresume'")),
        None,
    ),
    # a script's per-rank and per-node markers
    "rank-done-marker": (_traceback(3, _gone("'/scratch/run7/sync/rank3.done'")), None),
    "node-ready-marker": (_traceback(12, _gone("'/shared/job/ready_node1'")), None),
    # torch < 2.4: no rank prefix, torchrun's report names the rank
    "unprefixed-torchrun": (_unprefixed(_gone("'._signal_file_node0_a1b2c3'")), None),
    # contrasts, the rank's own: a data shard under a directory named after its rank ...
    "data-shard-rank-dir": (
        _traceback(3, _gone("'/data/tokenized/rank3/shard_00012.bin'")),
        3,
    ),
    # ... a checkpoint the rank removes itself (Applio-554's shape) ...
    "own-checkpoint-removed": (
        _traceback(0, _gone("'/notebooks/logs/PLK/PLK_18e_468s_best_epoch.pth'")),
        0,
    ),
    # ... a data file that merely says "signal" ...
    "audio-signal-data": (_traceback(5, _gone("'/data/audio/signal_0042.wav'")), 5),
    # ... and a lock file in one node's cache (its directory missing there is that node's own)
    "hf-cache-lock": (
        _traceback(
            2, _gone("'/root/.cache/huggingface/hub/.locks/models--gpt2/abc.lock'")
        ),
        2,
    ),
}
BATCHED = Batched("b153", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, 8, NOW, world=16)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_a_signal_marker_gone_names_no_rank(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1])
