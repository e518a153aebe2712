"""Wordings and paste shapes of real incidents batch 28 (platform threads: Kubeflow, Katib, GPUStack, Perlmutter):
a ``kubectl get pods`` table whose aligned rows are all as wide as each other (parsers/log_table_rows.py), a rank that
cannot reach the rendezvous' store (parsers/log_patterns.py's PY_TEARDOWN), vLLM's worker and logger prefixes
(parsers/log_normalize.py), vLLM's pynccl ``NCCL error: <string>`` (parsers/log_comm_lines.py) and a CUDA runtime
error name in parentheses (Kokkos). Each wording variant is a case; the shapes that must stay as they are are cases too.
"""

from __future__ import annotations

import pytest

from k10s_forensics.parsers.log_comm_lines import nccl_other
from k10s_forensics.parsers.log_failures import cuda_error, py_exception
from k10s_forensics.parsers.log_normalize import normalize
from k10s_forensics.parsers.log_paste import repair_paste
from k10s_forensics.parsers.log_table_rows import column_starts, same_columns

KUBECTL = [
    "NAME                                         READY   STATUS             RESTARTS   AGE",
    "pytorchjob-example-82cjcqdz-master-0         0/2     CrashLoopBackOff   8          2m32s",
    "pytorchjob-example-82cjcqdz-worker-0         0/1     Init:1/2           0          2m31s",
    "pytorchjob-example-82cjcqdz-worker-1         0/1     Init:1/2           0          2m30s",
    "pytorchjob-example-bq7fbhnb-master-0         0/2     CrashLoopBackOff   8          2m33s",
]
WIDE = [  # kubectl get pods -o wide: more columns, rows still aligned
    "train-master-0   0/1     OOMKilled   0          12m   10.0.0.12   gpu-node-1   <none>           <none>",
    "train-worker-0   1/1     Running     0          12m   10.0.0.13   gpu-node-2   <none>           <none>",
    "train-worker-1   1/1     Running     0          12m   10.0.0.14   gpu-node-3   <none>           <none>",
]
SQUEUE = [  # another aligned table a paste holds
    "  JOBID PARTITION     NAME     USER ST       TIME  NODES NODELIST(REASON)",
    " 370626       gpu    train    alice  R      12:03      2 gpu[01-02]",
]


@pytest.mark.parametrize("table", [KUBECTL, WIDE])
def test_rows_of_an_aligned_table_as_wide_as_each_other_are_not_joined(table):
    text = "\n".join(["```", *table, "```"])
    repaired = repair_paste(text)
    assert repaired.text.split("\n") == table
    assert not [n for n in repaired.notes if "wrapping" in n]


@pytest.mark.parametrize(("prev", "nxt", "same"), [
    (KUBECTL[1], KUBECTL[2], True),
    (KUBECTL[0], KUBECTL[1], True),  # the header's columns are the rows'
    (WIDE[0], WIDE[1], True),
    (SQUEUE[0], SQUEUE[1], False),  # right-aligned columns start apart: no claim (left to the width test)
    ("[rank0]: File \"/opt/train.py\", line 12, in main", "[rank0]:     main()", False),
    ("Epoch 1  loss 0.5", "Epoch 2  loss 0.4", False),  # one shared start is no table
    ("NCCL INFO Channel 00/02 :    0   1", "x", False),
])
def test_same_columns(prev, nxt, same):
    assert same_columns(prev, nxt) is same


def test_column_starts_skip_the_indentation():
    assert column_starts("    a  b   c") == frozenset({7, 11})


def test_a_terminal_wrapped_log_is_still_joined():
    # two log lines cut at 48 columns: their tails share no columns with the rows they continue
    lines = ["2024-01-01 10:00:00 INFO training step 100 loss ", "0.123 lr 0.0001 grad_norm 1.5",
             "2024-01-01 10:00:05 INFO training step 200 loss ", "0.120 lr 0.0001 grad_norm 1.4"]
    repaired = repair_paste("\n".join(lines))
    assert repaired.text.split("\n") == [lines[0] + lines[1], lines[2] + lines[3]]


@pytest.mark.parametrize("line", [
    "ValueError: host not found: Name or service not known",  # c10d's TCPStore, torch <= 1.8 (kubeflow/pytorch-operator#125)
    "RuntimeError: Connection refused",  # c10d's TCPStore client, torch 1.9-1.13
])
def test_a_rank_that_cannot_reach_the_store_raises_a_teardown(line):
    ev = py_exception(line)
    assert ev["subkind"] == "teardown"


@pytest.mark.parametrize("line", [
    "ConnectionRefusedError: [Errno 111] Connection refused",  # the program's own socket (a server it calls)
    "ValueError: invalid literal for int() with base 10: 'x'",
    "RuntimeError: Connection refused by the tokenizer server at 10.0.0.1",
])
def test_other_exceptions_stay_the_ranks_own(line):
    assert py_exception(line)["subkind"] == "raised"


