"""The seventy-seventh set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(77)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, through
``t61.reseeded``), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo on CPU, gloo timeouts of
3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios77 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item              launcher   layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill           standalone 1x6    1    4    tee              0     print-exc rank0-only     paren   sigbus   raise-value   train      rank0  2 sigkill
    segfault          trun       2x2    0    4    tee-filter       1     uncaught  lightning      paren   sigkill  raise-runtime train      shards 0 sigkill
    raise             legacy     3x2    1    7    none             0     exception rank0-only     field   raise    missing-shard init       shards 2 sigkill
    abort             trun       2x2    0    4    none             1     exception rank0-only     slash   sigkill  raise-value   train      shards 0 sigkill
    sigbus            trun       2x2    1    1    none             0     uncaught  rank0-only     paren   sigbus   missing-shard checkpoint shards 0 sigbus
    never-joins       trun       3x2    0    4    none             1     error     print-norank   slash   raise    missing-shard checkpoint shards 0 sigbus
    monitored-barrier standalone 1x6    0    6    tee-logdir       1     print-exc logging-norank slash   sigbus   missing-shard shutdown   shards 2 sigbus
    op-mismatch       standalone 1x4    2    2    tee              1     print-exc lightning      field   segfault keyerror      shutdown   rank0  0 sigkill
    size-mismatch     trun       2x3    1    6    none             2     uncaught  lightning      paren   sigbus   missing-shard init       shards 0 sigbus
    every-attempt     trun       3x2    5    5    tee-logdir       1     record    logging-rank   paren   sigbus   assert        train      shards 2 sigkill
    recovered         trun       2x3    5    3    tee-logdir       2     record    logging-norank rank=   abort    raise-value   init       shards 0 sigbus
    loader-worker     legacy     2x2    0    1    none             0     record    logging-norank RANK    raise    assert        eval       rank0  2 sigkill
    exception         static     2x2    2    6    tee-filter       0     error     rank0-only     RANK    abort    missing-shard checkpoint rank0  0 sigkill
    node-killed       trun       3x2    0    8    redirects-logdir 1     record    print-norank   field   sigbus   assert        train      shards 2 sigkill
    clean             trun       2x2    1    8    none             1     print-exc print-norank   slash   sigkill  keyerror      shutdown   rank0  0 sigkill
    config-every-rank trun       2x3    2    2    tee-logdir       1     record    rank0-only     rank=   raise    memoryerror   init       shards 2 sigkill

Replaced draws (launcher/option/phase/workers), by item (32): segfault: spawn/tee/shutdown/0; raise:
spawn/redirects-logdir/shutdown/0; abort: spawn/tee/checkpoint/0; never-joins: legacy/tee-logdir/init/0; every-attempt:
spawn/none/checkpoint/0, legacy/tee-filter/shutdown/0, spawn/redirects-logdir/checkpoint/2; loader-worker:
standalone/tee-filter/checkpoint/2, spawn/redirects-logdir/shutdown/2, spawn/tee-filter/init/2, trun/tee/init/0,
static/redirects-logdir/shutdown/2, legacy/none/init/2, trun/tee/shutdown/0, spawn/tee/checkpoint/0,
trun/tee-logdir/eval/0, trun/redirects-logdir/checkpoint/2, trun/tee-filter/train/0, trun/tee-logdir/init/0,
static/tee/eval/0, standalone/tee-logdir/checkpoint/0, legacy/redirects-logdir/train/0, legacy/none/eval/0,
spawn/redirects-logdir/train/0, legacy/tee-filter/train/2, trun/none/train/0, spawn/tee-logdir/shutdown/2,
trun/redirects-logdir/eval/0, standalone/none/init/2, trun/redirects-logdir/eval/0, trun/none/checkpoint/2; node-killed:
legacy/tee/eval/0.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t77-standalone-1x6-sigkill-rank1-step4-train-w2-print-exc-rank0only-tee                 rank 1, host-oom-kill
    t77-trun-2x2-segfault-rank0-step4-train-w0-uncaught-lightning-filter1                   rank 0, segfault
    t77-legacy-3x2-raise-rank1-init-w2-exception-rank0only                                  rank 1, python-exception
    t77-trun-2x2-abort-rank0-step4-train-w0-exception-rank0only                             rank 0, abort
    t77-trun-2x2-sigbus-rank1-step1-ckpt-shards-w0-uncaught-rank0only                       rank 1, sigbus
    t77-trun-3x2-never-joins-rank0-w0-error-norank                                          rank 0, never-joined
    t77-standalone-1x6-monitored-barrier-rank0-shutdown-w2-print-exc-logging-norank-logdir  rank 0, never-joined
    t77-standalone-1x4-op-mismatch-rank2-shutdown-w0-print-exc-lightning-tee                rank 2, collective-mismatch
    t77-trun-2x3-size-mismatch-rank1-init-w0-uncaught-lightning                             rank 1, collective-mismatch
    t77-trun-3x2-restarts1-sigbus-rank5-step5-train-w2-record-logging-paren-logdir          rank 5, sigbus
    t77-trun-2x3-restarts1-recovered-abort-rank5-init-w0-record-logging-norank-logdir       rank 5, abort
    t77-legacy-2x2-loader-sigkill-rank0-step1-eval-w2-record-logging-norank                 rank 0, host-oom-kill
    t77-static-2x2-missing-shard-rank2-step6-ckpt-rank0-w0-error-rank0only-filter0          rank 2, python-exception
    t77-trun-3x2-node0-killed-by-rank0-step8-train-w2-record-norank-redirects               control (node 0 lost whole)
    t77-trun-2x2-clean-w0-print-exc-norank                                                  control (clean)
    t77-trun-2x3-config-every-rank-init-w2-record-rank0only-logdir                          control (every rank's ValueError)

The awkward ones kept: THREE faults at ``init`` (rank 1's raise under ``legacy`` (``torch.distributed.launch``), 3 x 2,
no output option, the ``exception`` handler, ``rank0-only``, workers 2; the size mismatch of rank 1 under c10d
``torchrun``, 2 x 3, no output option, ``uncaught``, ``lightning``; the recovered run's SIGABRT of rank 5 under
``--max-restarts 1 --tee 3 --log-dir``, 2 x 3, ``@record``, ``logging-norank``, the second attempt running clean) and
every rank's ``ValueError`` control at init too (under ``--tee 3 --log-dir``, 2 x 3, ``@record``, workers 2) and the
never-joining rank 0 (3 x 2, no output option, ``error``, ``print-norank``; its drawn phase unused: it never calls
``init_process_group``); TWO at shutdown (the ``monitored_barrier`` late rank is rank 0 itself, the barrier's own
checking rank, under ``--standalone --tee 3 --log-dir``, 1 x 6, ``print-exc``, ``logging-norank``, workers 2; the op
mismatch of rank 2 under ``--standalone --tee 3``, 1 x 4, ``print-exc``, ``lightning``) and the clean control's drawn
phase shutdown too (no output option, 2 x 2); TWO at a checkpoint save (rank 1's SIGBUS at step 1 at the sharded save, 2
x 2, no output option, ``uncaught``, ``rank0-only``; rank 2's missing shard (the drawn exception, the ``error`` handler)
at step 6 at the rank-0 save under static rendezvous and ``--tee 3 --local-ranks-filter 0``, 2 x 2, the culprit node 1's
local rank 0 so its lines kept); ONE in the validation loop (the DataLoader worker's SIGKILL of rank 0 at step 1 under
``legacy``, 2 x 2, no output option, ``@record``, ``logging-norank``, workers 2); FIVE in the training loop (rank 1's
SIGKILL at step 4 under ``--standalone --tee 3``, 1 x 6, ``print-exc``, ``rank0-only``, workers 2; rank 0's segfault at
step 4 under ``--tee 3 --local-ranks-filter 1``, 2 x 2, ``uncaught``, the culprit's local rank 0 so its own lines
filtered out; rank 0's SIGABRT at step 4, 2 x 2, no output option, the ``exception`` handler; the every-attempt SIGBUS
of rank 5 at step 5 under ``--max-restarts 1 --tee 3 --log-dir``, 3 x 2, ``@record``, ``logging-rank``, workers 2) and
the node-lost control there too (node 0, the rendezvous endpoint's node, lost whole by rank 0 at step 8 under
``--redirects 3 --log-dir``, 3 x 2, workers 2); c10d ``torchrun`` for seven of the thirteen faults and all three
controls, ``--standalone`` for three (the SIGKILL, the late barrier rank, the op mismatch), ``legacy`` for two (the
raise at init, the DataLoader worker's SIGKILL), static rendezvous for one (the missing shard) and ``mp.spawn`` for
none; ``--local-ranks-filter`` in two rows, the culprit's own lines filtered out in one (rank 0's segfault); no output
option in seven rows (six faults and the clean control); rank 0 the culprit in five rows (the segfault, the SIGABRT, the
never-joining rank, the late barrier rank, the DataLoader worker's SIGKILL) and the killer of the node-lost control;
``num_workers`` 2 in five of the thirteen fault rows (and in two controls: node 0 lost whole, every rank's
``ValueError``).

Recorded (session 72, after the truths were committed): every fault fired as drawn in both versions (checked in the node
logs and ``--log-dir`` files: the culprit's signal in the tables ('failed (exitcode: -9/-11/-6/-7) local_rank: N': rank
1's SIGKILL under ``--standalone``, rank 0's segfault (its own lines filtered out) and SIGABRT, rank 1's SIGBUS at the
sharded save as node 0's local rank 1, rank 5's SIGBUS as node 2's local rank 1 on both attempts), its message ('bad
batch at step 7: sample 17 has no tokens' on node 0, 'rank 2: [Errno 2] No such file or directory:
'data/train/shard-00002.bin'', rank 0's 'DataLoader worker (pid N) is killed by signal: Killed.'), or its victims'
errors naming it ('Rank N successfully reached monitoredBarrier, but received errors while waiting for send/recv from
rank 0' on ranks 1-5, ``Detected mismatch`` with rank 2's ``OpType=ALLGATHER`` and rank 1's ``TensorShape=[5]``, store
keys ``/default_pg/0//cpu//0/0`` waited for by ranks 1-5); the recovered run's SIGABRT once ('Fatal Python error:
Aborted', local rank 2 of node 1 exit -6, then exit 0 on both agents); node 0 lost whole after step 7 (exit -9, the
others exit 1); the clean control exit 0 on both agents; every rank's ``ValueError``). NO re-recording: every run of
both versions fired as drawn at its first recording (one recorder at a time, while another helper recorded another set;
20-57 s a run under 2.13.0, 24-84 s under 2.14.1); t61_worker.py unchanged.
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(77)`` (``draw(replaced)``), its scenarios and command lines under the ``t77``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(77)
