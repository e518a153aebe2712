"""Session 16's general fixes, each a wording family read by the parser (cheap: the assembler and the normaliser
called directly) and, once each, the rule it feeds:

* the torch.distributed call a traceback was in (its first ``distributed_c10d.py`` frame: ``all_reduce``,
  ``barrier``, ``new_group``) is kept on the exception (``op_type``, k10s_forensics/parsers/log_owners.py), so
  a gloo job's ranks that waited in different calls are compared (queries/_evidence_logs.sql, docs/rules.md
  "Hang evidence": the odd call out; a rank that said nothing is no more absent than peers that were elsewhere);
* a ``logging`` format's host, rank and level fields before every line (``node-1 rank=3 ERROR …``) are a
  prefix naming the rank (k10s_forensics/parsers/log_normalize.py);
* a report a pod logged after its agent ended that round's workers is a later round's (queries/_evidence_logs.sql);
* each local rank's own ``--tee`` stream is an event (``rank_stream``, k10s_forensics/parsers/log_streams.py): a
  status 1 with that stream and its pod's teed tracebacks in the log, and no traceback of its own, is ``exit-1``
  (``sys.exit(msg)``, ``os._exit(1)``; queries/_incident.sql)."""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_lines import BodyAssembler
from k10s_forensics.parsers.log_normalize import normalize

_C10D = "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py"
_LOGGER = "/opt/venv/lib/python3.11/site-packages/torch/distributed/c10d_logger.py"
_GLOO_WAIT = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:78] "
              "Timed out waiting 3000ms for recv operation to complete")


def _exceptions(lines: list[str]) -> list[tuple]:
    a = BodyAssembler(None)
    for i, line in enumerate(lines):
        a.feed(i, line, None)
    return [(e.get("rank"), e["error_type"], e.get("op_type")) for e in a.finish() if e["kind"] == "python_exception"]


def _frames(tag: str, calls: list[str], user: str = "    dist.all_reduce(t)") -> list[str]:
    out = [f"{tag}Traceback (most recent call last):", f'{tag}  File "/workspace/train.py", line 99, in _reduce', f"{tag}{user}",
           f'{tag}  File "{_LOGGER}", line 83, in wrapper', f"{tag}    return func(*args, **kwargs)", f"{tag}           ^^^^^^^^^^^^^"]
    for n, call in enumerate(calls):
        out += [f'{tag}  File "{_C10D}", line {3252 + n}, in {call}', f"{tag}    work.wait()"]
    return out


@pytest.mark.parametrize("tag,calls,last,want", [
    ("[rank1]:", ["all_reduce"], _GLOO_WAIT, "all_reduce"),  # 2.13.0 / 2.14.1, torchrun's rank tag
    ("[default0]:[rank0]:", ["barrier"], _GLOO_WAIT, "barrier"),  # --tee 3
    ("[rank2]:", ["new_group", "_new_group_with_tag", "_new_process_group_helper"],  # the first c10d frame is the call made
     "torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely closed.", "new_group"),
    ("", ["wrapper", "broadcast"], "RuntimeError: Connection closed by peer [10.0.0.2]:4242", "broadcast"),  # older torch's decorator
], ids=["all-reduce", "tee-barrier", "new-group-nested", "untagged-old-wrapper"])
def test_an_exception_keeps_the_torch_distributed_call_its_traceback_was_in(tag, calls, last, want):
    got = _exceptions(_frames(tag, calls) + [tag + last])
    assert [g[2] for g in got] == [want], got


def test_an_exception_far_below_a_c10d_frame_or_of_another_rank_gets_no_call():
    far = _frames("[rank1]:", ["all_reduce"]) + ["[rank1]:    x = 1"] * 13 + ["[rank1]: KeyError: 'labels'"]
    other = _frames("[rank1]:", ["all_reduce"]) + ["[rank2]: KeyError: 'labels'"]
    plain = ["[rank3]: Traceback (most recent call last):", '[rank3]:   File "/workspace/train.py", line 9, in f', "[rank3]: KeyError: 'x'"]
    assert [g[2] for g in _exceptions(far) + _exceptions(other) + _exceptions(plain)] == [None, None, None]


