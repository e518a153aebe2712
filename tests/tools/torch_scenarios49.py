"""The forty-ninth set of recorded runs (held out when recorded, the truths written before any recording): several ranks
failing alike against every rank failing alike (tests/tools/t49_worker.py: a DDP loop on gloo on CPU, 2 agents x 2
processes, each node reading its own data shard, a JSON-lines file, from one folder every node sees), under plain
``torchrun`` (c10d rendezvous on 127.0.0.1, gloo timeouts of 3 s), torchrun's output options varied, the same shape
recorded untagged and under ``--tee 3`` as separate scenarios. Culprits (every rank of the subset): node 1's two ranks
reading its empty shard at step 3 (the same ``JSONDecodeError`` on ranks 2 and 3, node 0's ranks waiting in the step's
all-reduce); ranks 1 and 3, one per node, raising the same ``ValueError`` on their step-3 batch; ranks 0, 1 and 2
raising it alike while rank 3 waits; rank 2 alone raising it while three wait. Controls (no rank may be named): every
rank reading one config whose ``batch_size`` is ``4x`` (the same ``ValueError: invalid literal for int()`` on each, at
start), every rank opening a tokenizer file that does not exist (``FileNotFoundError`` on each), a clean run.
``victims``: the ranks that fail or wait because of the culprits.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import torch_scenarios41 as t41

HERE = Path(__file__).resolve().parent
WORKER = str(HERE / "t49_worker.py")
LAUNCHERS = ("t49run",)
_DIRS: list[str] = []


def _others(*culprits: int, world: int = 4) -> list[int]:
    return [r for r in range(world) if r not in culprits]


def scenarios(S) -> list[dict]:
    def T(name: str, victims: list[int], ranks: list[int] | None = None, **kw) -> dict:
        env = {"K10S_GLOO_TIMEOUT_S": "3", **kw.pop("env", {})}
        if ranks:
            env["K10S_T49_RANKS"] = ",".join(map(str, ranks))
            kw.update(rank=-2, culprits=list(ranks), cause="python-exception")
        return {**S(name, launcher="t49run", env=env, nproc=2, **kw), "victims": victims, "limit_s": 120}

    tee = ["--tee", "3"]
    return [
        # node 1's shard (train-00001-of-00002.jsonl) is empty: ranks 2 and 3 both open it at step 3 and raise the same
        # `json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)`; ranks 0 and 1 wait in the step's
        # all-reduce; torchrun's defaults (untagged)
        T("t49-trun-2x2-empty-shard-node1", [0, 1], [2, 3], fault="empty-shard"),
        # the same, --tee 3 (tagged)
        T("t49-trun-2x2-empty-shard-node1-tee", [0, 1], [2, 3], fault="empty-shard", opts=tee),
        # ranks 1 and 3 (one per node) raise the same `ValueError: empty batch at step 3: every sample filtered out by
        # max_length=512`; ranks 0 and 2 wait in the all-reduce; torchrun's defaults (untagged)
        T("t49-trun-2x2-valueerror-rank1-rank3", [0, 2], [1, 3], fault="empty-batch"),
        # the same, --tee 3 (tagged)
        T("t49-trun-2x2-valueerror-rank1-rank3-tee", [0, 2], [1, 3], fault="empty-batch", opts=tee),
        # ranks 0, 1 and 2 raise that ValueError alike, rank 3 waits in the all-reduce; --redirects 3 --log-dir (the
        # consoles: the agents' tables)
        T("t49-trun-2x2-valueerror-ranks012-redirects", [3], [0, 1, 2], fault="empty-batch",
          opts=["--redirects", "3", "--log-dir", "{logdir}"]),
        # rank 2 alone raises it, ranks 0, 1 and 3 wait; --tee 3 --local-ranks-filter 0 (ranks 0 and 2 shown)
        T("t49-trun-2x2-valueerror-rank2-filter0", [0, 1, 3], [2], fault="empty-batch",
          opts=["--tee", "3", "--local-ranks-filter", "0"]),
        # controls: no rank may be named
        # every rank reads config.json, whose batch_size is "4x": `ValueError: invalid literal for int() with base 10:
        # '4x'` on every rank at once, after init_process_group; torchrun's defaults (untagged)
        T("t49-trun-2x2-bad-config-every-rank", [], fault="bad-config", rank=-1, culprits=[]),
        # the same, --tee 3 (tagged)
        T("t49-trun-2x2-bad-config-every-rank-tee", [], fault="bad-config", rank=-1, culprits=[], opts=tee),
        # every rank opens tokenizer.json, which is not in the data folder: `FileNotFoundError: [Errno 2] No such file
        # or directory: '.../tokenizer.json'` on every rank at once; --tee 3 --local-ranks-filter 1 (ranks 1 and 3)
        T("t49-trun-2x2-missing-tokenizer-every-rank-filter1", [], fault="missing-file", rank=-1, culprits=[],
          opts=["--tee", "3", "--local-ranks-filter", "1"]),
        # a clean run: every shard read, every step trained; --tee 3
        T("t49-trun-2x2-clean-tee", [], culprits=[], opts=tee),
    ]


def _data(fault: str) -> str:
    """The nodes' shared data folder: config.json, tokenizer.json (absent for ``missing-file``) and one shard a node
    (node 1's empty for ``empty-shard``)."""
    data = tempfile.mkdtemp(prefix="k10s-t49-data-")
    _DIRS.append(data)
    with open(os.path.join(data, "config.json"), "w") as f:
        json.dump({"batch_size": "4x" if fault == "bad-config" else "4", "max_length": 512}, f)
    if fault != "missing-file":
        with open(os.path.join(data, "tokenizer.json"), "w") as f:
            json.dump({"vocab_size": 8}, f)
    for node in range(2):
        with open(os.path.join(data, f"train-{node:05d}-of-00002.jsonl"), "w") as f:
            if not (fault == "empty-shard" and node == 1):
                f.writelines(json.dumps({"id": node * 100 + i, "tokens": list(range(8))}) + "\n" for i in range(64))
    return data


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line: plain ``torchrun`` running t49_worker.py, a fresh data folder (the nodes' shared
    volume) given after ``env``."""
    cmds = t41.plain_torchrun(sc, opts, port, WORKER)
    data = _data(sc["fault"])
    for cmd in cmds:
        cmd.insert(1, f"K10S_DATA_DIR={data}")
    return cmds


def cleanup() -> None:
    while _DIRS:
        shutil.rmtree(_DIRS.pop(), ignore_errors=True)


def public(part: str) -> str:
    """A command part as the user would type it."""
    if part.startswith("K10S_DATA_DIR="):
        return "K10S_DATA_DIR=/data"
    return "train.py" if part == WORKER else part
