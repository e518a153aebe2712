"""A node whose log went silent (docs/rules.md, "Session 71: a node whose log went silent"): one rank known only by its
launcher's report of an exit status, while another node's log given beside it holds no failure report of its own
(empty, or cut mid-run with progress lines only), names no rank: that node was likely lost whole (its agent and
workers SIGKILLed: a node crash, a reclaim, an OOM kill of the agent) and the reported exit is its peers' loss's
consequence. Recorded controls both ways; synthetic consoles (marked: torchrun's own lines, as 2.13.0 prints them) for
node 0 or node 1 lost, 2 x 2, 2 x 3 and 3 x 2, with and without ``--redirects``; contrasts that must still be named."""

from __future__ import annotations

import json

import pytest

from k10s_forensics.analyze.runner import analyze
from incident_kit import naming_findings
from torch_runs_kit import _captured, _clock, _job_rows, findings_both_ways, findings_of_texts, load_runs, named

#: node-lost CONTROLS whose survivor's table gives one victim's exit 1 'first observed' (its own error in --log-dir
#: files only) and whose lost node's console is empty: no rank may be named
CONTROLS = ["2.13.0/t42-trun-2x3-node1-killed-redirects3",
            "2.13.0/t72-static-2x3-node0-killed-by-rank0-init-w2-exception-lightning-redirects",
            "2.14.1/t72-static-2x3-node0-killed-by-rank0-init-w2-exception-lightning-redirects",
            "2.13.0/t73-trun-2x3-node1-killed-by-rank3-init-w0-exception-norank-redirects",
            "2.14.1/t73-trun-2x3-node1-killed-by-rank3-init-w0-exception-norank-redirects"]
#: the same lone row where the other node's console holds its agent's own failure report (store errors, its SIGTERMs):
#: the culprit named as before
NAMED = {"2.13.0/t52-trun-2x2-half-ckpt-rank1-redirects": [1],
         "2.14.1/t48-trun-2x2-torch-save-nodir-rank0-redirects": [0],
         "2.13.0/t62-trun-2x3-loader-sigbus-rank2-step4-eval-w2-exception-rank0only-redirects": [2]}
_RUNS = [r for r in load_runs() if r.id in CONTROLS or r.id in NAMED]


@pytest.fixture(scope="module")
def recorded(tmp_path_factory) -> dict[str, dict[str, list]]:
    return findings_both_ways(_RUNS, tmp_path_factory.mktemp("silent"))


@pytest.mark.parametrize("way", ["import", "podlog"])
@pytest.mark.parametrize("rid", CONTROLS)
def test_a_node_lost_whole_names_no_rank(recorded, way, rid):
    findings = recorded[way][rid]
    assert not naming_findings(findings), [(f["rule"], f["severity"], f["ranks"]) for f in findings]
    [f] = [f for f in findings if f["rule"] == "rank-failure"]
    assert f["ranks"] == [] and "no failure report of its own" in f["summary"] and "no single culprit" in f["summary"]
    silent = "master-0" if "node0-killed" in rid else "worker-0"
    assert f"train-{silent}" in f["summary"] or f"-{silent} " in f["summary"], f["summary"]


@pytest.mark.parametrize("way", ["import", "podlog"])
@pytest.mark.parametrize("rid", sorted(NAMED))
def test_a_lone_row_beside_the_other_agents_report_is_still_named(recorded, way, rid):
    ranks = [f["ranks"] for f in naming_findings(recorded[way][rid])]
    assert NAMED[rid] in ranks and all(r == NAMED[rid] for r in ranks), ranks


# --- synthetic consoles (SYNTHETIC: torchrun 2.13.0's agent lines and table, ranks and pids made up) ---------------------
_AGENT = "torch/distributed/elastic/multiprocessing/api.py"
_TB = ["Traceback (most recent call last):", '  File "/opt/venv/bin/torchrun", line 8, in <module>', "    sys.exit(main())",
       '  File "/opt/venv/lib/python3.11/site-packages/torch/distributed/launcher/api.py", line 383, in launch_agent',
       "    raise ChildFailedError(", "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60,
       "/workspace/train.py FAILED", "-" * 60]
