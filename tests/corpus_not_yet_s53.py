"""The corpus' expectations k10s does not meet yet from session 53's blind batches (299-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 53's batches that we do not meet, with why.
NOT_YET_S53: dict[str, str] = {
    # batch 305
    "paddle-13288-mpirun-rank140-sigkill-node-random-fail": "Open MPI's lone `mpirun noticed that process rank 140 ... "
    "exited on signal 9 (Killed).` reads as rank 140 killed by the host's OOM killer (warning, host-oom-kill): rank "
    "right, cause not; only the maintainer's answer says a node failed at random (rank-dead), and a bare SIGKILL "
    "cannot tell a lost node from an OOM kill.",
    # batch 307
    "ezpz-234-sunspot-pals-rank12-sigkill-rank1-sigterm-cascade": "PALS's `rank 12 died from signal 9` (host "
    "x1921c7s1b0n0) before `rank  1 died from signal 15` reads as rank 12 killed by the host's OOM killer (warning, "
    "host-oom-kill): rank right, cause not; only the thread says the SIGKILL was the author's chaos harness "
    "(`palsig -s SIGKILL`) taking the node's ranks down (rank-dead), and a bare signal 9 cannot tell an injected or "
    "lost-node kill from an OOM kill.",
    "ezpz-238-perlmutter-srun-nid001321-tasks-4-7-killed": "srun's lone `srun: error: nid001321: tasks 4-7: Killed` "
    "reads as a kill on node nid001321 (warning, host-oom-kill) that names no rank: the `tasks 4-7` range (Slurm task "
    "ids = ranks 4, 5, 6, 7) is not mapped to ranks, and only the thread says the author killed that node on purpose "
    "(rank-dead, not an OOM kill).",
    # session 53 leftovers
}
