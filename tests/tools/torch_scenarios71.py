"""The seventy-first set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(71)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, through
``torch_scenarios61.reseeded``), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo on CPU, gloo
timeouts of 3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios71 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item               launcher    layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill            static      3x2    4    1    tee-logdir       0     error     logging-norank field   segfault keyerror      init       rank0  0 sigbus
    segfault           spawn       2x2    2    3    none             1     uncaught  print-norank   slash   sigbus   raise-value   train      shards 2 sigbus
    raise              trun        3x2    0    4    tee-filter       0     error     logging-rank   paren   raise    assert        shutdown   rank0  2 sigbus
    abort              trun        2x3    0    2    none             0     exception logging-norank RANK    abort    missing-shard checkpoint shards 2 sigkill
    sigbus             trun        2x3    4    4    tee              2     record    rank0-only     paren   raise    assert        init       shards 0 sigkill
    never-joins        trun        2x2    3    6    tee-filter       1     error     logging-norank RANK    sigkill  missing-shard shutdown   shards 0 sigkill
    monitored-barrier  trun        2x2    3    5    redirects-logdir 1     print-exc logging-norank slash   sigbus   memoryerror   eval       shards 2 sigkill
    op-mismatch        trun        2x3    3    6    redirects-logdir 2     print-exc logging-norank paren   sigkill  keyerror      checkpoint shards 0 sigbus
    size-mismatch      spawn       3x2    0    1    none             1     record    print-norank   rank=   raise    keyerror      eval       rank0  2 sigbus
    every-attempt      standalone  1x4    3    5    none             0     print-exc rank0-only     paren   sigbus   assert        shutdown   rank0  2 sigkill
    recovered          trun        3x2    5    7    tee-filter       1     exception deepspeed      rank=   abort    keyerror      shutdown   shards 2 sigbus
    loader-worker      trun        3x2    2    8    redirects-logdir 1     uncaught  deepspeed      slash   sigkill  raise-runtime train      rank0  2 sigbus
    exception          static      2x3    4    5    tee              1     print-exc print-norank   rank=   sigkill  assert        eval       rank0  2 sigbus
    node-killed        trun        3x2    0    1    tee-logdir       0     uncaught  print-norank   slash   sigbus   missing-shard checkpoint rank0  0 sigbus
    clean              trun        2x3    5    7    tee              0     print-exc print-norank   slash   segfault raise-value   init       rank0  0 sigbus
    config-every-rank  legacy      3x2    4    4    none             0     print-exc logging-rank   slash   sigbus   raise-runtime init       rank0  0 sigbus

Replaced draws (launcher/option/phase/workers), by item (10): op-mismatch: legacy/tee-filter/eval/2,
spawn/tee-filter/shutdown/2; size-mismatch: spawn/redirects-logdir/shutdown/0, spawn/tee/train/0; recovered:
static/tee-logdir/init/0; loader-worker: standalone/tee/shutdown/0, legacy/tee/init/2, trun/tee-filter/shutdown/0,
spawn/tee-filter/train/0; clean: legacy/redirects-logdir/init/0.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t71-static-3x2-sigkill-rank4-init-w0-error-logging-norank-logdir                        rank 4, host-oom-kill
    t71-spawn-2x2-segfault-rank2-step3-train-w2-uncaught-norank                             rank 2, segfault
    t71-trun-3x2-raise-rank0-shutdown-w2-error-logging-paren-filter0                        rank 0, python-exception
    t71-trun-2x3-abort-rank0-step2-ckpt-shards-w2-exception-logging-norank                  rank 0, abort
    t71-trun-2x3-sigbus-rank4-init-w0-record-rank0only-tee                                  rank 4, sigbus
    t71-trun-2x2-never-joins-rank3-w0-error-logging-norank-filter1                          rank 3, never-joined
    t71-trun-2x2-monitored-barrier-rank3-step5-eval-w2-print-exc-logging-norank-redirects   rank 3, never-joined
    t71-trun-2x3-op-mismatch-rank3-step6-ckpt-shards-w0-print-exc-logging-norank-redirects  rank 3, collective-mismatch
    t71-spawn-3x2-size-mismatch-rank0-step1-eval-w2-record-norank                           rank 0, collective-mismatch
    t71-standalone-1x4-restarts1-sigbus-rank3-shutdown-w2-print-exc-rank0only               rank 3, sigbus
    t71-trun-3x2-restarts1-recovered-abort-rank5-shutdown-w2-exception-deepspeed-filter1    rank 5, abort
    t71-trun-3x2-loader-sigbus-rank2-step8-train-w2-uncaught-deepspeed-redirects            rank 2, sigbus
    t71-static-2x3-assert-rank4-step5-eval-w2-print-exc-norank-tee                          rank 4, python-exception
    t71-trun-3x2-node0-killed-by-rank0-step1-ckpt-rank0-w0-uncaught-norank-logdir           control (node 0 lost whole)
    t71-trun-2x3-clean-w0-print-exc-norank-tee                                              control (clean)
    t71-legacy-3x2-config-every-rank-init-w0-print-exc-logging-slash                        control (every rank's ValueError)

The awkward ones kept: ``mp.spawn`` for TWO faults (rank 2's segfault at step 3's training step, 2 x 2, uncaught,
DataLoader workers 2; the DETAIL size mismatch of rank 0 in step 1's validation, 3 x 2, ``@record``) and legacy
``torch.distributed.launch`` for one control (every rank's configuration ``ValueError`` at init, 3 x 2); static
rendezvous for two (rank 4's SIGKILL at init under ``--tee 3 --log-dir`` and the ``error`` handler, 3 x 2; rank 4's
caught ``AssertionError`` in step 5's validation under ``--tee 3`` and ``print_exc``, 2 x 3); TWO faults at ``init``
(that SIGKILL; rank 4's SIGBUS under ``@record`` and ``rank0-only``, ``--tee 3``, 2 x 3); THREE at shutdown (rank 0's
raise under the ``error`` handler, ``--tee 3`` filtered to local rank 0, 3 x 2; the every-attempt SIGBUS of rank 3 under
``--standalone`` 1 x 4, ``rank0-only``; the recovered run's abort of rank 5, 3 x 2, ``--tee 3`` filtered to local rank
1); ``--redirects 3 --log-dir`` for three (the ``monitored_barrier`` late rank 3 in step 5's validation, 2 x 2; the
DETAIL op mismatch of rank 3 at step 6's shard save, 2 x 3; the DataLoader worker's SIGBUS of rank 2 at step 8 of the
training loop, 3 x 2, uncaught), all three under handlers that print (``print_exc`` or uncaught); node 0 (the store's
host) lost whole by rank 0 at step 1's rank-0 checkpoint save under ``--tee 3 --log-dir``; the never-joining rank 3
under a filter of local rank 1 (its own) and the ``error`` handler; rank 0 the culprit in three rows (the shutdown raise,
the abort at step 2's shard save, the size mismatch under ``mp.spawn``); ``num_workers`` 2 in nine of the thirteen fault
rows (no control).

Recorded (session 70, after the truths were committed): every fault fired in both versions (checked in the node logs
and ``--log-dir`` files: the culprit's signal in the tables or the spawner's 'terminated with signal', its message, or
its victims' ``monitoredBarrier``, ``Detected mismatch`` or gloo errors naming it; the every-attempt SIGBUS twice, the
recovered run's abort once, exit 0). ONE re-recording, for the environment: 2.14.1's
t71-trun-2x2-monitored-barrier-rank3-step5-eval-w2-print-exc-logging-norank-redirects first broke at init under load
(load average near 30: node 0's rank 0 'Gloo connectFullMesh failed ... timed out connecting: SO_ERROR: Connection
refused', rank 1 'DistStoreError: wait timeout after 3000ms', node 1's agent then lost the c10d store; no step ran, the
fault never reached), recorded again at once (the fault fired: rank 0's 'Rank 3 failed to pass monitoredBarrier').
t61_worker.py unchanged. Nothing in the draw or the truths changed.
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(71)`` (``draw(replaced)``), its scenarios and command lines under the ``t71``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(71)