_GLOO = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer "
         "[10.0.0.{}]:64708. This is typically caused by a remote worker crashing. Check the logs of the remote worker.")
_SIG = {-15: "SIGTERM", -9: "SIGKILL", -11: "SIGSEGV"}


def _entry(k: int, rank: int, local: int, pid: int, status: int, when: str) -> list[str]:
    code = f"{status} (pid: {pid})  ({_SIG[status]})" if status < 0 else f"{status} (pid: {pid}) "
    tb = (f"Signal {-status} ({_SIG[status]}) received by PID {pid}" if status < 0
          else "To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html")
    return [f"[{k}]:", f"  time      : 2026-12-07_{when}", "  host      : localhost", f"  rank      : {rank} (local_rank: {local})",
            f"  exitcode  : {code}", "  error_file: <N/A>", f"  traceback : {tb}"]


def console(ranks: list[int], root: int, when: str, *, status: int = 1, own: dict[int, list[str]] | None = None,
            gloo: bool = False) -> str:
    """One node's console: ``ranks`` (global, by local rank), ``root`` the first failed with ``status``, the others
    SIGTERMed by its agent; ``own``: a rank's own lines (``[defaultL]:``-tagged, as without ``--redirects``);
    ``gloo``: every rank but a culprit with ``own`` lines prints its gloo 'Connection closed by peer' traceback."""
    lines, pid = [], {r: 13900 + i for i, r in enumerate(ranks)}
    for r in ranks:
        local = ranks.index(r)
        said = (own or {}).get(r) or (['  File "/workspace/train.py", line 93, in _run', _GLOO.format(local + 2)]
                                      if gloo else [])
        lines += [f"[default{local}]:{x}" for x in (["Traceback (most recent call last):"] + said if said else [])]
    others = [r for r in ranks if r != root]
    lines += [f"W1207 {when}.598000 13771 {_AGENT}:1028] Sending process {pid[r]} closing signal SIGTERM" for r in others]
    lines.append(f"E1207 {when}.893000 13771 {_AGENT}:1002] failed (exitcode: {status}) local_rank: {ranks.index(root)} "
                 f"(pid: {pid[root]}) of binary: /opt/venv/bin/python3")
    lines += _TB + ["Failures:"]
    for k, r in enumerate(others, 1):
        lines += _entry(k, r, ranks.index(r), pid[r], -15, when)
    lines += ["-" * 60, "Root Cause (first observed failure):"] + _entry(0, root, ranks.index(root), pid[root], status, when)
    return "\n".join(lines + ["=" * 60]) + "\n"


def progress(ranks: list[int], steps: int = 3) -> str:
    """A node's console cut mid-run: its ranks' progress lines and nothing after."""
    return "\n".join(f"[default{i}]:step {s}/10 loss 0.1{s}{i}" for s in range(steps) for i in range(len(ranks))) + "\n"


def _named(tmp_path, texts: list[str]) -> list[tuple]:
    return named(findings_of_texts(tmp_path, texts))


@pytest.mark.parametrize("redirects", [True, False], ids=["redirects", "tee"])
@pytest.mark.parametrize("lost", [0, 1])
@pytest.mark.parametrize("nproc", [2, 3])
def test_two_nodes_one_lost_whole_names_no_rank(tmp_path, redirects, lost, nproc):
    survivor = 1 - lost
    ranks = [survivor * nproc + i for i in range(nproc)]
    texts = ["", ""]
    texts[survivor] = console(ranks, ranks[-1], "12:46:37", gloo=not redirects)
    assert _named(tmp_path, texts) == []


