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
    # session 53 leftovers
}
