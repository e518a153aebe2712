"""Session 19's general fixes (docs/rules.md, "Session 19: general fixes"), each wording a case.

* One process's argparse usage error while another process of the job was inside a torch.distributed call (its
  exception's traceback runs through ``distributed_c10d.py``: ``init_process_group``, ``barrier``): that process had
  parsed the same command line, so the usage error was not every process's (no common mode); the rank the launcher
  reports exiting 2 is named, ``exit-2`` (argparse's ``sys.exit(2)``). Without such a process, common mode stays.
* NCCL's ``unhandled system error`` naming no process, under one process's trace of the same error's returns
  (``host:pid:tid [dev] NCCL INFO proxy.cc:684 -> 2``), is that process's; its rank is its device's where the same
  host's comm lines pair every rank with its CUDA device by one offset.

The inputs that must be analysed are read in one analysis (``_findings``: their bundles merged, tests/bundle_batch.py).
"""

from __future__ import annotations

import pytest

from bundle_batch import findings_of, merge
from k10s_forensics.logimport import LogSource, import_logs
from paste_damage import redact
from torch_runs_kit import CAPTURED, load_runs, named, plain

_AGENT = "torch/distributed/elastic/multiprocessing/api.py"
_USAGE = ("usage: train.py [-h] [--lr LR] [--batch-size BATCH_SIZE]\n"
          "train.py: error: argument --lr: invalid float value: '3e-4,'\n")
_NODE0 = (_USAGE + f"W1130 04:06:22.533000 4585 {_AGENT}:1028] Sending process 4618 closing signal SIGTERM\n"
          f"E1130 04:06:22.598000 4585 {_AGENT}:1002] failed (exitcode: 2) local_rank: 1 (pid: 4620) of binary: /opt/venv/bin/python3\n")
_C10D = "/opt/venv/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py"


def _waiter(rank: int, call: str, error: str) -> str:
    """Rank ``rank``'s traceback through torch.distributed's ``call``, ending in ``error``."""
    lines = ["Traceback (most recent call last):", '  File "/w/train.py", line 40, in <module>', f"    dist.{call}()",
             f'  File "{_C10D}", line 4159, in {call}', "    work = default_pg.barrier(opts=opts)", error]
    return "".join(f"[rank{rank}]: {ln}\n" for ln in lines)


#: node 1's agent failing to shut the rendezvous down once node 0's store is gone: the agent's own chain, no worker's
_AGENT_CHAIN = ("Traceback (most recent call last):\n"
                '  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py", '
                "line 114, in _call_store\n"
                "    return getattr(self._store, store_op)(*args, **kwargs)\n"
                "torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely closed. Did the remote "
                "server shutdown or crash?\n\nThe above exception was the direct cause of the following exception:\n\n"
                "Traceback (most recent call last):\n"
                '  File "/opt/venv/bin/torchrun", line 8, in <module>\n    sys.exit(main())\n'
                "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has "
                "failed. See inner exception for details.\n")
_RESET = "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [10.1.0.6]:3671"

_COMM = "PHLRR4036:{pid}:{tid} [{dev}] NCCL INFO comm 0x5562191160f0 rank {rank} nranks 16 cudaDev {dev} busId 13000 - Init COMPLETE"


def _nccl(comm: list[tuple[int, int, int]], failing: list[tuple[int, int]]) -> str:
    """Comm lines (pid, dev, rank), then each failing (pid, dev)'s IB error and its returns, then the untagged exception."""
    lines = [_COMM.format(pid=p, tid=p + 100, dev=d, rank=r) for p, d, r in comm]
    for p, d in failing:
        lines += [f"PHLRR4036:{p}:{p + 150} [{d}] ib_plugin.c:978 NCCL WARN NET/IB : Got completion from peer 10.226.98.98<48598> "
                  "with error 12, opcode 0, len 0, vendor err 129",
                  f"PHLRR4036:{p}:{p + 150} [{d}] NCCL INFO transport/net.cc:1034 -> 2",
                  f"PHLRR4036:{p}:{p + 150} [{d}] NCCL INFO proxy.cc:684 -> 2 [Proxy Thread]"]
    lines += ["[E ProcessGroupNCCL.cpp:456] Some NCCL operations have failed or timed out. Due to the asynchronous nature of "
              "CUDA kernels, subsequent GPU operations might run on corrupted/incomplete data.",
              "terminate called after throwing an instance of 'std::runtime_error'",
              "  what():  NCCL error: unhandled system error, NCCL version 2.14.3"]
    return "\n".join(lines) + "\n"


