"""Session 19's general fixes, second round (docs/rules.md, "Session 19: general fixes, second round"), each wording a case.

* A communication library's report of its own CUDA call that failed (UCX's ``cuCtxGetDevice(&cu_device) is failed.
  ret:invalid device context``, later releases' ``… failed: <reason>`` / ``failed with <N>``, UCC's) is the printing
  rank's ``cuda-error``, but weak (tier 2): a fatal signal of the same rank after it stays the cause, any rank's own
  failure outranks it, and it names its rank where nothing else does; every rank printing it alike names no one.
* Ranks that failed alike within a second, a strict part of the job, while every other rank was torn down inside a
  collective (gloo's ``Connection closed by peer``): those ranks are the culprits. Every rank alike, or the others only
  SIGTERMed by their agents (no line of theirs from inside a collective), still names no one.
* Horovod's stall header alone (its ``[missing ranks: …]`` list cut) names no one, in a world of two too: only the
  coordinator, rank 0, prints it, whether it submitted or not (horovod-534: ``[missing ranks: 0]``).

The inputs that must be analysed are read in one analysis (``_findings``: their bundles merged, tests/bundle_batch.py).
"""

from __future__ import annotations

import pytest

from bundle_batch import findings_of, merge
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_classify import classify
from torch_runs_kit import CAPTURED, named

_UCX_OLD = "[1576565271.426514] [gpu01:4537{r}:0] cuda_ipc_md.c:62 UCX  ERROR cuCtxGetDevice(&cu_device) is failed. ret:invalid device context"
_UCX_NEW = "[1700000000.120000] [gpu01:4537{r}:0]    cuda_copy_md.c:312  UCX  ERROR cuMemGetAddressRange(&base, &size, addr) failed: invalid argument"


@pytest.mark.parametrize("line, call, reason", [
    ("0: " + _UCX_OLD.format(r=0), "cuCtxGetDevice", "invalid device context"),  # srun -l, UCX 1.x
    ("[1556919196.384583] [dgx15:37091:0]    cuda_ipc_md.c:62   UCX  ERROR cuCtxGetDevice(&cu_device) is failed. ret:invalid device context",
     "cuCtxGetDevice", "invalid device context"),
    (_UCX_NEW.format(r=1), "cuMemGetAddressRange", "invalid argument"),
    ("cuda_ctx.c:23   UCX  ERROR cuDevicePrimaryCtxGetState(cuda_device, &flags, &active) failed: unrecognized error code 4",
     "cuDevicePrimaryCtxGetState", "unrecognized error code 4"),
    ("[rank3]: cuda_copy_ep.c:100 UCX  ERROR cudaMemcpyAsync(dst, src, len, kind, stream) failed with 700", "cudaMemcpyAsync", "700"),
    ("mc_cuda.c:369  UCC  ERROR cuCtxGetId(cu_ctx, &cu_ctx_id)() failed: 201(invalid device context)", "cuCtxGetId",
     "201(invalid device context)"),
])
def test_a_transport_library_failed_cuda_call_is_a_weak_cuda_error(line, call, reason):
    (ev,) = classify(line)
    assert (ev["kind"], ev["subkind"], ev["error_message"]) == ("cuda_error", "transport_call", f"{call} failed: {reason}")


@pytest.mark.parametrize("line", [
    "[1579244748.838989] [cgpu12:56309:2]       ucp_rkey.c:250  UCX  ERROR Failed to unpack remote key from remote md[4]: Input/output error",
    "[1746051351.812265] [gcp5-sdc-3:1950659:0]  sock.c:334  UCX  ERROR   connect(fd=168, dest_addr=169.254.4.6:52595) failed: Connection refused",
    "cuda_copy_md.c:200  UCX  ERROR cuMemAlloc(&ptr, size) failed: out of memory",  # an allocation: no CUDA error read
    "cuda_ipc_md.c:62   UCX  WARN  cuCtxGetDevice(&cu_device) is failed. ret:invalid device context",  # a warning
])
def test_other_transport_lines_are_no_cuda_error(line):
    assert not [e for e in classify(line) if e["kind"] == "cuda_error"]


_HOROVOD = ("[1,0]<stderr>:[2019-03-18 10:45:55.141569: W horovod/common/operations.cc:621] One or more tensors were submitted to "
            "be reduced, gathered or broadcasted by subset of ranks and are waiting for remainder of ranks for more than 60 seconds.")


def test_a_horovod_stall_header_alone_names_no_rank():
    """The coordinator (rank 0) prints it whether it submitted or not: no waiter, no missing rank, no failure."""
    assert [e for e in classify(_HOROVOD) if e.get("rank") is not None or e["kind"] not in ("info",)] == []


def _srun(lines: list[str], ends: list[str]) -> str:
    """An `srun -n 4 -l` paste: every task initialised, then ``lines`` and srun's ``ends``."""
    head = [f"{r}: Initialized rank {r} local-rank {r} size 4" for r in range(4)]
    return "\n".join(head + lines + ends) + "\n"


def _ucx(r: int, line: str = _UCX_OLD) -> str:
    return f"{r}: " + line.format(r=r)


_SEGV = ["0: [gpu01:45370:0:45400] Caught signal 11 (Segmentation fault: address not mapped to object at address 0x20)",
         "srun: error: gpu01: task 0: Segmentation fault", "srun: Terminating job step 405737.0",
         "srun: error: gpu01: tasks 1-3: Terminated"]
_ABRT = ["srun: error: gpu01: task 0: Aborted", "srun: Terminating job step 405737.0", "srun: error: gpu01: tasks 1-3: Terminated"]
_RAISE = ["2: Traceback (most recent call last):", '2:   File "/w/train.py", line 40, in <module>', "2: ValueError: batch 7 is empty",
          "srun: error: gpu01: task 2: Exited with exit code 1", "srun: Terminating job step 405737.0",
          "srun: error: gpu01: tasks 0-1,3: Terminated"]

