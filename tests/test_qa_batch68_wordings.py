"""Batch 68's Q&A paste shapes (tests/data/real-incidents, ``"batch": 68``, family ``qa-pastes``), each with its
wording variants, as one pasted log through ``k10s import-logs``. The batch was met as collected (8/8 both ways,
with the cause; docs/rules.md, "Session 24: batch 68"); these tests keep the damaged shapes met at other ranks,
sizes and damages:

* culprits: the legacy launcher's agent lines with the first characters of the SIGTERM line lost in the paste
  (``ARNING:…``), then ``failed (exitcode: -9) local_rank: R`` — rank R, ``host-oom-kill``; torchrun's SIGTERM line
  glued to the end of a tqdm bar (``…?it/s][2023-09-23 …] … Sending process P closing signal SIGTERM``), then the
  ``-9`` of local rank R — rank R; a failure summary alone, ``<NO_OTHER_FAILURES>`` and a root cause of exit 1 — that
  rank, ``python-exception``;
* controls: DeepSpeed's launcher ``Killing subprocess P`` and the last-spawned command with ``--local_rank=K``
  ``exits with return code = 1`` (the command is the last one spawned, not the failed one); a ``> ``-quoted NCCL
  proxy connect closed by the remote host during init, the host field redacted to ``-``; NCCL's connect to a peer's
  IPv6 link-local address ``Network is unreachable``; a user's Ctrl+C (``Received 2 death signal``, SIGINT then
  SIGTERM to every worker, a KeyboardInterrupt traceback interleaved); Horovod's ``Horovod has been shut down`` on
  every tagged rank, hard-wrapped at the terminal width — none names a rank.

The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank
from incident_kit import corpus_log, naming_findings
from k10s_forensics.logimport import LogSource, import_logs

NOW = dt.datetime(2026, 11, 30, 23, 0, tzinfo=dt.timezone.utc)


LEGACY = corpus_log("pytorch-103954-legacy-launch-arning-local-rank1-sigkill")
GLUED = corpus_log("llama-cookbook-222-progress-glued-sigterm-local-rank0-sigkill")
SUMMARY = corpus_log("minicpm-v-223-root-cause-rank0-exit1-no-other-failures")
DEEPSPEED = corpus_log("deepspeedexamples-380-ds-launcher-last-cmd-local-rank1-exit1-control")
QUOTED = corpus_log("diffusion-110-quoted-redacted-host-proxy-connect-closed-control")
IPV6 = corpus_log("wenet-1891-backtick-ipv6-link-local-unreachable-control")
CTRL_C = corpus_log("colossalai-5179-ctrl-c-sigint-interleaved-traceback-control")
HOROVOD = corpus_log("horovod-2097-wrapped-tagged-stderr-shutdown-both-ranks-control")
AGENT = "torch.distributed.elastic.multiprocessing.api:"


def _legacy(rank: int, nproc: int, lost: int) -> str:
    """The legacy launcher's teardown: SIGTERM to every other worker (the first line's first ``lost`` characters gone
    in the paste), then local rank ``rank``'s ``-9``; the launcher's own traceback below."""
    lines = [f"WARNING:{AGENT}Sending process {25236 + i} closing signal SIGTERM" for i in range(nproc) if i != rank]
    lines[0] = lines[0][lost:]
    head = LEGACY.split("Traceback (most recent call last):")[1]
    return "\n".join(lines + [f"ERROR:{AGENT}failed (exitcode: -9) local_rank: {rank} (pid: {25236 + rank}) of binary: "
                              "/anaconda3/envs/paddle_env/bin/python", "Traceback (most recent call last):"]) + head


def _glued(rank: int, nproc: int) -> str:
    """torchrun's SIGTERM warnings, the first glued to a tqdm bar, then local rank ``rank``'s ``-9``."""
    bar = "Loading checkpoint shards:   0%|" + " " * 120 + "| 0/2 [00:00<?, ?it/s]"
    term = [f"[2023-09-23 14:52:33,029] {AGENT} [WARNING] Sending process {239 + i} closing signal SIGTERM"
            for i in range(nproc) if i != rank]
    head, _, tail = GLUED.partition("Loading checkpoint shards:")
    head = head.replace("--nproc_per_node 2", f"--nproc_per_node {nproc}")  # the command the user pasted
    rest = tail.split("\n", 1)[1].split("\n", 1)[1]  # the lines after the glued line and the failure line
    fail = (f"[2023-09-23 14:52:34,004] {AGENT} [ERROR] failed (exitcode: -9) local_rank: {rank} (pid: {239 + rank}) "
            "of binary: /usr/bin/python3")
    return head + "\n".join([bar + term[0], *term[1:], fail]) + "\n" + rest


def _summary(rank: int) -> str:
    return SUMMARY.replace("rank      : 0 (local_rank: 0)", f"rank      : {rank} (local_rank: {rank})")


def _deepspeed(rank: int, kills: int) -> str:
    lines = [f"[2023-04-21 03:07:23,{960 + i}] [INFO] [launch.py:428:sigkill_handler] Killing subprocess {22610 + i}"
             for i in range(kills)]
    return "\n".join(lines) + "\n" + DEEPSPEED.splitlines()[1].replace("'--local_rank=1'", f"'--local_rank={rank}'") + "\n"


def _quoted(rank: int, nranks: int) -> str:
    return QUOTED.replace("rank 1 nranks 4", f"rank {rank} nranks {nranks}").replace("from rank 1,", f"from rank {rank},") \
        .replace("Call to rank 1 failed", f"Call to rank {rank} failed")


def _ipv6(connecting: str) -> str:
    """The link-local connect failure reported by one of the node's two processes."""
    return IPV6 if connecting == "90736" else IPV6.replace("voicec105:90736:91655 [0] include/socket.h",
                                                           "voicec105:90735:91654 [0] include/socket.h")


