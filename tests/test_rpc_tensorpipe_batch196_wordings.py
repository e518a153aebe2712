"""Training on ``torch.distributed.rpc`` (real incidents batch 196): the exceptions an RPC caller raises about its PEER
are a victim's, not the caller's own failure (k10s_forensics/parsers/log_patterns.py ``PY_TEARDOWN``; docs/rules.md,
"Session 36: batch 196"). TensorPipe's ``ECONNREFUSED: connection refused`` (the peer's advertised address refused
the connection: every host of pytorch/tensorpipe#201's cluster resolved its hostname to 127.0.1.1), the bare libuv
wordings torch <= 1.7 printed (``EOF: end of file``, ``ECONNRESET: connection reset by peer``), and the RPC timeout
(``RPC ran for more than set timeout (60000 ms) and will now be marked with an error``: pytorch/examples#894's master
whose ROCm workers compiled their kernels at run time) name no rank alone, as gloo's ``Connection closed by peer`` and
NCCL's watchdog do not. The batch's excerpts cut these lines; the full pastes named the caller, rank 0.

Held as collected: the batch's controls (tensorpipe-201's rank 0 block, examples-894's workers' EOF from the master,
pytorch-85607's init ``_all_gather`` reset under torchrun's lone ``failed ... local_rank: 1``, also with its
root-cause table). The misses as read (tests/corpus_not_yet_s36.py): a parameter server's peer reset alone (world 2)
names no one. Contrasts: the callee's own exception, or its SIGKILL in the agent's report, beside the caller's RPC
timeout or old-wording EOF names the callee; the caller's own exception and TensorPipe's listener errors (``ENOENT``)
stay its own. Pasted logs through ``k10s import-logs``, batched.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 2, 12, 0, tzinfo=dt.timezone.utc)


def _tag(rank: int, lines: list[str]) -> list[str]:
    """``lines`` as torch >= 2.2 prints a worker's traceback (``[rankN]:`` before each line)."""
    return [f"[rank{rank}]: {line}" for line in lines]


REFUSED_201 = corpus_lines("tensorpipe-201-")
EOF_894 = corpus_lines("examples-894-")
RESET_85607 = corpus_lines("pytorch-85607-")
MASTER_772 = corpus_lines("examples-772-")
MASTER_45338 = corpus_lines("pytorch-45338-")
REFUSED = "RuntimeError: ECONNREFUSED: connection refused"
REFUSED_UV = f"{REFUSED} (this error originated at tensorpipe/transport/uv/connection_impl.cc:133)"
RPCERR = "RuntimeError: RPCErr:1:RPC ran for more than set timeout (60000 ms) and will now be marked with an error"
CALLER = [
    "Traceback (most recent call last):",
    '  File "/workspace/train.py", line 117, in run_master',
    '    scores = [rpc.rpc_sync(f"worker{r}", _score, args=(step, r)) for r in range(1, world)]',
    '  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/rpc/api.py", line 842, in rpc_sync',
    "    return fut.wait()",
]
MASTER_TAIL = [
    '  File "main.py", line 231, in run_master',
    "    outputs = model(inputs)",
    RPCERR,
]
CALLEE_OWN = [
    "Traceback (most recent call last):",
    '  File "/workspace/train.py", line 40, in _score',
    "    x = shard[step]",
    "KeyError: 'shard-7'",
]
AGENT = "torch/distributed/elastic/multiprocessing/api.py"
CALLEE_KILLED = (
    f"E1202 11:37:56.226000 2661 {AGENT}:882] failed (exitcode: -9) local_rank: 2 (pid: 2667) of binary: "
    "/opt/venv/bin/python"
)
ROOT_CAUSE_1 = [
    "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ",
    "============================================================",
    "rpc_test.py FAILED",
    "------------------------------------------------------------",
    "Failures:",
    "  <NO_OTHER_FAILURES>",
    "------------------------------------------------------------",
    "Root Cause (first observed failure):",
    "[0]:",
    "  time      : 2022-09-26_13:02:11",
    "  host      : node1",
    "  rank      : 1 (local_rank: 1)",
    "  exitcode  : 1 (pid: 27274)",
    "  error_file: <N/A>",
    "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html",
    "============================================================",
]
COROUTINE = "ERROR:root:coroutine task failed: " + RPCERR.removeprefix("RuntimeError: ")