_ALIGNED = [(24142, 3, 3), (24148, 6, 6), (24139, 0, 0)]


def _argparse_run() -> list[str]:
    run = next(r for r in load_runs() if r.id == "2.14.1/t16-trun-argparse-exit2-rank1")
    return [plain(t) for t in run.stamped()]


def _inputs() -> list[tuple[list[str], int]]:
    """(node logs, world size) of each case, in the order the tests read them."""
    run = _argparse_run()
    return [(run, 4), (run[:1], 4),  # the recorded run; its node 0 alone (no process shown past parsing)
            ([_NODE0, _waiter(2, "barrier", _RESET)], 4),  # a peer torn down inside a collective
            ([_NODE0, _waiter(3, "init_process_group", "torch.distributed.DistNetworkError: Connection reset by peer")], 4),
            ([_NODE0, _AGENT_CHAIN], 4),  # only node 1's agent: no worker shown past parsing
            ([_NODE0.replace("error: argument --lr", "error: unrecognized arguments: --local-rank=1"), ""], 4),
            ([_nccl(_ALIGNED, [(24141, 2)])], 16),  # deepspeed-2931's shape
            ([_nccl([(5002, 2, 10), (5004, 4, 12)], [(5001, 1)])], 16),  # a node 1: rank = device + 8
            ([_nccl([(24142, 3, 3), (24148, 6, 7)], [(24141, 2)])], 16),  # ranks not numbered by device
            ([_nccl(_ALIGNED, [(24141, 2), (24143, 4)])], 16),  # two processes' returns
            ([_nccl(_ALIGNED[:1], [(24141, 2)])], 16),  # one comm line: no pairing proven
            ([redact(_nccl(_ALIGNED, [(24141, 2)]))], 16)]  # host and pids masked (`xxxxxxxx:xxxxxx:xxxxxx [2]`)


@pytest.fixture(scope="module")
def _findings(tmp_path_factory) -> list[list[dict]]:
    tmp = tmp_path_factory.mktemp("general19")
    bundles = [import_logs([LogSource(f"node{n}.log", t) for n, t in enumerate(texts) if t], tmp / str(i), job="train",
                           namespace="team-a", now=CAPTURED, world_size=world, derive=False)[0]
               for i, (texts, world) in enumerate(_inputs())]
    from k10s_forensics.analyze.runner import analyze

    found = analyze(merge(bundles, tmp / "merged"))["findings"]
    return [findings_of(found, i) for i in range(len(bundles))]


def test_one_usage_error_beside_a_process_inside_torch_distributed_names_its_rank(_findings):
    """The recorded run (node 1's ranks torn down inside init_process_group), and a peer's traceback through barrier or
    init_process_group: the launcher's exit 2 of local rank 1 is named, exit-2."""
    for i in (0, 2, 3):
        assert named(_findings[i]) == [("exit-2", [1])], i


def test_a_usage_error_with_no_process_shown_past_parsing_stays_common_mode(_findings):
    """Node 0 alone, node 1's agent's own rendezvous chain (no worker's), or no other line: nothing shows another process
    parsed its arguments: every process shares its command line, no rank is named."""
    for i in (1, 4, 5):
        assert named(_findings[i]) == [], i
        assert any("same command line" in f["title"] + str(f["evidence"]) for f in _findings[i] if f["rule"] == "rank-failure"), i


def test_an_untagged_nccl_error_under_one_process_returns_is_that_rank(_findings):
    """deepspeed-2931's shape: pid 24141's `[2]` returns above `what(): NCCL error: unhandled system error`, the host's comm
    lines rank = device: rank 2 (its host and pids masked too); on a second node (rank = device + 8) rank 9."""
    assert named(_findings[6]) == named(_findings[11]) == [("nccl-error", [2])]
    assert named(_findings[7]) == [("nccl-error", [9])]


def test_an_untagged_nccl_error_names_no_rank_where_the_process_is_unproven(_findings):
    """Ranks not numbered by their device (rank 7 on device 6), two processes' returns above the error, one comm line
    only: no rank is named."""
    for i in (8, 9, 10):
        assert named(_findings[i]) == [], i
