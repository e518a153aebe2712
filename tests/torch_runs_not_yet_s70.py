"""Recorded runs read right before session 70 and not since, with why (tests/test_torch_runs.py's NOT_YET via
tests/torch_runs_not_yet_late.py's ``LATE``; both ways alike).

Session 70 (devB, docs/rules.md "Session 70: --redirects consoles"): a failure-table entry's whole-second ``time`` gives
way to its agent's teardown (the first ``Sending process N closing signal SIGTERM`` line of the poll that found it),
where before it kept the whole second whenever the agent's ``failed (exitcode: …)`` line fell in the next second: a
time up to a second early against another node's millisecond one. The run below was read right only through that
error; by its agents' clocks its two exits are 0.51 s apart, closer than the every-rank control t69 2.13.0's 0.56 s,
so the consoles cannot order them (no rank is named, none wrongly)."""

from __future__ import annotations

_TORCH_SAVE = ("2 x 2, --redirects 3 --log-dir: rank 0's torch.save into a missing directory raises; the consoles hold only "
               "the tables: node 0's rank 0 exit 1 (whole second 22:32:42; its teardown 22:32:42.938, its agent's line "
               "22:32:43.003), rank 1 SIGTERM; node 1's rank 3 exit 1 (22:32:43; teardown 22:32:43.444), rank 2 SIGTERM. "
               "Before session 70 rank 0 read 22:32:42.000 against rank 3's 22:32:43.477 and was named (python-exception); "
               "now 'Ranks 0, 3 exited with status 1; 2 ranks ended within one second … no single culprit' with the "
               "--log-dir sentence (no rank named); truth: rank 0, python-exception (read right with its tree)")
_S70 = {"2.13.0/t48-trun-2x2-torch-save-nodir-rank0-redirects": _TORCH_SAVE}
