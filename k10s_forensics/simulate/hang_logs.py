"""Log wordings of the hang-evidence scenarios (desync reports, fingerprints, >= 2.6 watchdog).

Formats follow PyTorch's own text (ProcessGroupNCCL.cpp, TraceUtils.h, ProcessGroupWrapper.cpp)
as docs/rules.md "Hang evidence" describes them; the line prefix depends on the job's
torch style like every other ProcessGroupNCCL line (``logs._cpp``).
"""

from __future__ import annotations

import datetime as dt

from k10s_forensics.simulate.logs import _cpp, _py

TENSOR_OPTIONS = ("TensorOptions(dtype=float (default), device=cuda, layout=Strided (default), requires_grad=false (default), "
                  "pinned_memory=false (default), memory_format=(nullopt))")


def _ranks(ranks: list[int], compact: bool) -> str:
    return ("," if compact else ", ").join(str(r) for r in ranks)


def watchdog_26(ts: dt.datetime, rank: int, seq: int, op: str, numel_in: int, numel_out: int, timeout_ms: int, ran_ms: int,
                last_enq: int, last_done: int) -> list[str]:
    """PyTorch >= 2.6: the timeout line, then ``failure detected by watchdog ... PG status: ...``."""
    style = "2.6"
    pg = f"[PG ID 0 PG GUID 0(default_pg) Rank {rank}]"
    work = (f"WorkNCCL(SeqNum={seq}, OpType={op}, NumelIn={numel_in}, NumelOut={numel_out}, Timeout(ms)={timeout_ms}) "
            f"ran for {ran_ms} milliseconds before timing out.")
    caught = f"[Rank {rank}] Watchdog caught collective operation timeout: {work}"
    return [
        _cpp(style, "E", ts, rank, 632, caught),
        _cpp(style, "E", ts, rank, 2268, f"{pg}  failure detected by watchdog at work sequence id: {seq} PG status: last enqueued work: {last_enq}, last completed work: {last_done}"),
        _cpp(style, "E", ts, rank, 2274, f"{pg} First PG on this rank to signal dumping."),
        "terminate called after throwing an instance of 'c10::DistBackendError'",
        f"  what():  {pg} Process group watchdog thread terminated with exception: {caught}",
    ]


def watchdog(style: str, ts: dt.datetime, rank: int, seq: int, op: str, numel_in: int, numel_out: int, timeout_ms: int,
             ran_ms: int, last_enq: int, last_done: int) -> list[str]:
    """A rank's watchdog timeout in its job's style (sizes may differ between NumelIn and NumelOut)."""
    from k10s_forensics.simulate.logs import watchdog_timeout

    if style == "2.6":
        return watchdog_26(ts, rank, seq, op, numel_in, numel_out, timeout_ms, ran_ms, last_enq, last_done)
    lines = watchdog_timeout(style, ts, rank, seq, op, numel_in, timeout_ms, ran_ms, last_enq, last_done)
    return [line.replace(f"NumelOut={numel_in}", f"NumelOut={numel_out}") for line in lines]


def desync_report(style: str, ts: dt.datetime, reporter: int, seq: int, op: str, culprits: list[int], others: list[int],
                  how: str, compact: bool) -> list[str]:
    """TORCH_NCCL_DESYNC_DEBUG report printed by ``reporter`` (multi-line, indented continuation).

    ``how``: ``not_joined`` (culprits finished #seq-1 and never joined #seq), ``not_finished``
    (they joined #seq and did not finish it), ``never_joined`` (never joined any collective).
    """
    head = _cpp(style, "E", ts, reporter, 1937, f"Rank {reporter}")
    lines = [head, f"         - [{reporter}] Timeout at collective: {op}, #{seq}"]
    if how == "never_joined":
        lines.append(f"         - To our best knowledge, ranks [{_ranks(culprits, compact)}] are the lagging ranks that caused this timeout. "
                     "They never joined any collectives")
    else:
        lines.append("         - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:")
        if how == "not_joined":
            lines.append(f"             [{_ranks(culprits, compact)}] finished collective #{seq - 1}, but didn't join collective #{seq} (count from 1)")
        else:
            lines.append(f"           - [{_ranks(culprits, compact)}] joined but didn't finish collective #{seq} (count from 1)")
    lines += ["         - Snapshot of ranks' latest states:",
              f"           #{seq} started ranks:", f"             [{_ranks(others, compact)}] started {op}"]
    if how == "not_joined":
        lines += [f"           #{seq - 1} finished ranks:", f"             [{_ranks(culprits, compact)}] finished {op}"]
    return lines


def fingerprint(seq: int, op: str, shape: list[int], dtype: str) -> str:
    return (f"CollectiveFingerPrint(SequenceNumber={seq}, OpType={op}, TensorShape=[{', '.join(str(s) for s in shape)}], "
            f"TensorDtypes={dtype}, TensorDeviceTypes={TENSOR_OPTIONS})")


def mismatch_error(style: str, reporter: int, own: str, other_rank: int, other: str, diff: str) -> list[str]:
    """The RuntimeError a TORCH_DISTRIBUTED_DEBUG=DETAIL rank raises (traceback tail, ``[rankN]:`` prefixed)."""
    msg = (f"RuntimeError: Detected mismatch between collectives on ranks. Rank {reporter} is running collective: {own}, "
           f"but Rank {other_rank} is running collective: {other}.Collectives differ in the following aspects: {diff}")
    tb = ["Traceback (most recent call last):", '  File "/workspace/train.py", line 188, in train_step',
          "    dist.all_reduce(metrics)", '  File "/usr/local/lib/python3.11/site-packages/torch/distributed/c10d_logger.py", line 81, in wrapper',
          "    return func(*args, **kwargs)"]
    return [_py(style, reporter, line) for line in tb + [msg]]