@pytest.mark.parametrize("cut", [True, False], ids=["cut-mid-run", "empty"])
def test_three_nodes_one_silent_names_no_rank(tmp_path, cut):
    """3 x 2, --redirects: node 1 lost whole (empty, or progress lines only); nodes 0's and 2's tables 2 s apart (the
    first alone would be named by its time)."""
    texts = [console([0, 1], 1, "12:46:37"), progress([2, 3]) if cut else "", console([4, 5], 4, "12:46:39")]
    assert _named(tmp_path, texts) == []


def test_a_culprits_own_exception_on_the_surviving_node_is_still_named(tmp_path):
    """Without --redirects the culprit's own ValueError is in the console: named, whatever the other node's log."""
    own = {1: ['  File "/workspace/train.py", line 88, in step', "ValueError: bad batch at step 6: sample 17 has no tokens"]}
    texts = [console([0, 1, 2], 1, "12:46:37", own=own, gloo=True), ""]
    assert [r for _, r in _named(tmp_path, texts)] == [[1]]


@pytest.mark.parametrize("status,cause", [(-9, "host-oom-kill"), (-11, "segfault")])
def test_a_signal_row_on_the_surviving_node_is_still_named(tmp_path, status, cause):
    """A rank killed by a signal of its own (SIGKILL with no SIGTERM before it, SIGSEGV): its process's, named."""
    texts = [console([0, 1], 1, "12:46:37", status=status), ""]
    assert (cause, [1]) in _named(tmp_path, texts)


def test_the_other_nodes_log_absent_keeps_the_lone_row_named(tmp_path):
    """One console given alone (the other node's log absent, not empty): the lone row named as before (session 70)."""
    texts = [console([0, 1, 2], 2, "12:46:37")]
    assert [r for _, r in _named(tmp_path, texts)] == [[2]]


def test_the_other_nodes_agent_reporting_keeps_the_lone_row_named(tmp_path):
    """The other node's console holds its agent's own failure report (its SIGTERMs, its store's lost connection, as
    t52's node 1 printed them): that node was not lost silent; the lone exit row stays named (session 70)."""
    rdzv = "torch/distributed/elastic/rendezvous/dynamic_rendezvous.py"
    other = "\n".join([f"W1207 12:46:38.763000 11911 {_AGENT}:1028] Sending process 12000 closing signal SIGTERM",
                       f"W1207 12:46:38.764000 11911 {_AGENT}:1028] Sending process 12002 closing signal SIGTERM",
                       f"W1207 12:46:38.891000 11911 {rdzv}:1298] The node 'localhost_11911_0' has failed to shutdown the "
                       "rendezvous 'train' due to an error of type RendezvousConnectionError",
                       "Traceback (most recent call last):",
                       "torch.distributed.DistNetworkError: Failed to recv, got 0 bytes. Connection was likely closed. Did "
                       "the remote server shutdown or crash?"]) + "\n"
    texts = [console([0, 1], 1, "12:46:37"), other]
    assert [r for _, r in _named(tmp_path, texts)] == [[1]]


def test_a_pod_whose_container_ended_with_an_empty_log(tmp_path):
    """Pod logs: the lost node's pod terminated (137, its container killed) with an empty log: no rank named."""
    [run] = [r for r in load_runs() if r.id == CONTROLS[-1]]
    objects, logs = _job_rows(run, net="10.1.0.{}")
    for o in objects:
        body = json.loads(o["body"])
        if body["kind"] == "Pod" and body["metadata"]["name"] == "train-worker-0":
            body["status"]["phase"] = "Failed"
            body["status"]["containerStatuses"][0].update(ready=False, state={"terminated": {"exitCode": 137, "reason": "Error"}})
            o["body"] = json.dumps(body)
    findings = analyze(_captured(objects, logs, [_clock(run.stamped())], tmp_path))["findings"]
    assert not naming_findings(findings), [(f["rule"], f["severity"], f["ranks"]) for f in findings]