@pytest.mark.parametrize("line,rank,text", [
    ("2026-11-29 14:49:37,336 node-1 rank=3 ERROR KeyError: 'labels'", 3, "KeyError: 'labels'"),  # the recording's format
    ("2026-11-29 14:49:37,336 gpu-node-1.cluster.local rank=12 WARNING slow step", 12, "slow step"),
    ("2026-11-29 14:49:37,336 rank:0 CRITICAL RuntimeError: boom", 0, "RuntimeError: boom"),  # no host field
    ("[2026-11-29 14:49:37] trainer-7 rank=5 INFO step 3 loss 0.2", 5, "step 3 loss 0.2"),
], ids=["host-rank-level", "fqdn-warning", "colon-no-host", "bracketed-clock"])
def test_a_logging_format_s_host_rank_and_level_are_a_prefix(line, rank, text):
    norm = normalize(line)
    assert (norm.rank, norm.text) == (rank, text)


@pytest.mark.parametrize("line", ["rank=3 step 4 loss 0.2", "2026-11-29 14:49:37,336 node-1 rank=3 lost its connection"],
                         ids=["message-rank", "no-level"])
def test_a_rank_field_without_a_level_after_it_is_no_prefix(line):
    assert normalize(line).rank is None


def _gloo_run(tag_calls: dict[int, tuple[list[str], str]]) -> list[str]:
    """Two nodes' logs (2 ranks each) where each rank in ``tag_calls`` ended in those calls with that exception."""
    nodes = ["", ""]
    for rank in range(4):
        lines = [f"[rank{rank}]: step 3 loss 0.1"]
        if rank in tag_calls:
            calls, last = tag_calls[rank]
            lines += _frames(f"[rank{rank}]:", calls) + [f"[rank{rank}]:{last}"]
        nodes[rank // 2] += "\n".join(lines) + "\n"
    return nodes


@pytest.mark.parametrize("calls,want", [
    # only rank 0 called barrier: every rank timed out, the odd call out is rank 0's
    ({0: (["barrier"], _GLOO_WAIT), 1: (["all_reduce"], _GLOO_WAIT), 2: (["all_reduce"], _GLOO_WAIT), 3: (["all_reduce"], _GLOO_WAIT)},
     [("collective-mismatch", [0])]),
    # rank 1 skipped new_group: it timed out in all_reduce while its peers were creating the group; rank 0 said nothing
    ({1: (["all_reduce"], _GLOO_WAIT),
      2: (["new_group", "_new_process_group_helper"], "torch.distributed.DistNetworkError: Failed to recv, got 0 bytes."),
      3: (["new_group", "_new_process_group_helper"], "torch.distributed.DistNetworkError: Failed to recv, got 0 bytes.")},
     [("never-joined", [1])]),
], ids=["rank0-only-barrier", "skipped-new-group"])
def test_the_rank_whose_call_differs_from_its_peers_is_named(tmp_path, calls, want):
    from torch_runs_kit import findings_of_texts, named

    assert named(findings_of_texts(tmp_path, _gloo_run(calls))) == want


_AGENT_FAILED = ("E1129 20:14:48.841000 12832 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) "
                 "local_rank: 0 (pid: 13042) of binary: /opt/venv/bin/python3")
_STORE_WAIT = ["Traceback (most recent call last):", f'  File "{_C10D}", line 2553, in init_process_group',
               "torch.distributed.DistStoreError: wait timeout after 3000ms, keys: /attempt1/0//cpu//0/0"]


def test_a_store_wait_after_the_agent_ended_its_workers_is_a_later_round_s(tmp_path):
    """The store wait comes after node 1's agent reported its workers failed: the restarted round's, no evidence of the
    hang (before, it named rank 0, whose key never came, never-joined beside the right rank 2)."""
    from torch_runs_kit import findings_of_texts, named

    node0 = "[rank1]: RuntimeError: [../gloo/transport/tcp/pair.cc:561] Connection closed by peer [127.0.0.1]:36224\n" \
            f"[rank0]: {_GLOO_WAIT}\n"
    node1 = ["[rank2]: Traceback (most recent call last):", "[rank2]: KeyError: 'labels'", _AGENT_FAILED, *_STORE_WAIT]
    assert named(findings_of_texts(tmp_path, [node0, "\n".join(node1) + "\n"])) == [("python-exception", [2]), ("rank-failed", [2])]


def _streams(body: str) -> list[tuple]:
    import pyarrow as pa

    from k10s_forensics.parsers.log_streams import stream_events

    meta = pa.table({"_row": [7], "namespace": ["a"], "pod": ["p"], "pod_uid": ["u"], "container": ["c"], "node": ["n"], "previous": [False]})
    out = stream_events(pa.table({"_row": [7], "body": [body]}), meta)
    return [] if out is None else [(r["local_rank"], r["line_no"], r["line"], r["ts"] is not None) for r in out.to_pylist()]


@pytest.mark.parametrize("body,want", [
    # the pod log's API clock (nanoseconds), two local ranks: each one's last --tee line
    ("2026-11-29T17:30:03.616136000Z [default0]:rank 0 step 0\n2026-11-29T17:30:03.716310000Z [default1]:rank 1 step 0\n"
     "2026-11-29T17:30:04.017040000Z [default0]:rank 0 step 1\n2026-11-29T17:30:05.321959000Z " + _AGENT_FAILED + "\n",
     [(0, 3, "[default0]:rank 0 step 1", True), (1, 2, "[default1]:rank 1 step 0", True)]),
    # a paste without the clock; a line naming the prefix in its middle is no stream of it
    ("[default1]:ERROR: shard index 7 out of range\nnote: [default0]: is rank 0's prefix\n[default1]:done\n"
     "  exitcode  : 1 (pid: 26223)\n", [(1, 3, "[default1]:done", False)]),
    ("[rank1]: Traceback (most recent call last):\nstep 3\n" + _AGENT_FAILED, []),  # torch's own rank tag is no --tee stream
    ("[default1]:rank 1 step 0\n[default0]:rank 0 step 0\n", []),  # no launcher's exit report: no exit to read
], ids=["api-clock", "paste", "no-tee", "no-exit-report"])
def test_each_local_rank_s_tee_stream_is_one_event_at_its_last_line(body, want):
    assert _streams(body) == want


@pytest.mark.parametrize("hide,want", [
    ("", [("exit-1", [1])]),  # as recorded (--tee 3): rank 1's own lines and rank 0's traceback are behind the prefix
    ("[default1]:", [("python-exception", [1])]),  # rank 1's stream not in the log (--local-ranks-filter 0): a hidden traceback
], ids=["stream-shown", "stream-filtered"])
def test_a_status_1_with_the_rank_s_own_output_shown_and_no_traceback_is_exit_1(tmp_path, hide, want):
    """``os._exit(1)`` on rank 1 (tests/data/torch-runs 2.13.0/t12-trun-os-exit1-rank1, --tee 3): no traceback, status 1."""
    from torch_runs_kit import RUNS, findings_of_texts, named, plain

    run = RUNS / "2.13.0" / "t12-trun-os-exit1-rank1"
    texts = [plain((run / f"node{i}.log").read_text(encoding="utf-8")) for i in (0, 1)]
    if hide:
        texts[0] = "".join(line for line in texts[0].splitlines(keepends=True) if not line.startswith(hide))
    assert named(findings_of_texts(tmp_path, texts)) == want
