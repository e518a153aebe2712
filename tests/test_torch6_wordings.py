"""What the sixth set of real launcher recordings (tests/data/torch-runs ``t6-*``: one process per
pod without a launcher, Open MPI's mpirun, torchrun's newer options) taught the rules, each with
its wording variants and the cases where nothing may be named:

* faulthandler's ``Fatal Python error: <signal>`` is the process's own report of the signal that
  ends it (parsers/log_failures.py ``fatal_signal``);
* one process per pod, no launcher: every other rank saw its peer's connection close while one
  rank's pod log ends without an error: that rank ended without a word (``lost_peer``);
* every rank but one timed out waiting in gloo and that one only saw its peers' connections close,
  after they had given up: it was late, the one they waited for (``late_peer``).
"""

from __future__ import annotations

import re

import pytest

from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_classify import classify
from torch_runs_kit import CAPTURED, RUNS, findings_of_texts, named, plain

V = RUNS / "2.13.0"


_findings, _named = findings_of_texts, named  # node logs through import-logs; (cause, ranks) named


def _logs(run: str, stamped: bool = False) -> list[str]:
    folder = V / run
    texts = [p.read_text(encoding="utf-8") for p in sorted(folder.glob("node*.log"))]
    return texts if stamped else [plain(t) for t in texts]


# ---- faulthandler -------------------------------------------------------------------------------
SIGNALS = [("Segmentation fault", -11), ("Bus error", -7), ("Aborted", -6), ("Floating point exception", -8),
           ("Illegal instruction", -4)]
PREFIXES = ["", "[default1]:", "[1,2]<stderr>:", "Sat Nov 28 23:28:11 2026[1,2]<stderr>:", "2026-11-28T23:28:56.191318Z "]


@pytest.mark.parametrize("prefix", PREFIXES)
@pytest.mark.parametrize("name,code", SIGNALS)
def test_faulthandler_names_the_signal(name, code, prefix):
    [ev] = classify(f"{prefix}Fatal Python error: {name}")
    assert (ev["kind"], ev["subkind"], ev["exit_code"]) == ("process_exit", "faulthandler", code)


@pytest.mark.parametrize("line", ["Fatal Python error: Cannot recover from stack overflow.",
                                  "Fatal Python error: _PyMem_DebugMalloc: Python memory allocator called without holding the GIL",
                                  "Fatal Python error: Segmentation fault in the docs, not a log", "faulthandler: Segmentation fault"])
def test_other_fatal_errors_are_no_signal(line):
    assert not [e for e in classify(line) if e["subkind"] == "faulthandler"]


@pytest.mark.parametrize("name,cause", [("Segmentation fault", "segfault"), ("Bus error", "sigbus"),
                                        ("Floating point exception", "sigfpe"), ("Illegal instruction", "sigill")])
def test_a_pod_of_one_process_that_died_of_a_signal_is_named(tmp_path, name, cause):
    """t6-perpod-3-segfault-faulthandler-rank0: rank 0 (its own pod, no launcher) leaves only
    faulthandler's report; its peers see the connection close."""
    texts = [t.replace("Fatal Python error: Segmentation fault", f"Fatal Python error: {name}")
             for t in _logs("t6-perpod-3-segfault-faulthandler-rank0")]
    assert (cause, [0]) in _named(_findings(tmp_path, texts))


# ---- one process per pod: the rank that ended without a word ------------------------------------
CLOSED = re.compile(r"Connection closed by peer")


@pytest.mark.parametrize("wording", ["Connection closed by peer", "Connection reset by peer"])
def test_the_pod_whose_process_ended_without_a_word_is_named(tmp_path, wording):
    """t6-perpod-4-sigkill-rank1: rank 1 SIGKILLed; no launcher reports it; its pod log ends after
    'initialised' while ranks 0, 2 and 3 raise that their peer's connection closed."""
    texts = [CLOSED.sub(wording, t) for t in _logs("t6-perpod-4-sigkill-rank1")]
    assert _named(_findings(tmp_path, texts)) == [("never-joined", [1])]


def test_two_pods_without_an_error_name_no_one(tmp_path):
    """Ranks 1 and 2 both end without a word (rank 2's traceback cut from the paste): no one is named."""
    texts = _logs("t6-perpod-4-sigkill-rank1")
    texts[2] = "\n".join(t for t in texts[2].split("\n") if "Traceback" not in t and not t.startswith("[rank2]")) + "\n"
    assert _named(_findings(tmp_path, texts)) == []


def test_a_silent_rank_beside_a_launcher_needs_the_launcher_report(tmp_path):
    """A job whose lines come from a launcher (torchrun's agent SIGTERMed a worker) is not one process
    per pod: the rule for launchers holds (the silent rank's node launcher must have reported)."""
    texts = _logs("t6-perpod-4-sigkill-rank1")
    texts[0] += "W1128 23:30:20.757000 30213 torch/distributed/elastic/multiprocessing/api.py:1028] Sending process 30329 closing signal SIGTERM\n"
    assert ("never-joined", [1]) not in _named(_findings(tmp_path, texts))


