"""One synthetic torchrun node log of 4 processes (``--tee 3``): three progress steps of each, the test's own lines,
the agent's SIGTERMs, its report of the first failed local rank and its ChildFailedError table. Shared by
tests/test_error_record_as_exception.py (session 65), tests/test_message_only_exit.py (session 67) and
tests/test_message_last_line_exit.py (session 68), with the maker of their batched bundles."""

from __future__ import annotations

import datetime as dt

from k10s_forensics.logimport import LogSource, import_logs
from torch_runs_kit import import_run

AGENT = "torch/distributed/elastic/multiprocessing/api.py"
_HINT = "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html"


def node_log(lines: list[str], first: int, code: int, others: dict[int, int] | None = None, *, day: str, lag: int | None = None,
             step_field: bool = False) -> str:
    """The node's log. ``day``: ``MMDD HH`` of its clock (``"1206 20"``); ``others``: the other local ranks' statuses
    (SIGTERM by default). The table's times: every entry at :40 with the traceback hint (``lag`` None), else the root
    cause at :38 and the others ``lag`` s after it, no hint. ``step_field``: progress lines carry Lightning's
    ``[rank: N]`` field."""
    others = others if others is not None else {r: -15 for r in range(4) if r != first}
    mmdd, hour = day.split()
    head = [f"[default{r}]:{f'[rank: {r}] ' if step_field else ''}step {s}/10 loss 0.1{r}{s}" for s in range(3) for r in range(4)]
    tail = [f"W{mmdd} {hour}:45:40.741000 10242 {AGENT}:1028] Sending process {10260 + r} closing signal SIGTERM"
            for r, c in others.items() if c == -15]
    tail.append(f"E{mmdd} {hour}:45:40.946000 10242 {AGENT}:1002] failed (exitcode: {code}) local_rank: {first} (pid: {10260 + first}) "
                "of binary: /opt/venv/bin/python3")
    return "\n".join(head + lines + tail + _table(first, code, others, f"2026-{mmdd[:2]}-{mmdd[2:]}_{hour}:45", lag)) + "\n"


def _table(first: int, code: int, others: dict[int, int], minute: str, lag: int | None) -> list[str]:
    """torchrun's ChildFailedError table, ``first`` the root cause."""
    hint = [_HINT] if lag is None else []
    out = ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ", "=" * 60, "/workspace/train.py FAILED",
           "-" * 60, "Failures:"]
    for i, (local, c) in enumerate(others.items(), 1):
        sig = "  (SIGTERM)" if c == -15 else ""
        out += [f"[{i}]:", f"  time      : {minute}:{40 if lag is None else 38 + lag}", "  host      : localhost",
                f"  rank      : {local} (local_rank: {local})", f"  exitcode  : {c} (pid: {10260 + local}){sig}", "  error_file: <N/A>",
                *hint, "-" * 60]
    out += ["Root Cause (first observed failure):", "[0]:", f"  time      : {minute}:{40 if lag is None else 38}", "  host      : localhost",
            f"  rank      : {first} (local_rank: {first})", f"  exitcode  : {code} (pid: {10260 + first})", "  error_file: <N/A>",
            *hint, "=" * 60]
    return out


__all__ = ["AGENT", "node_log"]


def case_maker(runs: dict, cases: dict, now: dt.datetime):
    """A ``Batched`` maker: a recorded run's import, or a case's synthetic node log (its first item) imported as the one
    node of a 4-process job."""
    def make(key: str, folder):
        folder.mkdir(parents=True, exist_ok=True)
        if key in runs:
            return import_run(runs[key], folder, derive=False)
        return import_logs([LogSource("node0.log", cases[key][0])], folder / "b", nproc_per_node=4, world_size=4, nodes=1,
                           job="train", namespace="team-a", now=now, derive=False)[0]
    return make