def _ctrl_c(workers: int) -> str:
    pids = [423964 + i for i in range(workers)]
    text = CTRL_C
    for signal in ("SIGINT", "SIGTERM"):
        block = "\n".join(f"WARNING:{AGENT}Sending process {p} closing signal {signal}" for p in pids)
        old = "\n".join(f"WARNING:{AGENT}Sending process {p} closing signal {signal}" for p in (423964, 423965))
        text = text.replace(old, block)
    return text


def _horovod(ranks: int) -> str:
    """Every tagged rank's wrapped shutdown message (rank 1's unwrapped tail kept as pasted)."""
    lines = HOROVOD.splitlines()
    wrapped = lines[:3]
    extra = [line.replace("2020[0]<stderr>", f"2020[{r}]<stderr>", 1) for r in range(2, ranks) for line in wrapped]
    return "\n".join(lines + extra) + "\n"


# key: (shape, parameter, …); the expected culprit (None: a control)
CULPRITS = {("legacy", 1, 2, 1): 1, ("legacy", 0, 2, 1): 0, ("legacy", 3, 4, 1): 3, ("legacy", 2, 4, 3): 2,
            ("glued", 0, 2): 0, ("glued", 1, 2): 1, ("glued", 3, 4): 3,
            ("summary", 0): 0, ("summary", 5): 5}
CONTROLS = [("deepspeed", 1, 1), ("deepspeed", 3, 1), ("deepspeed", 7, 8), ("deepspeed", 1, 2),
            ("quoted", 1, 4), ("quoted", 0, 4), ("quoted", 3, 8),
            ("ipv6", "90736"), ("ipv6", "90735"),
            ("ctrl_c", 2), ("ctrl_c", 4),
            ("horovod", 2), ("horovod", 4)]
CAUSE = {"legacy": "host-oom-kill", "glued": "host-oom-kill", "summary": "python-exception"}
BUILD = {"legacy": _legacy, "glued": _glued, "summary": _summary, "deepspeed": _deepspeed, "quoted": _quoted,
         "ipv6": _ipv6, "ctrl_c": _ctrl_c, "horovod": _horovod}
BATCHED = Batched("qa-batch68", list(CULPRITS) + CONTROLS)


def _make(key: tuple, folder: Path) -> object:
    return import_logs([LogSource("log.txt", BUILD[key[0]](*key[1:]))], folder / "b", job="train", namespace="team-a",
                       now=NOW, derive=False)[0]


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_the_damaged_pastes_name_their_failed_rank(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert named and all(f["ranks"] == [CULPRITS[key]] for f in named), [(f["rule"], f["cause"], f["ranks"]) for f in named]
    assert any(f["cause"] == CAUSE[key[0]] for f in named), [(f["rule"], f["cause"]) for f in named]


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_the_q_and_a_controls_name_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)


def test_the_variants_keep_their_damage():
    """The builders change the rank or size, not the damage the tests are about."""
    assert _legacy(2, 4, 3).startswith("NING:")
    glued = _glued(1, 2)
    assert "?it/s][2023-09-23 14:52:33,029]" in glued and "local_rank: 1 (pid: 240)" in glued
    assert all(line.startswith(">") for line in _quoted(3, 8).splitlines())
    assert _ipv6("90735").startswith("`voicec105")
    assert _ctrl_c(4).count("closing signal SIGINT") == 4 and "KeyboardInterrupt:" in _ctrl_c(4)
    assert _horovod(4).count("Horovod has b\n") == 4
    assert "'--local_rank=7'" in _deepspeed(7, 8) and _deepspeed(7, 8).count("Killing subprocess") == 8
