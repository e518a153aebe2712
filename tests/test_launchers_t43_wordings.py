"""The forty-third launcher set's three readings (session 41; docs/rules.md "Session 41: the forty-third launcher set").

1. Every rank but rank 0 raising one same exception (type and message to the letter), three or more ranks, while rank 0
   waited alive in a collective (gloo's ``Connection closed by peer`` in its barrier): rank 0 ran a branch of the program
   of its own (``if rank == 0:`` writes the vocabulary the others then read), the code every other rank runs failed
   them alike: no single culprit (queries/_incident.sql ``all_raised``). Two ranks of four raising it while the other
   two were torn down in a collective stay those ranks' own (``subset_alike``, as before).
2. gloo's size check (``Received data size doesn't match expected size``) aborts the RECEIVING rank; where that rank's
   last training step is behind every other rank's (each logged one more step: they went on to the next step's
   gradient all-reduce while it called a collective they never call), it is the rank that left the common path:
   ``collective-mismatch`` (``size_mismatch_lag``). At the others' step it stays unnamed, as before.
3. A rank waiting in a barrier while every other rank's traceback is in ``loss.backward()`` (autograd's entry frame, no
   c10d frame: DDP's gradient all-reduce; parsers/log_owners.py gives it the call ``backward``) had left the training
   steps (its shard ran out): it ``never-joined`` their all-reduce (_evidence_logs.sql ``wd_odd``). Its barrier against
   the others' explicit ``all_reduce`` stays a ``collective-mismatch``.

The recorded runs (tests/data/torch-runs/*/t43-*), each node's log as ``kubectl logs`` shows it, imported as one job's
node logs and analysed together.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from bundle_batch import analyze_node_sets, findings_of
from parser_kit import body_events
from torch_runs_kit import RUNS, assert_reading, plain

NOW = dt.datetime(2026, 12, 3, 18, 0, tzinfo=dt.timezone.utc)
TEARDOWN = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:561] Connection closed by peer "
            "[127.0.0.1]:47806. This is typically caused by a remote worker crashing.")


def _nodes(version: str, name: str) -> list[str]:
    return [plain((RUNS / version / f"t43-trun-2x2-{name}" / f"node{i}.log").read_text()) for i in (0, 1)]


def _edit(texts: list[str], pattern: str, repl: str) -> list[str]:
    edited = [re.sub(pattern, repl, t, flags=re.M) for t in texts]
    assert edited != texts, f"no line matches {pattern}"  # a variant that changed nothing would test nothing
    return edited


def _rank1_torn(version: str) -> list[str]:
    """The load race with rank 1's FileNotFoundError a teardown: ranks 2 and 3 raised it, ranks 0 and 1 waited."""
    return _edit(_nodes(version, "load-race-readers"), r"^(\[default1\]:\[rank1\]: )FileNotFoundError: .*$", rf"\g<1>{TEARDOWN}")


def _no_lag(version: str) -> list[str]:
    """The extra collective with the other ranks' last progress line cut: every rank's last step is the receiver's."""
    return _edit(_nodes(version, "extra-collective-rank2-tee"), r"^.*\[RANK [013]\] trainer - step 3/6 .*\n", "")


def _all_reduce(version: str) -> list[str]:
    """The short shard with rank 3's final barrier an explicit all-reduce, as the others' calls are not."""
    texts = _edit(_nodes(version, "short-shard-rank3"), r"^(\[rank3\]:\s+File \".*distributed_c10d\.py\", line \d+, in )barrier$",
                  r"\g<1>all_reduce")
    return _edit(texts, r"^(\[rank3\]:\s+)dist\.barrier\(\)$", r"\g<1>dist.all_reduce(done)")


#: name: (each node's log, the ranks a warning/critical finding must name (none: none may), its cause)
CASES = {
    **{f"load-race-{v}": (_nodes(v, "load-race-readers"), [], None) for v in ("2.13.0", "2.14.1")},
    **{f"extra-collective-{v}": (_nodes(v, "extra-collective-rank2-tee"), [2], "collective-mismatch") for v in ("2.13.0", "2.14.1")},
    **{f"short-shard-{v}": (_nodes(v, "short-shard-rank3"), [3], "never-joined") for v in ("2.13.0", "2.14.1")},
    # contrasts: two ranks of four raising it, the other two torn down (their own: as before); the receiver at the
    # others' step (no one can be told); the odd rank's explicit all-reduce against the others' backward
    # since session 62 two ranks failing on missing files under one shared directory name no one, as the load race
    # itself (docs/rules.md, "Session 62: one shared directory failing for several ranks")
    "load-race-two-of-four": (_rank1_torn("2.14.1"), [], None),
    "extra-collective-no-lag": (_no_lag("2.13.0"), [], None),
    "short-shard-all-reduce": (_all_reduce("2.14.1"), [3], "collective-mismatch"),
}


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("t43")
    return analyze_node_sets([(name, texts) for name, (texts, _, _) in CASES.items()], tmp, NOW, nproc=lambda name: 2)


@pytest.mark.parametrize("name", list(CASES))
def test_forty_third_set_wordings_as_read(findings, name):
    _, want, cause = CASES[name]
    assert_reading(findings_of(findings, list(CASES).index(name)), want, cause)


def _op_of(frames: list[str]) -> str | None:
    lines = ["Traceback (most recent call last):", *frames,
             "RuntimeError: [../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 3000ms for recv operation to complete"]
    (exc,) = [e for e in body_events(lines, NOW) if e["kind"] == "python_exception"]
    return exc.get("op_type")


AUTOGRAD = ['  File "/opt/venv/lib/python3.11/site-packages/torch/_tensor.py", line 623, in backward',
            "    torch.autograd.backward(",
            '  File "/opt/venv/lib/python3.11/site-packages/torch/autograd/__init__.py", line 395, in backward',
            "    _engine_run_backward("]
C10D = ['  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3050, in all_reduce',
        "    work.wait()"]


@pytest.mark.parametrize("frames, op", [
    (AUTOGRAD, "backward"),  # DDP's reducer under loss.backward(): no c10d frame
    (AUTOGRAD + ['  File "/srv/fsdp_hooks.py", line 40, in _post_backward'] + C10D, "all_reduce"),  # a hook's own c10d call
    (C10D, "all_reduce"),
    (['  File "/srv/train.py", line 12, in step', "    loss.backward()"], None),  # no autograd frame in the paste
])
def test_the_call_a_gloo_timeout_was_in(frames, op):
    assert _op_of(['  File "/srv/train.py", line 99, in <module>', "    main()", *frames]) == op
