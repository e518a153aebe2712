"""The seventy-eighth set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(78)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, through
``t61.reseeded``), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo on CPU, gloo timeouts of
3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios78 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item              launcher   layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill           trun       2x2    2    5    redirects-logdir 0     error     lightning      slash   segfault memoryerror   checkpoint shards 0 sigkill
    segfault          trun       2x3    3    6    redirects-logdir 2     error     logging-rank   rank=   raise    raise-runtime train      rank0  0 sigkill
    raise             static     2x2    3    2    redirects-logdir 1     error     lightning      RANK    sigkill  keyerror      eval       shards 2 sigkill
    abort             trun       2x2    3    3    none             0     exception rank0-only     slash   segfault raise-runtime eval       rank0  2 sigbus
    sigbus            static     2x2    1    6    tee-logdir       0     exception rank0-only     RANK    sigkill  keyerror      init       shards 0 sigbus
    never-joins       trun       2x3    3    4    redirects-logdir 0     record    print-norank   slash   segfault keyerror      eval       shards 0 sigbus
    monitored-barrier static     2x3    2    8    tee              2     error     rank0-only     rank=   abort    keyerror      checkpoint rank0  0 sigkill
    op-mismatch       static     2x3    0    1    tee-filter       1     uncaught  deepspeed      rank=   sigbus   memoryerror   shutdown   shards 2 sigkill
    size-mismatch     standalone 1x4    2    8    tee-logdir       1     uncaught  logging-rank   rank=   abort    memoryerror   checkpoint shards 2 sigkill
    every-attempt     trun       2x2    3    6    none             0     exception logging-norank field   raise    keyerror      train      shards 0 sigbus
    recovered         trun       2x3    0    3    tee-filter       2     print-exc logging-norank paren   raise    missing-shard checkpoint rank0  2 sigbus
    loader-worker     trun       2x3    2    2    tee-filter       2     uncaught  logging-norank slash   sigkill  raise-value   train      rank0  2 sigkill
    exception         trun       3x2    1    2    tee              1     record    rank0-only     slash   sigkill  raise-value   train      rank0  2 sigbus
    node-killed       trun       2x2    3    1    tee-logdir       0     uncaught  logging-norank slash   sigbus   missing-shard checkpoint shards 0 sigkill
    clean             standalone 1x4    1    1    tee              0     uncaught  rank0-only     RANK    sigbus   raise-runtime shutdown   rank0  2 sigbus
    config-every-rank trun       2x2    2    8    tee-filter       1     exception lightning      field   abort    memoryerror   eval       rank0  0 sigbus

Replaced draws (launcher/option/phase/workers), by item (16): raise: spawn/tee/shutdown/0; sigbus: legacy/tee/init/0;
op-mismatch: spawn/tee-filter/eval/0; every-attempt: spawn/tee/init/2, spawn/tee-filter/checkpoint/2; recovered:
static/none/eval/0, static/tee-filter/checkpoint/2, static/none/checkpoint/2; loader-worker:
trun/tee-filter/checkpoint/2, static/tee/checkpoint/2, trun/redirects-logdir/init/0, trun/redirects-logdir/eval/0,
legacy/tee-logdir/train/2, spawn/tee-filter/eval/2; exception: spawn/tee-filter/init/2, spawn/tee-logdir/checkpoint/2.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t78-trun-2x2-sigkill-rank2-step5-ckpt-shards-w0-error-lightning-redirects                          rank 2, host-oom-kill
    t78-trun-2x3-segfault-rank3-step6-train-w0-error-logging-rank-redirects                            rank 3, segfault
    t78-static-2x2-raise-rank3-step2-eval-w2-error-lightning-redirects                                 rank 3, python-exception
    t78-trun-2x2-abort-rank3-step3-eval-w2-exception-rank0only                                         rank 3, abort
    t78-static-2x2-sigbus-rank1-init-w0-exception-rank0only-logdir                                     rank 1, sigbus
    t78-trun-2x3-never-joins-rank3-w0-record-norank-redirects                                          rank 3, never-joined
    t78-static-2x3-monitored-barrier-rank2-step8-ckpt-rank0-w0-error-rank0only-tee                     rank 2, never-joined
    t78-static-2x3-op-mismatch-rank0-shutdown-w2-uncaught-deepspeed-filter1                            rank 0, collective-mismatch
    t78-standalone-1x4-size-mismatch-rank2-step8-ckpt-shards-w2-uncaught-logging-rank-logdir           rank 2, collective-mismatch
    t78-trun-2x2-restarts1-raise-rank3-step6-train-w0-exception-logging-norank                         rank 3, python-exception
    t78-trun-2x3-restarts1-recovered-raise-rank0-step3-ckpt-rank0-w2-print-exc-logging-norank-filter2  rank 0, python-exception
    t78-trun-2x3-loader-sigkill-rank2-step2-train-w2-uncaught-logging-norank-filter2                   rank 2, host-oom-kill
    t78-trun-3x2-raise-value-rank1-step2-train-w2-record-rank0only-tee                                 rank 1, python-exception
    t78-trun-2x2-node1-killed-by-rank3-step1-ckpt-shards-w0-uncaught-logging-norank-logdir             control (node 1 lost whole)
    t78-standalone-1x4-clean-w2-uncaught-rank0only-tee                                                 control (clean)
    t78-trun-2x2-config-every-rank-step8-eval-w0-exception-lightning-filter1                           control (every rank's ValueError)

The awkward ones kept: FOUR faults under ``--redirects 3 --log-dir`` with nothing of the ranks' own on the consoles
(rank 2's SIGKILL at step 5 in a sharded checkpoint save, 2 x 2, ``logger.error``, ``lightning``; rank 3's segfault at
step 6's training, 2 x 3, ``logger.error``, ``logging-rank``; rank 3's raise (``RuntimeError``, 'bad batch ... sample 17 has
no tokens') at step 2's validation under static rendezvous, 2 x 2, ``logger.error`` (the message
only), workers 2; the never-joining rank 3, 2 x 3, ``@record``, ``print-norank``, its drawn phase unused: it never calls
``init_process_group``); THREE under ``--tee 3 --local-ranks-filter``, the culprit's own lines filtered out in two (the
op mismatch of rank 0, local rank 0 under filter 1, at SHUTDOWN under static rendezvous, 2 x 3, ``uncaught``,
``deepspeed``; the recovered run's raise of rank 0, local rank 0 under filter 2, at step 3's rank-0 checkpoint save
under ``--max-restarts 1``, 2 x 3, ``print-exc``, the second attempt running clean) and kept in one (the DataLoader
worker's SIGKILL of rank 2, local rank 2 under filter 2, at step 2's training, 2 x 3, ``uncaught``), and every rank's
``ValueError`` control under filter 1 too (2 x 2, in eval at step 8); ONE at ``init`` (rank 1's SIGBUS under static
rendezvous and ``--tee 3 --log-dir``, 2 x 2, ``rank0-only``: the ranks' progress lines are rank 0's only); TWO more at a
checkpoint save (the ``monitored_barrier`` late rank 2 at step 8's rank-0 save under static rendezvous and ``--tee 3``,
2 x 3, ``logger.error``; the size mismatch of rank 2 at step 8's sharded save under ``--standalone`` and ``--tee 3
--log-dir``, 1 x 4, ``uncaught``) and the node-lost control at one too (node 1 lost whole by rank 3 at step 1's
sharded save, 2 x 2, ``--tee 3 --log-dir``); the every-attempt run's raise (``RuntimeError``) of rank 3 at step 6 under
``--max-restarts 1`` and no output option, 2 x 2, ``logger.exception``, ``logging-norank``, both attempts failing;
rank 3's SIGABRT at step 3's validation with no output option, 2 x 2, ``rank0-only``, workers 2; rank 1's
``ValueError`` (the drawn exception, ``@record``) at step 2's training under ``--tee 3``, 3 x 2; c10d ``torchrun``
for eight of the thirteen faults and two controls (node lost whole, every rank's ``ValueError``), static rendezvous for
four faults (the raise in eval, the SIGBUS at init, the late barrier rank, the op mismatch), ``--standalone`` for one
fault (the size mismatch) and the clean control; no ``legacy`` and no ``mp.spawn`` row; rank 0 the culprit in two rows
(the op mismatch, the recovered raise), both with their own lines filtered out; ``num_workers`` 2 in seven of the
thirteen fault rows (and in one control: the clean run).

Recorded (session 72, one recorder at a time while another helper recorded the seventy-seventh set, load average about
16 on 2 cores): 2.13.0 16-52 s a run, 2.14.1 30-82 s; every fault fired as drawn in both versions at the first
recording (the culprit's signal in the tables: rank 2's -9, rank 3's -11, rank 1's -7, rank 3's -6; its message:
'rank 3: bad batch at step 2 ...' in the --log-dir files, 'ValueError: batch 17 at step 2 ...', 'DataLoader worker (pid
N) is killed by signal: Killed.', the every-attempt 'RuntimeError: bad batch at step 6' twice; or its victims: 'Rank 2
failed to pass monitoredBarrier in 1500 ms', 'Detected mismatch ... Rank 0 is running collective: ...
OpType=ALLGATHER' and '... Rank 2 ... TensorShape=[5]', store keys ``/default_pg/0//cpu//0/3``; the recovered raise of
the filtered rank 0 by node 0's 'failed (exitcode: 1) local_rank: 0' at step 3's checkpoint barrier, then a clean
second attempt, exit 0; node 1 lost whole, exit -9; the clean control exit 0). Nothing re-recorded; t61_worker.py
unchanged.
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(78)`` (``draw(replaced)``), its scenarios and command lines under the ``t78``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(78)
