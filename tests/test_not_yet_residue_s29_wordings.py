"""Session 29's NOT_YET residue (issue 18; docs/rules.md, "Session 29: the NOT_YET residue"), with wording variants,
as pasted logs through ``k10s import-logs``:

* webdataset's sample metadata in an exception's args (``'__rank__': '(18, 32)'``: rank, world size), on the
  exception's line or wrapped under it, is the rank whose loader raised it (parsers/log_rank_mentions.py);
* a rank timing out on rank 0's NCCL id (``[6] is setting up NCCL communicator and retrieving ncclUniqueId from [0] …
  got error: Socket Timeout``) under a ``main_process_first`` / ``local_main_process_first`` frame of its own traceback
  names rank 0 never-joined: rank 0 works alone in that block while the others wait (parsers/log_main_first.py); a
  reset, another peer than rank 0 or no such frame names no one (pytorch-82091's and LlamaFactory-2470's controls);
* a module without the rank or world-size query (``AttributeError: module '…' has no attribute 'get_world_size'``)
  is every process's (queries/_incident_common_mode.sql ``common_mode``); another missing attribute (``wandb.init``) is still its
  rank's, and so is the query where a peer saw the rank's connection close.

Parser cases are regexes and one parse of every paste; the analyses go through tests/bundle_batch.py (one analysis).
"""

from __future__ import annotations

import datetime as dt
import re
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings
from k10s_forensics.parsers import log_prefilter as PF
from k10s_forensics.parsers.log_main_first import MAIN_FIRST_FRAME, NCCL_ID_TIMEOUT
from k10s_forensics.parsers.log_rank_mentions import WDS_RANK, named_ranks

NOW = dt.datetime(2026, 12, 1, 13, 0, tzinfo=dt.timezone.utc)

WDS = corpus_log("webdataset-142-rank18-of-32-corrupted-tar-shard-readerror")
READ_ERROR = ("tarfile.ReadError: (\"unexpected end of data @ <_io.BufferedReader name='shards/train-000042.tar'>\", "
              "<_io.BufferedReader name='shards/train-000042.tar'>, {{'__url__': 'shards/train-000042.tar', '__worker__': "
              "'(1, 4)', '__rank__': {rank}, '__nodeinfo__': \"('node-2', 811)\"}})")
FRAMES_TB = """Traceback (most recent call last):
  File "/workspace/train.py", line 41, in <module>
    for batch in loader:
  File "/usr/local/lib/python3.10/dist-packages/webdataset/tariterators.py", line 138, in tar_file_iterator
    for tarinfo in stream:
  File "/usr/lib/python3.10/tarfile.py", line 2475, in __iter__
    tarinfo = self.next()
  File "/usr/lib/python3.10/tarfile.py", line 2357, in next
    raise ReadError("unexpected end of data")
"""


def _wds(rank: str, tag: str = "") -> str:
    return "".join(f"{tag}{line}\n" for line in (FRAMES_TB + READ_ERROR.format(rank=rank)).splitlines())