_AGENT = "torch/distributed/elastic/multiprocessing/api.py"
_C10D = "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py"


def _torchrun_node(n: int, ways: dict[int, str]) -> str:
    """Node ``n`` of a 3 x 2 torchrun job (ranks 2n, 2n + 1; stamped lines): ``ways[rank]`` is ``key`` (KeyError at
    12:00:00.5), ``gloo`` (torn down inside all_gather at 12:00:03), or ``quiet`` (no line: its agent SIGTERMs it)."""
    lines: list[tuple[float, str]] = []
    for lr in (0, 1):
        r = 2 * n + lr
        way = ways.get(r, "quiet")
        tb = {"key": ['  File "/w/train.py", line 73, in _inject', '    batch["labels"]', "KeyError: 'labels'"],
              "gloo": [f'  File "{_C10D}", line 5170, in all_gather_single', "    work.wait()",
                       "RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:561] Connection closed by peer "
                       f"[10.0.0.{n + 1}]:2141{r}"]}.get(way)
        if tb:
            t = 0.5 + 0.004 * r if way == "key" else 3.0 + 0.01 * r
            lines += [(t, f"[rank{r}]: {ln}") for ln in ["Traceback (most recent call last):", *tb]]
    failed = [lr for lr in (0, 1) if ways.get(2 * n + lr) in ("key", "gloo")]
    first = min(failed, key=lambda lr: (ways[2 * n + lr] != "key", lr)) if failed else None  # none: the agent stops both
    for lr in (0, 1):
        if lr != first:
            lines.append((3.4, f"W1130 12:00:03.400000 900 {_AGENT}:1028] Sending process {100 + 2 * n + lr} closing signal SIGTERM"))
    if first is not None:
        lines.append((3.6, f"E1130 12:00:03.600000 900 {_AGENT}:1002] failed (exitcode: 1) local_rank: {first} "
                           f"(pid: {100 + 2 * n + first}) of binary: /opt/venv/bin/python3"))
    return "".join(f"2026-11-28T12:00:{t:09.6f}Z {ln}\n" for t, ln in sorted(lines, key=lambda x: x[0]))


def _torchrun(ways: dict[int, str]) -> list[str]:
    return [_torchrun_node(n, ways) for n in range(3)]


_TWO = {1: "key", 4: "key", 0: "gloo", 2: "gloo", 3: "gloo", 5: "gloo"}


def _inputs() -> list[tuple[list[str], int, int]]:
    """(node logs, world size, processes per node) of each case, in the order the tests read them."""
    return [([_srun([_ucx(0)], [])], 4, 4),  # 0: rank 0's UCX line alone
            ([_srun([_ucx(0), _ucx(0, _UCX_NEW)], _SEGV)], 4, 4),  # 1: then its segfault
            ([_srun([_ucx(0, _UCX_NEW)], _ABRT)], 4, 4),  # 2: then its abort
            ([_srun([_ucx(0)], _RAISE)], 4, 4),  # 3: rank 2 raises after rank 0's UCX line
            ([_srun([_ucx(r) for r in range(4)], [])], 4, 4),  # 4: every rank alike
            (_torchrun(_TWO), 6, 2),  # 5: ranks 1 and 4 alike, the others torn down inside all_gather
            (_torchrun(dict.fromkeys(range(6), "key")), 6, 2),  # 6: every rank alike (common mode)
            (_torchrun({1: "key", 4: "key"}), 6, 2),  # 7: the others only SIGTERMed
            (_torchrun({**_TWO, 3: "quiet"}), 6, 2)]  # 8: one other rank without a line from inside the collective


@pytest.fixture(scope="module")
def _findings(tmp_path_factory) -> list[list[dict]]:
    tmp = tmp_path_factory.mktemp("general19b")
    bundles = [import_logs([LogSource(f"node{n}.log", t) for n, t in enumerate(texts)], tmp / str(i), job="train", namespace="team-a",
                           now=CAPTURED, world_size=world, nproc_per_node=nproc, derive=False)[0]
               for i, (texts, world, nproc) in enumerate(_inputs())]
    from k10s_forensics.analyze.runner import analyze

    found = analyze(merge(bundles, tmp / "merged"))["findings"]
    return [findings_of(found, i) for i in range(len(bundles))]


def test_a_transport_cuda_error_names_its_rank_where_nothing_else_does(_findings):
    (f,) = [f for f in _findings[0] if f["ranks"]]
    assert (f["rule"], f["cause"], f["ranks"], f["severity"]) == ("rank-failure", "cuda-error", [0], "warning")


def test_a_later_fatal_signal_of_the_same_rank_stays_its_cause(_findings):
    assert named(_findings[1]) == [("segfault", [0])]
    assert named(_findings[2]) == [("abort", [0])]


def test_another_rank_s_own_failure_outranks_a_transport_cuda_error(_findings):
    assert named(_findings[3]) == [("python-exception", [2])]


def test_every_rank_s_transport_cuda_error_names_no_one(_findings):
    assert named(_findings[4]) == []


def test_ranks_alike_while_every_other_rank_waited_in_a_collective_are_the_culprits(_findings):
    assert named(_findings[5]) == [("python-exception", [1, 4])]


def test_ranks_alike_without_every_other_rank_seen_inside_a_collective_name_no_one(_findings):
    """Every rank alike (common mode), the others only SIGTERMed, or one of them without a line: no one is named."""
    for i in (6, 7, 8):
        assert named(_findings[i]) == [], i
