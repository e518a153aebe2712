"""The fiftieth set's runs not read right yet (tests/test_torch_runs.py's NOT_YET, both ways), with why."""

from __future__ import annotations

_ONE_NODE_ALIKE = ("node 0's CUDA_VISIBLE_DEVICES=-1: ranks 0 and 1 (all of node 0's ranks) raise the same RuntimeError "
                   "within a second while node 1's ranks, waiting in DDP's start-up broadcast, are SIGTERMed by their agent "
                   "without an error of their own; 'failed the same way within one second' reads as no single culprit (a "
                   "node- or job-wide cause), though the ranks failing alike are one node's and the other node's only torn down")
_REDIRECTED_NODE = ("--redirects 3: the consoles hold only the agents' tables; node 1's shows rank 3 exit 1 and rank 2 "
                    "SIGTERMed (its own ENOSPC, in the --log-dir files only, came as its agent tore it down): rank 3 alone is "
                    "named (medium), rank 2's failure is not in the pod logs. 2.13.0, since session 70 (devB: a table "
                    "entry's whole second gives way to its agent's teardown time): node 1's rank 3 exit 1 reads 01:46:40.989, "
                    "after node 0's rank 0 SIGABRT (-6, 01:46:40.668), which is named instead (abort, high: an innocent; "
                    "before, rank 3's whole second 01:46:40 put it first). Session 71 (devC): nothing in the consoles tells "
                    "this victim's abort from a culprit's: each node's table one failure and its mates SIGTERMed, is the shape "
                    "of 22 recorded culprit aborts' tables (t38, t47, t55, t57, t58, t65 init, t66 ...), and the abort's lead "
                    "(0.32 s) is a culprit's in t65 2.13.0 (0.19 s); no restart to repeat it")
_EXTRA_COLLECTIVE = ("node 1's GRAD_ACCUM=2: ranks 2 and 3 time out (3 s) in an all_reduce of the accumulated loss that "
                     "node 0's ranks never run (they wait in DDP's next forward, then see 'Connection closed by peer'): "
                     "read as a hang of 2 ranks with no single culprit (info), not as a collective mismatch of ranks 2 and 3")
_SHAPE_CAUSE = ("node 1's older program (hidden 24): ranks 2 and 3 fail DDP's parameter-shape check ('params[0] in this "
                "process with sizes [24, 8] appears not to match ...'); k10s names exactly ranks 2 and 3 with cause "
                "collective-mismatch, the cause the seventh set's t7-trun-ddp-shape-mismatch-rank1 truth gives the same "
                "check; this set's truth, written before recording, says python-exception (the truth's word, not the ranks)")
_T50 = {f"{v}/t50-trun-2x2-{run}": why for v in ("2.13.0", "2.14.1") for run, why in {
    "no-devices-node0": _ONE_NODE_ALIKE, "scratch-full-node1-redirects": _REDIRECTED_NODE,
    "grad-accum-node1-tee": _EXTRA_COLLECTIVE, "model-hidden-node1": _SHAPE_CAUSE}.items()}
