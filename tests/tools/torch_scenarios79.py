"""The seventy-ninth set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(79)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, through
``t61.reseeded``), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo on CPU, gloo timeouts of
3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios79 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item              launcher   layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill           trun       2x3    2    3    tee              0     record    logging-rank   field   raise    raise-runtime train      rank0  2 sigbus
    segfault          trun       2x3    3    6    tee-filter       0     record    print-norank   rank=   abort    raise-runtime eval       shards 0 sigkill
    raise             static     2x2    1    6    tee              1     print-exc print-norank   paren   segfault keyerror      shutdown   rank0  2 sigkill
    abort             trun       3x2    0    6    tee-filter       0     record    deepspeed      field   segfault keyerror      checkpoint rank0  0 sigkill
    sigbus            standalone 1x6    2    8    tee              1     print-exc logging-norank RANK    segfault raise-runtime init       shards 2 sigkill
    never-joins       trun       3x2    0    7    tee-logdir       1     print-exc rank0-only     paren   raise    assert        shutdown   shards 2 sigkill
    monitored-barrier static     3x2    2    3    tee              0     uncaught  print-norank   slash   sigbus   keyerror      eval       rank0  2 sigbus
    op-mismatch       trun       2x3    5    8    tee              2     record    lightning      slash   abort    keyerror      eval       rank0  0 sigkill
    size-mismatch     standalone 1x6    4    2    tee              5     error     rank0-only     RANK    raise    assert        shutdown   shards 2 sigbus
    every-attempt     trun       2x3    4    4    redirects-logdir 0     exception logging-norank RANK    raise    raise-value   checkpoint rank0  0 sigkill
    recovered         trun       2x3    3    3    tee              2     error     lightning      field   raise    raise-runtime shutdown   shards 2 sigbus
    loader-worker     trun       2x2    3    4    tee-logdir       1     uncaught  rank0-only     field   raise    raise-runtime eval       rank0  2 sigbus
    exception         standalone 1x6    1    7    tee              0     print-exc logging-rank   paren   segfault raise-value   init       rank0  2 sigbus
    node-killed       trun       2x2    1    2    tee-filter       1     error     logging-rank   field   segfault assert        train      shards 2 sigbus
    clean             trun       3x2    0    7    tee-filter       0     exception deepspeed      RANK    raise    raise-value   eval       rank0  0 sigkill
    config-every-rank trun       2x3    5    8    tee              2     error     rank0-only     paren   sigkill  memoryerror   init       shards 2 sigbus

Replaced draws (launcher/option/phase/workers), by item (15): raise: spawn/tee/eval/0; abort: legacy/tee/train/0;
size-mismatch: legacy/tee/train/2; recovered: static/tee-logdir/checkpoint/2, static/redirects-logdir/checkpoint/2,
spawn/redirects-logdir/shutdown/0; loader-worker: static/redirects-logdir/checkpoint/0,
trun/redirects-logdir/shutdown/0, trun/redirects-logdir/train/0, trun/tee-logdir/init/2,
standalone/tee-logdir/shutdown/0, legacy/tee/init/2, trun/tee/init/2, legacy/tee-filter/train/2; clean:
spawn/tee-logdir/train/2.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t79-trun-2x3-sigkill-rank2-step3-train-w2-record-logging-field-tee                         rank 2, host-oom-kill
    t79-trun-2x3-segfault-rank3-step6-eval-w0-record-norank-filter0                            rank 3, segfault
    t79-static-2x2-raise-rank1-shutdown-w2-print-exc-norank-tee                                rank 1, python-exception
    t79-trun-3x2-abort-rank0-step6-ckpt-rank0-w0-record-deepspeed-filter0                      rank 0, abort
    t79-standalone-1x6-sigbus-rank2-init-w2-print-exc-logging-norank-tee                       rank 2, sigbus
    t79-trun-3x2-never-joins-rank0-w2-print-exc-rank0only-logdir                               rank 0, never-joined
    t79-static-3x2-monitored-barrier-rank2-step3-eval-w2-uncaught-norank-tee                   rank 2, never-joined
    t79-trun-2x3-op-mismatch-rank5-step8-eval-w0-record-lightning-tee                          rank 5, collective-mismatch
    t79-standalone-1x6-size-mismatch-rank4-shutdown-w2-error-rank0only-tee                     rank 4, collective-mismatch
    t79-trun-2x3-restarts1-raise-rank4-step4-ckpt-rank0-w0-exception-logging-norank-redirects  rank 4, python-exception
    t79-trun-2x3-restarts1-recovered-raise-rank3-shutdown-w2-error-lightning-tee               rank 3, python-exception
    t79-trun-2x2-loader-sigbus-rank3-step4-eval-w2-uncaught-rank0only-logdir                   rank 3, sigbus
    t79-standalone-1x6-raise-value-rank1-init-w2-print-exc-logging-paren-tee                   rank 1, python-exception
    t79-trun-2x2-node0-killed-by-rank1-step2-train-w2-error-logging-field-filter1              control (node 0 lost whole)
    t79-trun-3x2-clean-w0-exception-deepspeed-filter0                                          control (clean)
    t79-trun-2x3-config-every-rank-init-w2-error-rank0only-tee                                 control (every rank's ValueError)

The awkward ones kept: THREE faults at shutdown (rank 1's raise under static rendezvous and ``--tee 3``, 2 x 2,
``print-exc``, ``print-norank``, workers 2; the size mismatch of rank 4 under ``--standalone --tee 3``, 1 x 6, the
``error`` handler, ``rank0-only``, workers 2; the recovered run's raise of rank 3 under ``--max-restarts 1 --tee 3``, 2 x
3, the ``error`` handler, ``lightning``, workers 2, the second attempt running clean); TWO at init (rank 2's SIGBUS under
``--standalone --tee 3``, 1 x 6, ``print-exc``, ``logging-norank``, workers 2; rank 1's ``ValueError`` (the drawn
exception) under ``--standalone --tee 3``, 1 x 6, ``print-exc``, ``logging-rank``, workers 2) and every rank's
``ValueError`` control at init too (under ``--tee 3``, 2 x 3, the ``error`` handler, workers 2) and the never-joining rank
0 (3 x 2, ``--tee 3 --log-dir``, ``print-exc``, ``rank0-only``, workers 2; its drawn phase unused: it never calls
``init_process_group``); FOUR in the validation loop (rank 3's segfault at step 6 under ``--tee 3 --local-ranks-filter
0``, 2 x 3, ``@record``, ``print-norank``, the culprit node 1's local rank 0 so its lines kept; the ``monitored_barrier``
late rank 2 at step 3 under static rendezvous and ``--tee 3``, 3 x 2, ``uncaught``, ``print-norank``, workers 2; the op
mismatch of rank 5 at step 8 under ``--tee 3``, 2 x 3, ``@record``, ``lightning``; the DataLoader worker's SIGBUS of
rank 3 at step 4 under ``--tee 3 --log-dir``, 2 x 2, ``uncaught``, ``rank0-only``, workers 2) and the clean control's
drawn phase eval too (3 x 2, ``--tee 3 --local-ranks-filter 0``, the ``exception`` handler, ``deepspeed``); TWO at a
rank-0 checkpoint save (rank 0's SIGABRT at step 6 under ``--tee 3 --local-ranks-filter 0``, 3 x 2, ``@record``,
``deepspeed``, its own lines kept; the every-attempt raise of rank 4 at step 4 under ``--max-restarts 1 --redirects 3
--log-dir``, 2 x 3, the ``exception`` handler, ``logging-norank``, its drawn crash a raise); ONE in
the training loop (rank 2's SIGKILL at step 3 under ``--tee 3``, 2 x 3, ``@record``, ``logging-rank``, workers 2) and the
node-lost control there too (node 0, the rendezvous endpoint's node, lost whole by rank 1 at step 2 under ``--tee 3
--local-ranks-filter 1``, 2 x 2, workers 2, the killer's own lines kept); c10d ``torchrun`` for eight of the thirteen
faults and all three controls, ``--standalone`` for three (rank 2's SIGBUS, the size mismatch, rank 1's ``ValueError``),
static rendezvous for two (the raise at shutdown, the late barrier rank) and ``legacy`` and ``mp.spawn`` for none;
``--local-ranks-filter`` in four rows (two faults, two controls), the culprit's own lines filtered out in none; no
output option in no row (``--tee 3`` in nine, ``--tee 3 --local-ranks-filter`` in four, ``--tee 3 --log-dir`` in two,
``--redirects 3 --log-dir`` in one: the every-attempt raise); rank 0 the culprit in two rows (the SIGABRT, the
never-joining rank); ``num_workers`` 2 in nine of the thirteen fault rows (and in two controls: node 0 lost whole, every
rank's ``ValueError``); a raise as the crash of both restart rows (the every-attempt and the recovered run).
Recorded (session 72, after the truths were committed): every fault fired as drawn in both versions (checked in the node
logs and ``--log-dir`` files: the culprit's signal in the tables ('failed (exitcode: -9/-11/-6/-7) local_rank: N': rank
2's SIGKILL as node 0's local rank 2, rank 3's segfault as node 1's local rank 0 (its own lines kept, 'Fatal Python
error: Segmentation fault'), rank 0's SIGABRT at the rank-0 save ('Fatal Python error: Aborted'), rank 2's SIGBUS at init
under ``--standalone``), its message ('bad batch at step 6: sample 17 has no tokens' of rank 1 at shutdown, rank 1's
'ValueError: batch 17 at step 7 has 7 features per sample; the model expects 8' at init, rank 3's 'DataLoader worker (pid
N) is killed by signal: Bus error.'), or its victims' errors naming it (rank 0's 'Rank 2 failed to pass monitoredBarrier
in 1500 ms' and the others' 'received errors while waiting for send/recv from rank 0', ``Detected mismatch`` with rank
5's ``OpType=ALLGATHER`` and rank 4's ``TensorShape=[5]``, store keys ``/default_pg/0//cpu//0/0`` waited for by ranks
1-5); the every-attempt raise of rank 4 on both attempts (two 'bad batch at step 4' tracebacks in node 1's ``--log-dir``
files, node 1's 'failed (exitcode: 1) local_rank: 1' twice); the recovered raise of rank 3 once ('rank 3: bad batch at
step 3: sample 17 has no tokens', node 1's local rank 0 exit 2, then exit 0 on both agents); node 0 lost whole after
step 1 (exit -9, node 1 exit 1); the clean control exit 0 on all three agents; every rank's ``logger.error`` 'config:
...' line, each agent's exit 2). NO re-recording: every run of both versions fired as drawn at its first recording (one
recorder at a time, while other helpers recorded other sets; 17-89 s a run under 2.13.0, 25-96 s under 2.14.1); the gloo
'Timed out waiting' lines in five runs a version are the victims' waits after the fault, never before it; t61_worker.py
unchanged.
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(79)`` (``draw(replaced)``), its scenarios and command lines under the ``t79``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(79)