# ---- gloo: the rank that came late ---------------------------------------------------------------
WAIT = re.compile(r"\[/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/unbound_buffer\.cc:\d+\] Timed out waiting 6000ms for \w+ operation to complete")
WAITS = ["[../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 1800000ms for recv operation to complete",
         "[gloo/transport/tcp/unbound_buffer.cc:81] Timed out waiting 600000 ms for send operation to complete",
         "[../third_party/gloo/gloo/transport/tcp/pair.cc:598] Read timeout [10.1.0.6]:45321",
         "Application timeout caused pair closure"]


@pytest.mark.parametrize("wait,closed", list(zip(WAITS, ["Connection closed by peer", "Connection reset by peer"] * 2)))
def test_the_rank_that_did_not_wait_is_named(tmp_path, wait, closed):
    """t6-perpod-4-stall-rank3: ranks 0-2 time out waiting; rank 3, stalled, later finds its peers gone."""
    texts = [CLOSED.sub(closed, WAIT.sub(lambda _m: wait, t)) for t in _logs("t6-perpod-4-stall-rank3")]
    assert _named(_findings(tmp_path, texts)) == [("never-joined", [3])]


def test_with_the_clock_the_late_rank_is_named(tmp_path):
    assert _named(_findings(tmp_path, _logs("t6-perpod-4-stall-rank3", stamped=True))) == [("never-joined", [3])]


def test_a_closed_connection_as_early_as_the_timeouts_is_a_waiter(tmp_path):
    """Rank 3's closed connection stamped before the others' last timeout: it was waiting too (its peer
    exited first): no one is named."""
    texts = _logs("t6-perpod-4-stall-rank3", stamped=True)
    t0 = re.search(r"^(\S+) \[rank0\]: Traceback", texts[0], re.M).group(1)
    texts[3] = re.sub(r"^\S+ ", t0 + " ", texts[3], flags=re.M)
    assert _named(_findings(tmp_path, texts)) == []


def test_two_ranks_that_did_not_wait_name_no_one(tmp_path):
    """Ranks 2 and 3 both saw a closed connection (only two waited): no one is named."""
    texts = _logs("t6-perpod-4-stall-rank3")
    texts[2] = WAIT.sub("[gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:1234", texts[2])
    assert _named(_findings(tmp_path, texts)) == []


# ---- pod log files named after their pods ---------------------------------------------------------
def test_pod_named_files_are_nodes_in_the_operators_order(tmp_path):
    """t6-perpod-3-segfault-faulthandler-rank0 saved as ``kubectl logs <pod> > <pod>.log`` and given in
    another order: master-0 is node 0 (rank 0) wherever it is listed."""
    texts = _logs("t6-perpod-3-segfault-faulthandler-rank0")
    sources = [LogSource("train-worker-1.log", texts[2]), LogSource("train-master-0.log", texts[0]),
               LogSource("train-worker-0.log", texts[1])]
    bundle, layout = import_logs(sources, tmp_path / "b", namespace="team-a", now=CAPTURED)
    assert layout.job == "train" and "3 pods: train-master-0, train-worker-0, train-worker-1" in layout.hints["nodes"]
    assert ("segfault", [0]) in _named(analyze(bundle)["findings"])


@pytest.mark.parametrize("names,want", [
    (["j-worker-10.log", "j-worker-2.log", "j-master-0.log", "j-worker-0.log"], {0: "j-master-0.log", 1: "j-worker-0.log", 3: "j-worker-2.log", 11: "j-worker-10.log"}),
    (["j-worker-1.txt", "j-worker-0.log.gz"], {0: "j-worker-0.log.gz", 1: "j-worker-1.txt"}),
    (["j-chief-0.out", "j-worker-0.out"], {0: "j-chief-0.out", 1: "j-worker-0.out"}),
])
def test_pod_named_files_are_placed_by_their_names(names, want):
    from k10s_forensics.parsers.log_pod_prefix import split_files

    logs, job, how = split_files([(n, n) for n in names], "imported")
    assert job == "j" and {i: name for i, (name, text) in enumerate(logs) if text} == want
    assert all(text == "" for i, (_, text) in enumerate(logs) if i not in want)


@pytest.mark.parametrize("names", [["node0.log", "node1.log"], ["j-worker-0.log", "notes.txt"], ["j-worker-0.log", "j-worker-0.txt"],
                                   ["j-launcher.log", "j-worker-0.log"], ["a-worker-0.log"]])
def test_other_file_names_keep_the_order_given(names):
    from k10s_forensics.parsers.log_pod_prefix import split_files

    assert split_files([(n, n) for n in names], "imported") is None