#: key: (the pasted lines, processes per node, world, the rank a warning/critical finding must name alone, its cause)
CASES = {
    # tensorpipe-201 with its last line (cut in the corpus excerpt): the caller's connection refused by its peer
    "econnrefused-bare-untagged": (REFUSED_201 + [REFUSED], 1, 2, None, None),
    "econnrefused-bare-rank0": (_tag(0, REFUSED_201 + [REFUSED]), 1, 2, None, None),
    "econnrefused-uv-origin-rank0": (_tag(0, CALLER + [REFUSED_UV]), 1, 2, None, None),
    # examples-894 with the master's RPC timeout (cut in the corpus excerpt), untagged and tagged
    "rpc-timeout-after-worker-eofs-untagged": (EOF_894 + MASTER_TAIL, 3, 3, None, None),
    "rpc-timeout-after-worker-eofs-rank0": (
        _tag(0, EOF_894 + MASTER_TAIL),
        3,
        3,
        None,
        None,
    ),
    "rpc-timeout-plain-rank0-world4": (
        _tag(0, CALLER + [RPCERR.replace("RPCErr:1:", "")]),
        4,
        4,
        None,
        None,
    ),
    # graphlearn-for-pytorch's sampler coroutines logging the timeout (no traceback)
    "rpc-timeout-coroutine-log-lines": (
        ["Rank00 | Epoch 000 | Loss 529.0624 | Train Acc 69.31"] + [COROUTINE] * 5,
        None,
        None,
        None,
        None,
    ),
    # torch <= 1.7's bare libuv wordings as the caller's exception
    "old-eof-rank0": (
        _tag(0, CALLER + ["RuntimeError: EOF: end of file"]),
        4,
        4,
        None,
        None,
    ),
    "old-econnreset-rank0": (
        _tag(0, CALLER + ["RuntimeError: ECONNRESET: connection reset by peer"]),
        4,
        4,
        None,
        None,
    ),
    # the batch's controls as collected, and pytorch-85607 with the agent's root-cause table for local rank 1
    "tensorpipe-201-as-collected": (REFUSED_201, 1, 2, None, None),
    "examples-894-as-collected": (EOF_894, 3, 3, None, None),
    "pytorch-85607-as-collected": (RESET_85607, None, None, None, None),
    "pytorch-85607-with-root-cause-table": (
        RESET_85607 + ROOT_CAUSE_1,
        None,
        None,
        None,
        None,
    ),
    # the misses as read: a parameter server's peer reset alone in a world of 2 names no one
    "examples-772-master-reset-as-collected": (MASTER_772, 2, 2, None, None),
    "pytorch-45338-master-gloo-reset-as-collected": (MASTER_45338, 1, 2, None, None),
    # contrasts: the callee's own error beside the caller's timeout or old EOF names the callee ...
    "rpc-timeout-beside-callee-keyerror": (
        _tag(2, CALLEE_OWN) + _tag(0, CALLER + [RPCERR]),
        4,
        4,
        2,
        "python-exception",
    ),
    "old-eof-beside-callee-sigkill": (
        _tag(0, CALLER + ["RuntimeError: EOF: end of file"]) + [CALLEE_KILLED],
        4,
        4,
        2,
        "host-oom-kill",
    ),
    # ... and the caller's own exception, or TensorPipe's listener error, stays its own
    "caller-own-keyerror": (
        _tag(0, CALLER[:3] + ["KeyError: 'step'"]),
        4,
        4,
        0,
        "python-exception",
    ),
    "tensorpipe-enoent-stays-own": (
        _tag(
            0,
            CALLER
            + [
                "RuntimeError: ENOENT: no such file or directory (this error originated at "
                "tensorpipe/transport/uv/listener_impl.cc:10)"
            ],
        ),
        4,
        4,
        0,
        "python-exception",
    ),
}
BATCHED = Batched("b196", list(CASES))


def _make(key: str, folder: Path):
    lines, nproc, world, _, _ = CASES[key]
    return pasted(lines, folder, nproc, NOW, world=world)


@pytest.mark.parametrize("key", BATCHED.params(list(CASES), name=str))
def test_rpc_peer_wordings_name_the_peer_not_the_caller(key, tmp_path_factory):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, CASES[key][3], CASES[key][4])


@pytest.mark.parametrize(
    ("line", "subkind"),
    [
        (REFUSED, "teardown"),
        (REFUSED_UV, "teardown"),
        ("RuntimeError: EOF: end of file", "teardown"),
        (
            "RuntimeError: EOF: end of file (this is expected to happen during shutdown)",
            "teardown",
        ),
        ("RuntimeError: ECONNRESET: connection reset by peer", "teardown"),
        ("RuntimeError: EPIPE: broken pipe", "teardown"),
        (RPCERR, "teardown"),
        (
            "RuntimeError: RPC ran for more than set timeout (180000 ms) and will now be marked with an error",
            "teardown",
        ),
        # a program's own messages that merely contain the words stay its own
        ("ValueError: EOF: end of file reached while parsing shard 3", "raised"),
        (
            "RuntimeError: ECONNREFUSED: connection refused at 10.0.0.2:29500 while parsing",
            "raised",
        ),
        ("KeyError: 'RPC ran for more than'", "raised"),
        ("ConnectionRefusedError: [Errno 111] Connection refused", "raised"),
    ],
)
def test_the_rpc_peer_wordings_read_as_a_teardown(line, subkind):
    from k10s_forensics.parsers.log_failures import py_exception

    ev = py_exception(line)
    assert ev is not None and ev["subkind"] == subkind, ev