@pytest.mark.parametrize(("line", "rank", "text"), [
    ("(VllmWorker rank=2 pid=4664) ERROR 08-05 14:13:44 [multiproc_executor.py:487] RuntimeError: NCCL error: x", 2,
     "RuntimeError: NCCL error: x"),
    ("(VllmWorker TP2 pid=407) INFO 08-25 12:24:19 [multiproc_executor.py:520] Parent process exited", 2, "Parent process exited"),
    ("(Worker_TP1_EP1 pid=33) ERROR 10-01 01:02:03 [core.py:91] boom", 1, "boom"),
    ("(VllmWorker rank=6 pid=xxxxxx) ERROR 07-23 19:34:51 [multiproc_executor.py:487] boom", 6, "boom"),  # a masked pid
    ("(VllmWorker TP3 pid=<PID>) ERROR 07-23 19:34:51 [multiproc_executor.py:487] boom", 3, "boom"),
    ("(Worker_PP1_TP0 pid=33) ERROR 10-01 01:02:03 [core.py:91] boom", None, "boom"),  # a later pipeline stage: TP0 is no global rank
    # vLLM V0's worker: a pid, no rank; its older logger layout (no bracket) is left as it is
    ("(VllmWorkerProcess pid=1699362) ERROR 02-19 19:18:42 multiproc_worker_utils.py:242] RuntimeError: NCCL error: y", None,
     "ERROR 02-19 19:18:42 multiproc_worker_utils.py:242] RuntimeError: NCCL error: y"),
    ("ERROR 08-05 14:13:46 [core.py:586] EngineCore failed to start.", None, "EngineCore failed to start."),
])
def test_vllm_worker_and_logger_prefixes(line, rank, text):
    n = normalize(line)
    assert (n.rank, n.text) == (rank, text)


@pytest.mark.parametrize(("line", "name"), [
    ("RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for details)", "ncclSystemError"),
    ("RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)", "ncclUnhandledCudaError"),
    ("RuntimeError: NCCL error: invalid usage (run with NCCL_DEBUG=WARN for details)", "ncclInvalidUsage"),
    ("NCCL error in: ../ProcessGroupNCCL.cpp:1275, unhandled cuda error, NCCL version 2.14.3", "ncclUnhandledCudaError"),
])
def test_nccl_error_strings(line, name):
    assert nccl_other(line) == {"kind": "nccl_error_other", "subkind": name}


def test_the_raise_line_of_pynccl_names_no_nccl_error():
    # the traceback's source line: the generic NCCL line, no error string read from the f-string
    assert nccl_other('    raise RuntimeError(f"NCCL error: {error_str}")')["subkind"] == "nccl_error"


@pytest.mark.parametrize(("line", "message"), [
    ("cudaSetDevice(cuda_device_id) error( cudaErrorDevicesUnavailable): CUDA-capable device(s) is/are busy or unavailable "
     "/x/Kokkos_Cuda_Instance.cpp:544", "CUDA-capable device(s) is/are busy or unavailable /x/Kokkos_Cuda_Instance.cpp:544"),
    ("failed to synchronize: cudaErrorECCUncorrectable: uncorrectable ECC error encountered", "uncorrectable ECC error encountered"),
])
def test_cuda_runtime_error_names(line, message):
    ev = cuda_error(line)
    assert (ev["kind"], ev["error_message"]) == ("cuda_error", message)


# A rank's traceback cut before its exception, in the same second as another rank's failure (vllm-project/vllm#17756's
# shape: worker rank 6's ncclCommInitRank error, worker rank 3's `WorkerProc failed to start.` + a cut traceback):
# its way is unknown, so the two failed together and no rank is named (queries/_incident.sql, `together`).
NCCL_FAIL = ("[rank6]:[2025-07-23 19:34:51] Traceback (most recent call last):\n"
             "[rank6]:[2025-07-23 19:34:51]   File \"/w/pynccl.py\", line 99, in __init__\n"
             "[rank6]:[2025-07-23 19:34:51] RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)\n")
CUT = "[rank3]:[2025-07-23 19:34:{s}] WorkerProc failed to start.\n[rank3]:[2025-07-23 19:34:{s}] Traceback (most recent call last):\n"


@pytest.mark.parametrize(("text", "named"), [
    pytest.param(NCCL_FAIL + CUT.format(s="51"), [], id="same-second"),  # together
    pytest.param(NCCL_FAIL + CUT.format(s="58"), [("rank-failure", "nccl-error", [6])], id="seven-seconds-later"),  # rank 6 first
])
def test_a_cut_traceback_in_the_same_second_fails_together(tmp_path, text, named):
    from incident_kit import CAPTURED, named_in_paste

    assert named_in_paste(tmp_path, text, 8, 8, CAPTURED) == named
