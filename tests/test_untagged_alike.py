"""One uncaught exception printed twice or more with no rank tag is several processes' alike (queries/_incident_common_mode.sql,
``untagged_alike``; docs/rules.md, "Session 57: one exception printed twice").

torchrun without ``--tee`` leaves its workers' stderr untagged on the console: two copies of one traceback are two
processes that raised it (a process prints its uncaught traceback once), and the agent's ``failed (exitcode: 1)
local_rank: N`` names only the first it reaped. The corpus' eleven pastes of that shape are all controls (LlamaFactory#4035:
``ModuleNotFoundError`` in both workers, the agent naming local rank 0). Swept over exception wordings, copy counts,
layouts and the local rank the agent names; contrasts: one copy, two different messages, a worker-group restart or a
launcher's report between the copies (the same rank failing again, or a launcher echoing its worker's log), and a
process the agent saw killed by a signal still name their rank.
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import naming_findings

NOW = dt.datetime(2026, 12, 5, 23, 0, tzinfo=dt.timezone.utc)
ERRORS = [
    ("ModuleNotFoundError", "No module named 'llamafactory'"),
    ("ImportError", "cannot import name 'is_torch_npu_available' from 'transformers.utils'"),
    ("NameError", "name 'garbageeeeee' is not defined"),
    ("KeyError", "'model_name_or_path'"),
    ("FileNotFoundError", "[Errno 2] No such file or directory: '/data/train.jsonl'"),
    ("RuntimeError", "Expected all tensors to be on the same device, but found at least two devices, cuda:1 and cpu!"),
    ("ValueError", "Tokenizer class LlamaTokenizerFast does not exist or is not currently imported."),
]


def _traceback(error: tuple[str, str], script: str = "train.py") -> list[str]:
    return ["Traceback (most recent call last):", f'  File "/workspace/{script}", line 12, in <module>', "    main()",
            f'  File "/workspace/{script}", line 9, in main', "    run(cfg)", f"{error[0]}: {error[1]}"]


def _agent(local_rank: int, code: int = 1, pid: int = 16476) -> str:
    return (f"E1205 23:00:0{local_rank}.000000 140 torch/distributed/elastic/multiprocessing/api.py:882] failed "
            f"(exitcode: {code}) local_rank: {local_rank} (pid: {pid + local_rank}) of binary: /usr/bin/python3")


def _alike(seed: int) -> tuple[list[str], int]:
    """``copies`` (2-4) of one traceback, then the agent's report of one of those local ranks; the node's process count."""
    rnd = random.Random(seed)
    error, nproc = rnd.choice(ERRORS), rnd.choice([2, 4, 8])
    copies = rnd.randint(2, min(4, nproc))
    return [line for _ in range(copies) for line in _traceback(error)] + [_agent(rnd.randrange(copies))], nproc


ONE, OTHER = ERRORS[0], ERRORS[3]
RESTART = ("W1205 23:00:05.000000 140 torch/distributed/elastic/agent/server/api.py:719] [default] Worker group FAILED. "
           "3/3 attempts left; will restart worker group")
PADDLE_ECHO = ["LAUNCH ERROR 2025-09-27 09:32:31,869 Container failed !!!",
               "Container rank 0 status failed cmd ['/usr/bin/python', '-u', 'train.py'] code 1 log log/workerlog.0",
               "LAUNCH INFO 2025-09-27 09:32:31,869 ------------------------- ERROR LOG DETAIL -------------------------"]
#: key: (the pasted lines, processes per node (None: as pasted), the rank named alone (None: no one), its cause)
CASES: dict[str, tuple[list[str], int | None, int | None, str | None]] = {
    **{f"alike-seed{seed}": (*_alike(seed), None, None) for seed in range(12)},
    "alike-as-pasted": (_traceback(ONE) * 2 + [_agent(0)], None, None, None),
    "alike-agent-local-rank1": (_traceback(ONE) * 2 + [_agent(1)], 2, None, None),
    "one-copy-names-rank0": (_traceback(ONE) + [_agent(0)], 2, 0, "python-exception"),
    "one-copy-local-rank3-names-rank3": (_traceback(ONE) + [_agent(3)], 4, 3, "python-exception"),
    "two-messages-names-rank0": (_traceback(ONE) + _traceback(OTHER) + [_agent(0)], 2, 0, "python-exception"),
    "restart-between-names-rank1": (_traceback(ONE) + [_agent(1), RESTART] + _traceback(ONE) + [_agent(1)], 2, 1,
                                    "python-exception"),
    "paddle-echo-names-rank0": (_traceback(ONE) + PADDLE_ECHO + _traceback(ONE), 2, 0, "python-exception"),
    "sigkill-first-names-rank1": (_traceback(ONE) * 2 + [_agent(1, code=-9)], 2, 1, "host-oom-kill"),
}
BATCHED = Batched("untagged-alike", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=nproc)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_untagged_copies_read(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][2], CASES[key][3])


def test_the_common_mode_says_why(tmp_path):
    from k10s_forensics.analyze.runner import analyze

    findings = analyze(pasted(_traceback(ONE) * 2 + [_agent(0)], tmp_path, 2, NOW, world=2))["findings"]
    failure = next(f for f in findings if f["rule"] == "rank-failure")
    assert failure["ranks"] == [] and "the same ModuleNotFoundError printed by two or more processes" in failure["summary"]