LF1196 = corpus_log("LlamaFactory-1196-main-process-first-rank6-nccluniqueid-from-rank0")
CTL_82091 = corpus_log("pytorch-82091-espnet2-slurm-rank1-ncclid-filestore-timeout-control")
ACCEL_TB = """[rank{w}]: Traceback (most recent call last):
[rank{w}]:   File "/workspace/train.py", line 88, in <module>
[rank{w}]:     with accelerator.{ctx}():
[rank{w}]:   File "/usr/lib/python3.10/contextlib.py", line 135, in __enter__
[rank{w}]:     return next(self.gen)
[rank{w}]:   File "/usr/local/lib/python3.10/dist-packages/accelerate/accelerator.py", line 1002, in {ctx}
[rank{w}]:     with self.state.{ctx}():
[rank{w}]:   File "/usr/lib/python3.10/contextlib.py", line 135, in __enter__
[rank{w}]:     return next(self.gen)
[rank{w}]:   File "/usr/local/lib/python3.10/dist-packages/accelerate/state.py", line 539, in {ctx}
[rank{w}]:     yield from self._goes_first(self.is_local_main_process)
[rank{w}]:   File "/usr/local/lib/python3.10/dist-packages/accelerate/state.py", line 430, in _goes_first
[rank{w}]:     self.wait_for_everyone()
[rank{w}]:   File "/usr/local/lib/python3.10/dist-packages/accelerate/state.py", line 424, in wait_for_everyone
[rank{w}]:     torch.distributed.barrier()
[rank{w}]:   File "/usr/local/lib/python3.10/dist-packages/torch/distributed/c10d_logger.py", line 83, in wrapper
[rank{w}]:     return func(*args, **kwargs)
[rank{w}]:   File "/usr/local/lib/python3.10/dist-packages/torch/distributed/distributed_c10d.py", line 4159, in barrier
[rank{w}]:     work = default_pg.barrier(opts=opts)
[rank{w}]: torch.distributed.DistBackendError: [{w}] is setting up NCCL communicator and retrieving ncclUniqueId from [{peer}] via c10d key-value store by key '{peer}', but store->get('{peer}') got error: {error}
[rank{w}]: Exception raised from recvBytes at ../torch/csrc/distributed/c10d/Utils.hpp:672 (most recent call first):
"""
TRANSFORMERS_TB = """Traceback (most recent call last):
  File "/home/u/run_clm.py", line 412, in main
    with training_args.main_process_first(desc="grouping texts together"):
  File "/usr/lib/python3.8/contextlib.py", line 113, in __enter__
    return next(self.gen)
  File "/home/u/.local/lib/python3.8/site-packages/transformers/training_args.py", line 1528, in main_process_first
    torch.distributed.barrier()
  File "/home/u/.local/lib/python3.8/site-packages/torch/distributed/distributed_c10d.py", line 2709, in barrier
    work = default_pg.barrier(opts=opts)
RuntimeError: [2] is setting up NCCL communicator and retreiving ncclUniqueId from [0] via c10d key-value store by key '0', but store->get('0') got error: Timeout waiting for key: default_pg/0/0 after 1800000 ms
"""
SOCKET_TIMEOUT = "Socket Timeout"
RESET = "Connection reset by peer. This may indicate a possible application crash on rank 0 or a network set up issue."


def _accel(w: int = 3, ctx: str = "local_main_process_first", peer: int = 0, error: str = SOCKET_TIMEOUT) -> str:
    return ACCEL_TB.format(w=w, ctx=ctx, peer=peer, error=error)


def _frame_of_another_rank() -> str:
    """rank 2 prints the main_process_first frame, rank 3 the timed-out fetch (one process's frame is no other's)."""
    lines = _accel().splitlines()
    return "\n".join(line.replace("[rank3]", "[rank2]") if i < 14 else line for i, line in enumerate(lines)) + "\n"


SMDDP = corpus_log("sagemaker-examples-2029-smddp-tf2-rank9-get-world-size-attributeerror-control")
CLOSED = ("[rank{r}]: RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed "
          "by peer [10.0.0.7]:24967. This is typically caused by a remote worker crashing.")


def _attr(rank: int, module: str, attribute: str) -> str:
    return f"[rank{rank}]: AttributeError: module '{module}' has no attribute '{attribute}'\n"


def _peers_closed(rank: int) -> str:
    """``rank`` lacks the query; every other rank of the four saw its connection close (it got past the call)."""
    return "".join(_attr(r, "torch.distributed", "get_world_size") if r == rank else CLOSED.format(r=r) + "\n" for r in range(4))


