"""Session 28's named controls (issue 18: no control given a culprit), the one shape a general reading separates from
the corpus's culprits (docs/rules.md, "Session 28: named controls"):

* NCCL's bootstrap that found no network interface to use — the ``Last error:`` payload ``Bootstrap : no socket
  interface found`` under the error the communicator's init returned (``ncclInternalError`` in NCCL 2.21, open-r1-
  multimodal-7; ``ncclInvalidUsage`` in 2.27, NeMo-15019): the interface the launch names (NCCL_SOCKET_IFNAME) or the
  host's network, which every process of the launch reads alike, so the rank whose copy is pasted is no culprit;
* the contrasts: the same error with another payload (a peer's connection refused) is the rank's own as before, and
  the same payload where another process of the job got past the bootstrap (``NCCL INFO Bootstrap : Using eth0:…``)
  leaves the host that lacks the interface the odd one: its rank is named;
* a rank's ``[rankN]:``-tagged traceback frames pasted without their header: the first frame starts that rank's traceback
  as the header would have (Megatron-Bridge-824: rank 28's frames cut inside the same backward as rank 9's
  AttributeError, two ranks raising together, no single culprit); a lone rank's headless frames ending in its exception
  still name it, and frames under a header make no second start.

The analyses go through tests/bundle_batch.py (every input in one analysis); the payload's parsing is pinned at parser
level (tests/parser_kit.py).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings
from parser_kit import body_events

NOW = dt.datetime(2026, 12, 1, 8, 0, tzinfo=dt.timezone.utc)
OPEN_R1 = corpus_log("open-r1-multimodal-7-rank0-bootstrap-no-socket-interface-eth0-control")
NO_IFACE = "Bootstrap : no socket interface found"
REFUSED = "socketStartConnect: Connect to 10.1.2.3<45187> failed : Connection refused"


def _error(rank: int, payload: str, code: str = "internal", gap: str = "") -> str:
    """Rank ``rank``'s tagged DistBackendError at communicator init with ``payload`` as its ``Last error:`` (``code``:
    NCCL 2.21's internal error or 2.27's invalid usage; ``gap``: a blank line after each, a double-spaced paste)."""
    head = ("NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2588, internal error - please "
            "report this issue to the NCCL developers, NCCL version 2.21.5", "ncclInternalError: Internal check failed.")
    if code == "usage":
        head = ("NCCL error in: /opt/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:2897, invalid usage (run "
                "with NCCL_DEBUG=WARN for details), NCCL version 2.27.3", "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.")
    lines = [f"[rank{rank}]: torch.distributed.DistBackendError: {head[0]}", f"[rank{rank}]: {head[1]}",
             f"[rank{rank}]: Last error:", f"[rank{rank}]: {payload}"]
    return "".join(line + "\n" + gap for line in lines)


def _got_past(rank: int) -> str:
    """Rank ``rank``'s NCCL INFO line of a bootstrap that found its interface (another host's process)."""
    return f"[rank{rank}]:gpu-node-1:4181:4181 [{rank % 4}] NCCL INFO Bootstrap : Using eth0:10.1.2.{rank + 10}<0>\n"


BRIDGE = corpus_log("Megatron-Bridge-824-fp8-gb200-ranks28-9-float8-main-grad-control")
FRAMES = ('  File "/opt/megatron-lm/megatron/core/pipeline_parallel/schedules.py", line 471, in backward_step',
          "    custom_backward(output_tensor[0], output_tensor_grad[0])",
          '  File "/usr/local/lib/python3.12/dist-packages/torch/autograd/function.py", line 307, in apply',
          "    return user_fn(self, *args)")
RAISED = "AttributeError: 'Float8Tensor' object has no attribute 'main_grad'"


def _frames(rank: int, raised: bool = True, header: bool = False) -> str:
    """Rank ``rank``'s tagged traceback from inside its stack (``header``: from its header), ending in its exception
    (``raised``) or cut after its frames."""
    lines = (["Traceback (most recent call last):"] if header else []) + list(FRAMES) + ([RAISED] if raised else [])
    return "".join(f"[rank{rank}]: {line}\n" for line in lines)


BUILD = {"open_r1": lambda: OPEN_R1, "error": _error, "past": lambda rank, peer: _got_past(peer) + _error(rank, NO_IFACE),
         "bridge": lambda: BRIDGE, "frames": lambda ranks: "".join(_frames(r, raised=i == len(ranks) - 1) for i, r in enumerate(ranks))}
# key: (shape, arguments…)
CONTROLS = [("open_r1",), ("error", 0, NO_IFACE), ("error", 3, NO_IFACE, "usage"), ("error", 1, NO_IFACE, "internal", "\n"),
            ("error", 2, "Bootstrap: no socket interface found")]
CULPRITS = {("error", 2, REFUSED): 2, ("past", 2, 5): 2}
FRAME_CONTROLS = [("bridge",), ("frames", (28, 9)), ("frames", (5, 2))]
FRAME_CULPRITS = {("frames", (3,)): 3}
BATCHED = Batched("named-controls-s28", CONTROLS + list(CULPRITS) + FRAME_CONTROLS + list(FRAME_CULPRITS))


def _make(key: tuple, folder: Path) -> object:
    return pasted(BUILD[key[0]](*key[1:]), folder, 4, NOW, world=8)


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_a_bootstrap_with_no_socket_interface_names_no_one(tmp_path_factory, key):
    findings = BATCHED.findings(key, tmp_path_factory, _make)
    assert_one_rank(naming_findings(findings), None)
    said = [f for f in findings if f["rule"] == "rank-failure" and f["severity"] in ("critical", "warning")]
    assert said and all(f["cause"] == "nccl-error" for f in said), [(f["rule"], f["cause"], f["ranks"]) for f in findings]


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_another_payload_or_a_peer_past_the_bootstrap_names_the_rank(tmp_path_factory, key):
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), CULPRITS[key], "nccl-error")


@pytest.mark.parametrize("key", BATCHED.params(FRAME_CONTROLS))
def test_two_ranks_tracebacks_one_without_its_header_name_no_one(tmp_path_factory, key):
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), None)


@pytest.mark.parametrize("key", BATCHED.params(FRAME_CULPRITS))
def test_a_lone_ranks_headless_traceback_with_its_exception_names_it(tmp_path_factory, key):
    assert_one_rank(naming_findings(BATCHED.findings(key, tmp_path_factory, _make)), FRAME_CULPRITS[key], "python-exception")


def test_a_headless_frame_starts_the_ranks_traceback_once():
    starts = lambda text: [(e["line_no"], e["rank"]) for e in body_events(text.splitlines(), NOW) if e["kind"] == "python_traceback"]  # noqa: E731
    assert starts(_frames(28, raised=False)) == [(1, 28)]
    assert starts(_frames(4, header=True)) == [(1, 4)]  # the header starts it; its frames start nothing more
    assert starts(_frames(4) + _frames(4)) == [(1, 4), (6, 4)]  # the exception ends one; the next frame starts another
    assert starts('[rank2]:     return user_fn(self, *args)\n  File "x.py", line 3, in f\n') == []  # code lines, untagged frames


def test_the_payload_joins_the_error_above_it_and_alone_says_nothing():
    events = body_events(_error(0, NO_IFACE).splitlines(), NOW)
    errors = [e for e in events if e["kind"] == "nccl_error_other"]
    assert len(errors) == 1 and errors[0]["subkind"] == "ncclInternalError", events
    assert errors[0]["line"].endswith(NO_IFACE), errors[0]["line"]
    assert body_events(["some prose", NO_IFACE, "[rank3]: " + NO_IFACE], NOW) == []


def test_the_variants_keep_their_shape():
    """The builders change ranks, codes and spacing, not the wording the tests are about."""
    assert OPEN_R1.rstrip().endswith("[rank0]: " + NO_IFACE) and "ncclInternalError" in OPEN_R1
    assert _error(1, NO_IFACE, "internal", "\n").count("\n\n") == 4
    assert "ncclInvalidUsage" in _error(3, NO_IFACE, "usage")
    assert BUILD["past"](2, 5).startswith("[rank5]:") and "NCCL INFO Bootstrap : Using eth0:" in _got_past(5)
    assert "Traceback" not in BRIDGE and BRIDGE.count("[rank9]: AttributeError") == 1 and "[rank28]:   File" in BRIDGE
    two = BUILD["frames"]((28, 9))
    assert "Traceback" not in two and two.count(RAISED) == 1 and two.index("[rank28]") < two.index("[rank9]")
