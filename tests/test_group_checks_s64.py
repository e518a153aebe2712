"""Session 64's named controls (issue 18: no control given a culprit): a check of the launch's size, or of the group's
agreement, that every process runs alike (docs/rules.md, "Session 64: checks every process runs alike";
queries/_incident_common_mode.sql, parsers/log_shared_inputs.py). Of the 91 controls named at warning in session 63's
scan, the four whose own line is such a check, each named as collected, now name no one:

* an ``assert`` of the settings against the world size (dlrover-533's ``assert gradient_accumulation_steps %
  world_size == 0`` over a bare ``AssertionError``; ``assert args.num_gpus == torch.cuda.device_count()``), whichever
  rank's copy (``[rank1]:``-tagged too);
* c10d's check of a tensor collective's sizes against the world size (arcticinference-175's ``ValueError: output
  tensor size must be equal to world_size times input tensor size``; reduce-scatter's ``input … output`` alike);
* SGLang's check of a GPU's free memory against the group's least (sglang-5416's ``The memory capacity is unbalanced.
  Some GPUs may be occupied by other processes.``: the raiser is a roomier GPU, a witness);
* an API's check of the type the script hands it (lightning-thunder-2629's ``TypeError: Expected `model` to be of type
  `thunder.core.module.ThunderModule`, but got Sequential``).

Contrasts, each still the rank's own: an ``assert`` naming the rank (YOLOv5-Lite-195's ``assert
torch.cuda.device_count() > opt.local_rank``: only ranks past the node's GPUs fail it; a culprit of the corpus), an
``assert`` on something else (``x.shape[0] == batch``), another exception under a world-size assert (a
``ZeroDivisionError``), a TypeError of another wording. Pasted logs through ``k10s import-logs``, batched; the mark is
pinned at parser level.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings
from k10s_forensics.parsers.log_shared_inputs import WORLD_CHECK
from parser_kit import body_events

NOW = dt.datetime(2026, 12, 6, 21, 0, tzinfo=dt.timezone.utc)


def _asserted(rank: int, statement: str, error: str = "AssertionError") -> list[str]:
    """Rank ``rank``'s tagged traceback through ``statement`` ending in ``error``."""
    lines = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 379, in <module>', "    train()",
             '  File "/workspace/train.py", line 178, in train', "    " + statement, error]
    return [f"[rank{rank}]: {line}" for line in lines]


def _raised(rank: int, error: str) -> list[str]:
    """Rank ``rank``'s tagged traceback through a collective ending in ``error``."""
    lines = ["Traceback (most recent call last):", '  File "/workspace/model.py", line 88, in forward',
             "    dist.all_gather_into_tensor(out, x, group=group)",
             '  File "/usr/lib/python3.10/site-packages/torch/distributed/distributed_c10d.py", line 3512, in '
             "all_gather_into_tensor", "    work = group._allgather_base(output_tensor, input_tensor, opts)", error]
    return [f"[rank{rank}]: {line}" for line in lines]


BUILD = {
    "dlrover": lambda: corpus_lines("dlrover-533-"),
    "arctic": lambda: corpus_lines("arcticinference-175-"),
    "sglang": lambda: corpus_lines("sglang-5416-"),
    "thunder": lambda: corpus_lines("lightning-thunder-2629-"),
    "yolo": lambda: corpus_lines("YOLOv5-Lite-195-"),
    "asserted": _asserted,
    "raised": _raised,
}
#: key: (shape, arguments…) -> (processes per node, world)
CONTROLS = {
    ("dlrover",): (None, None),
    ("arctic",): (4, 4),
    ("sglang",): (8, 8),
    ("thunder",): (None, None),
    ("asserted", 1, "assert gradient_accumulation_steps % world_size == 0"): (4, 4),
    ("asserted", 3, "assert args.num_gpus == torch.cuda.device_count(), 'gpus'", "AssertionError: gpus"): (4, 4),
    ("asserted", 2, "assert cfg.batch_size % dist.get_world_size() == 0"): (4, 4),
    ("raised", 2, "ValueError: input tensor size must be equal to world_size times output tensor size"): (4, 4),
    ("raised", 1, "TypeError: Expected `module` to be of type `FullyShardedDataParallel`, but got Linear"): (4, 4),
}
#: key -> (processes per node, world, the rank named, its cause)
CULPRITS = {
    ("yolo",): (None, None, 1, "python-exception"),
    ("asserted", 1, "assert torch.cuda.device_count() > opt.local_rank"): (4, 4, 1, "python-exception"),
    ("asserted", 2, "assert x.shape[0] == batch"): (4, 4, 2, "python-exception"),
    ("asserted", 3, "assert steps % world_size == 0", "ZeroDivisionError: integer division or modulo by zero"):
        (4, 4, 3, "python-exception"),
    ("raised", 1, "TypeError: unsupported operand type(s) for +: 'NoneType' and 'int'"): (4, 4, 1, "python-exception"),
}
BATCHED = Batched("group-checks-s64", list(CONTROLS) + list(CULPRITS))


def _make(key: tuple, folder: Path) -> object:
    nproc, world = (CONTROLS[key] if key in CONTROLS else CULPRITS[key][:2])
    return pasted(BUILD[key[0]](*key[1:]), folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CONTROLS)))
def test_a_check_every_process_runs_alike_names_no_one(tmp_path_factory, key):
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    assert_one_rank(naming_findings(findings), None)
    said = [f for f in findings if f["rule"] == "rank-failure"]
    assert said and any("no single culprit" in (f.get("summary") or "") for f in said), \
        [(f["rule"], f["severity"], f["cause"], f["ranks"], f.get("summary")) for f in findings]


@pytest.mark.parametrize("key", BATCHED.params(list(CULPRITS)))
def test_the_rank_in_the_statement_another_check_or_exception_names_the_rank(tmp_path_factory, key):
    _, _, rank, cause = CULPRITS[key]
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), rank, cause)


def _messages(lines: list[str]) -> list[str]:
    return [e["error_message"] or "" for e in body_events(lines, NOW) if e["kind"] == "python_exception"]


def test_the_mark_is_the_world_size_asserts():
    assert _messages(_asserted(1, "assert gradient_accumulation_steps % world_size == 0")) == [WORLD_CHECK + "AssertionError"]
    assert _messages(corpus_lines("dlrover-533-")) == [WORLD_CHECK + "AssertionError"]
    for statement in ("assert torch.cuda.device_count() > opt.local_rank", "assert x.shape[0] == batch"):
        assert not any(m.startswith(WORLD_CHECK) for m in _messages(_asserted(1, statement)))
    divided = _asserted(3, "assert steps % world_size == 0", "ZeroDivisionError: integer division or modulo by zero")
    assert not any(m.startswith(WORLD_CHECK) for m in _messages(divided))