#: key: (the paste, the rank a warning/critical finding must name alone: None for none, its cause, processes per node)
CASES = {
    # webdataset's sample metadata
    "wds-wrapped-corpus": (WDS, 18, "python-exception", None),
    "wds-one-line": (_wds("'(5, 8)'"), 5, "python-exception", 8),
    "wds-double-quoted": (_wds('"(3, 4)"').replace("'__rank__'", '"__rank__"'), 3, "python-exception", 4),
    "wds-tag-wins": (_wds("'(5, 8)'", "[rank2]: "), 2, "python-exception", 8),
    "wds-rank-none": (_wds("'None'"), None, None, 8),
    # main_process_first
    "mpf-llamafactory-corpus": (LF1196, 0, "never-joined", None),
    "mpf-accelerate-local": (_accel(), 0, "never-joined", 4),
    "mpf-accelerate-global": (_accel(w=5, ctx="main_process_first"), 0, "never-joined", 8),
    "mpf-transformers-filestore": (TRANSFORMERS_TB, 0, "never-joined", 4),
    "mpf-reset": (_accel(error=RESET), None, None, 4),
    "mpf-peer-not-0": (_accel(peer=4), None, None, 8),
    "mpf-frame-of-another-rank": (_frame_of_another_rank(), None, None, 4),
    "no-frame-82091-control": (CTL_82091, None, None, None),
    # a module without the rank/size query
    "attr-smddp-corpus": (SMDDP, None, None, None),
    "attr-torch-get-rank": (_attr(1, "torch.distributed", "get_rank"), None, None, 4),
    "attr-horovod-local-size": ("[1,3]<stderr>:AttributeError: module 'horovod.torch' has no attribute 'local_size'\n", None, None, 4),
    "attr-curly-quotes": (_attr(2, "deepspeed.comm", "get_local_rank").replace("'", "\u2019"), None, None, 4),
    "attr-wandb-init": (_attr(0, "wandb", "init"), 0, "python-exception", 4),
    "attr-peers-closed-rank2": (_peers_closed(2), 2, None, 4),
}
BATCHED = Batched("s29residue", list(CASES))


def _make(key: str, folder: Path):
    return pasted(CASES[key][0], folder, CASES[key][3], NOW)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_the_residues_readings(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][1], CASES[key][2])


# ---- parser-level (no analysis) ---------------------------------------------------------------------------------

_EVENT = re.compile(PF.PREFILTER_EVENT)


@pytest.mark.parametrize("text, rank", [
    ("'__rank__': '(18, 32)', '__nodeinfo__': \"('worker-1', 276)\"})", 18),
    ('{"__url__": "a.tar", "__rank__": "(0, 2)"}', 0),
    ("'__rank__':'(7, 8)'", 7),
    ("'__rank__': 'None'", None),
    ("'__rank__': '(8, 8)'", None),  # not a rank of that world
    ("'__worker__': '(3, 4)'", None),  # a DataLoader worker, no rank
])
def test_webdatasets_sample_rank(text, rank):
    m = WDS_RANK.search(text)
    got = int(m.group(1)) if m and int(m.group(1)) < int(m.group(2)) else None
    assert got == rank
    assert named_ranks(text) == ([] if rank is None else [rank])
    assert bool(_EVENT.search(text)) == (m is not None)


@pytest.mark.parametrize("text, read", [
    ('  File "/x/transformers/training_args.py", line 2035, in main_process_first', True),
    ('[rank3]:   File "/x/accelerate/state.py", line 539, in local_main_process_first', False),  # normalised first
    ('  File "/x/accelerate/state.py", line 539, in local_main_process_first', True),
    ('    with training_args.main_process_first(desc="dataset map pre-processing"):', False),  # a source line
    ('  File "/x/accelerate/state.py", line 430, in _goes_first', False),
])
def test_the_main_process_first_frame(text, read):
    assert bool(MAIN_FIRST_FRAME.match(text)) == read
    assert not read or _EVENT.search(text)


@pytest.mark.parametrize("text, ranks", [
    ("[6] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but "
     "store->get('0') got error: Socket Timeout", ("6", "0")),
    ("[1] is setting up NCCL communicator and retreiving ncclUniqueId from [0] via c10d key-value store by key '0', but "
     "store->get('0') got error: Timeout waiting for key: default_pg/0/0 after 1800000 ms", ("1", "0")),
    ("[14] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d key-value store by key '0', but "
     "store->get('0') got error: Connection reset by peer. This may indicate a possible application crash on rank 0", None),
])
def test_the_waiters_timed_out_fetch(text, ranks):
    m = NCCL_ID_TIMEOUT.search(text)
    assert (m.groups() if m else None) == ranks
