"""The eightieth set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(80)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, through
``t61.reseeded``), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo on CPU, gloo timeouts of
3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios80 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item              launcher   layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill           standalone 1x6    4    7    tee-logdir       2     uncaught  rank0-only     rank=   sigkill  keyerror      checkpoint rank0  0 sigbus
    segfault          trun       2x2    0    3    redirects-logdir 0     error     logging-rank   rank=   raise    keyerror      train      rank0  2 sigbus
    raise             trun       2x3    0    1    none             0     uncaught  logging-norank rank=   raise    keyerror      shutdown   rank0  2 sigbus
    abort             trun       2x2    3    6    tee-filter       0     record    logging-rank   rank=   raise    missing-shard eval       rank0  0 sigbus
    sigbus            trun       2x2    0    1    tee              0     uncaught  logging-norank rank=   abort    memoryerror   init       rank0  2 sigbus
    never-joins       trun       2x3    3    3    tee              0     record    rank0-only     RANK    sigkill  raise-runtime train      shards 2 sigbus
    monitored-barrier standalone 1x6    5    8    tee              4     error     deepspeed      paren   raise    missing-shard shutdown   shards 0 sigkill
    op-mismatch       standalone 1x6    3    7    none             1     exception logging-norank RANK    sigbus   assert        eval       shards 2 sigbus
    size-mismatch     trun       2x2    1    3    tee              0     exception rank0-only     rank=   sigkill  memoryerror   checkpoint rank0  0 sigkill
    every-attempt     trun       3x2    5    1    tee              1     print-exc lightning      rank=   sigkill  assert        train      rank0  2 sigbus
    recovered         trun       3x2    1    5    tee-logdir       1     print-exc rank0-only     paren   segfault keyerror      checkpoint rank0  0 sigkill
    loader-worker     standalone 1x6    4    4    tee-logdir       2     exception print-norank   RANK    sigbus   assert        train      shards 2 sigbus
    exception         trun       3x2    2    5    none             0     record    deepspeed      field   abort    raise-runtime train      rank0  0 sigkill
    node-killed       trun       2x3    5    8    tee-logdir       1     exception logging-rank   field   sigkill  assert        eval       shards 2 sigbus
    clean             trun       2x3    0    6    redirects-logdir 1     print-exc print-norank   RANK    segfault raise-value   init       shards 2 sigkill
    config-every-rank trun       2x2    2    6    redirects-logdir 0     print-exc logging-rank   field   abort    raise-runtime eval       shards 2 sigbus

Replaced draws (launcher/option/phase/workers), by item (6): recovered: legacy/redirects-logdir/init/2; loader-worker:
static/redirects-logdir/init/2, trun/none/eval/0, trun/none/train/0, trun/tee-filter/init/0, trun/redirects-logdir/train/0.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t80-standalone-1x6-sigkill-rank4-step7-ckpt-rank0-w0-uncaught-rank0only-logdir                  rank 4, host-oom-kill
    t80-trun-2x2-segfault-rank0-step3-train-w2-error-logging-rank-redirects                         rank 0, segfault
    t80-trun-2x3-raise-rank0-shutdown-w2-uncaught-logging-norank                                    rank 0, python-exception
    t80-trun-2x2-abort-rank3-step6-eval-w0-record-logging-rank-filter0                              rank 3, abort
    t80-trun-2x2-sigbus-rank0-init-w2-uncaught-logging-norank-tee                                   rank 0, sigbus
    t80-trun-2x3-never-joins-rank3-w2-record-rank0only-tee                                          rank 3, never-joined
    t80-standalone-1x6-monitored-barrier-rank5-shutdown-w0-error-deepspeed-tee                      rank 5, never-joined
    t80-standalone-1x6-op-mismatch-rank3-step7-eval-w2-exception-logging-norank                     rank 3, collective-mismatch
    t80-trun-2x2-size-mismatch-rank1-step3-ckpt-rank0-w0-exception-rank0only-tee                    rank 1, collective-mismatch
    t80-trun-3x2-restarts1-sigkill-rank5-step1-train-w2-print-exc-lightning-tee                     rank 5, host-oom-kill
    t80-trun-3x2-restarts1-recovered-segfault-rank1-step5-ckpt-rank0-w0-print-exc-rank0only-logdir  rank 1, segfault
    t80-standalone-1x6-loader-sigbus-rank4-step4-train-w2-exception-norank-logdir                   rank 4, sigbus
    t80-trun-3x2-raise-runtime-rank2-step5-train-w0-record-deepspeed                                rank 2, python-exception
    t80-trun-2x3-node1-killed-by-rank5-step8-eval-w2-exception-logging-field-logdir                 control
    t80-trun-2x3-clean-w2-print-exc-norank-redirects                                                control
    t80-trun-2x2-config-every-rank-step6-eval-w2-print-exc-logging-field-redirects                  control

The awkward ones kept: ONE fault at ``init`` (rank 0's SIGBUS under c10d ``torchrun --tee 3``, 2 x 2, ``uncaught``,
``logging-norank``, workers 2); TWO at shutdown (rank 0's raise, 2 x 3, no output option, ``uncaught``, workers 2; the
``monitored_barrier`` late rank 5, the last rank, under ``--standalone --tee 3``, 1 x 6, the ``error`` handler,
``deepspeed``); TWO in the validation loop (rank 3's SIGABRT at step 6 under ``--tee 3 --local-ranks-filter 0``, 2 x 2,
``@record``, the culprit node 1's local rank 1 so its own lines filtered out; rank 3's op mismatch at step 7 under
``--standalone``, 1 x 6, no output option, ``logger.exception``, workers 2) and two controls' drawn phase eval too (node
1 lost whole by rank 5 at step 8 under ``--tee 3 --log-dir``, 2 x 3, workers 2: not the rendezvous endpoint's node;
every rank's configuration error under ``--redirects 3 --log-dir``, 2 x 2, workers 2); THREE at a rank-0 checkpoint save
(rank 4's SIGKILL at step 7 under ``--standalone --tee 3 --log-dir``, 1 x 6, ``uncaught``; rank 1's size mismatch at
step 3, 2 x 2, ``--tee 3``, ``logger.exception``; the recovered segfault of rank 1 at step 5 under ``--max-restarts 1
--tee 3 --log-dir``, 3 x 2, ``print_exc``, the second attempt running clean); FOUR in the training loop (rank 0's
segfault at step 3 under ``--redirects 3 --log-dir``, 2 x 2, the ``error`` handler, workers 2, its console empty; the
every-attempt SIGKILL of rank 5 at step 1 under ``--max-restarts 1 --tee 3``, 3 x 2, ``print_exc``, ``lightning``,
workers 2; the DataLoader worker's SIGBUS of rank 4 at step 4 under ``--standalone --tee 3 --log-dir``, 1 x 6,
``logger.exception``, ``print-norank``; rank 2's ``RuntimeError`` at step 5, 3 x 2, no output option, ``@record``,
``deepspeed``) and the never-joining rank 3 (2 x 3, ``--tee 3``, ``@record``; its drawn phase unused: it never calls
``init_process_group``) and the clean control (2 x 3, ``--redirects 3 --log-dir``, its drawn phase init unused); c10d
``torchrun`` for nine of the thirteen faults and all three controls, ``--standalone`` for four (the SIGKILL, the late
barrier rank, the op mismatch, the DataLoader worker's SIGBUS), legacy, static rendezvous and ``mp.spawn`` for none;
``--local-ranks-filter`` in one row (the culprit's own lines filtered out: rank 3's SIGABRT); ``--redirects 3
--log-dir`` in three rows (rank 0's segfault, the clean and the every-rank controls); no output option in three rows
(rank 0's raise, the op mismatch, rank 2's ``RuntimeError``); rank 0 the culprit in three rows (the segfault, the raise,
the SIGBUS at init); ``num_workers`` 2 in seven of the thirteen fault rows (and in all three controls).

Recorded (session 72, after the truths were committed): every fault fired as drawn in both versions (checked in the node
logs and ``--log-dir`` files: the culprit's signal in the tables ('failed (exitcode: -9/-11/-6/-7) local_rank: N': rank
4's SIGKILL at the rank-0 save under ``--standalone``, rank 0's segfault under ``--redirects 3`` (node 0's table), rank
3's SIGABRT as node 1's local rank 1 (its own lines filtered out), rank 0's SIGBUS at init, rank 5's SIGKILL as node 2's
local rank 1 on both attempts before any peer's gloo timeout), its message ('bad batch at step 1: sample 17 has no
tokens' of rank 0 at shutdown, 'non-finite loss at step 5: loss is nan for batch 17 (fp32 overflow in layer 2)' of rank
2, rank 4's 'DataLoader worker (pid N) is killed by signal: Bus error.'), or its victims' errors naming it (rank 0's
'[Rank 0]: Rank 5 failed to pass monitoredBarrier in 1500 ms', ``Detected mismatch`` with rank 3's ``OpType=ALLGATHER``
and rank 1's ``TensorShape=[5]``, store keys ``/default_pg/0//cpu//0/3`` waited for by the others); the recovered run's
segfault once (node 0's local rank 1 exit -11, then exit 0 on all three agents); node 1 lost whole after step 8 (exit
-9, node 0 exit 1); the clean control exit 0 on both agents; every rank's configuration ``ValueError`` at step 6 in the
``--log-dir`` files). NO re-recording: every run of both versions fired as drawn at its first recording (one recorder at
a time, while other helpers recorded other sets; 22-75 s a run under 2.13.0, 30-85 s under 2.14.1); t61_worker.py
unchanged.
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(80)`` (``draw(replaced)``), its scenarios and command lines under the ``t80``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(80)
