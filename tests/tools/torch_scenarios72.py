"""The seventy-second set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(72)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, through
``t61.reseeded``), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo on CPU, gloo timeouts of
3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios72 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item              launcher   layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill           trun       3x2    5    3    tee-logdir       1     print-exc lightning      paren   segfault memoryerror   eval       rank0  2 sigkill
    segfault          trun       3x2    1    8    none             1     exception logging-norank field   sigbus   assert        init       shards 2 sigbus
    raise             static     2x3    1    6    redirects-logdir 2     error     logging-norank paren   abort    memoryerror   train      shards 2 sigbus
    abort             trun       2x3    1    1    none             1     record    print-norank   slash   sigkill  raise-value   eval       rank0  2 sigbus
    sigbus            trun       3x2    4    8    tee-filter       1     error     print-norank   slash   sigbus   memoryerror   init       shards 2 sigbus
    never-joins       trun       2x3    0    6    tee-logdir       1     uncaught  logging-rank   rank=   sigkill  memoryerror   checkpoint rank0  2 sigbus
    monitored-barrier trun       2x3    0    4    tee-filter       2     record    logging-norank slash   sigkill  keyerror      train      shards 0 sigbus
    op-mismatch       trun       2x2    0    7    none             0     exception logging-norank paren   sigbus   memoryerror   eval       shards 0 sigkill
    size-mismatch     trun       3x2    0    4    tee-logdir       1     exception lightning      field   raise    raise-value   train      rank0  0 sigkill
    every-attempt     standalone 1x4    2    8    tee              0     exception logging-rank   slash   abort    assert        eval       rank0  2 sigbus
    recovered         trun       3x2    5    2    tee-logdir       0     print-exc logging-norank rank=   sigbus   memoryerror   init       rank0  2 sigbus
    loader-worker     trun       2x3    4    5    tee-filter       2     record    logging-rank   slash   sigbus   keyerror      train      rank0  2 sigbus
    exception         legacy     2x3    5    3    none             0     error     print-norank   RANK    sigkill  raise-value   checkpoint shards 2 sigbus
    node-killed       static     2x3    0    3    redirects-logdir 0     exception lightning      slash   raise    memoryerror   init       shards 2 sigkill
    clean             trun       3x2    4    1    none             0     uncaught  logging-rank   paren   raise    raise-value   eval       shards 0 sigkill
    config-every-rank trun       2x3    4    1    tee-filter       0     record    lightning      slash   raise    missing-shard eval       rank0  0 sigkill

Replaced draws (launcher/option/phase/workers), by item (11): never-joins: spawn/tee-logdir/init/0,
spawn/tee/shutdown/0; every-attempt: static/none/checkpoint/2, legacy/tee-filter/init/2; loader-worker:
standalone/tee-filter/train/0, standalone/tee/shutdown/0, static/tee/checkpoint/0, trun/redirects-logdir/checkpoint/2,
trun/tee-filter/train/0, trun/tee/checkpoint/0; clean: legacy/redirects-logdir/shutdown/0.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t72-trun-3x2-sigkill-rank5-step3-eval-w2-print-exc-lightning-logdir                    rank 5, host-oom-kill
    t72-trun-3x2-segfault-rank1-init-w2-exception-logging-norank                           rank 1, segfault
    t72-static-2x3-raise-rank1-step6-train-w2-error-logging-norank-redirects               rank 1, python-exception
    t72-trun-2x3-abort-rank1-step1-eval-w2-record-norank                                   rank 1, abort
    t72-trun-3x2-sigbus-rank4-init-w2-error-norank-filter1                                 rank 4, sigbus
    t72-trun-2x3-never-joins-rank0-w2-uncaught-logging-rank-logdir                         rank 0, never-joined
    t72-trun-2x3-monitored-barrier-rank0-step4-train-w0-record-logging-norank-filter2      rank 0, never-joined
    t72-trun-2x2-op-mismatch-rank0-step7-eval-w0-exception-logging-norank                  rank 0, collective-mismatch
    t72-trun-3x2-size-mismatch-rank0-step4-train-w0-exception-lightning-logdir             rank 0, collective-mismatch
    t72-standalone-1x4-restarts1-abort-rank2-step8-eval-w2-exception-logging-slash-tee     rank 2, abort
    t72-trun-3x2-restarts1-recovered-sigbus-rank5-init-w2-print-exc-logging-norank-logdir  rank 5, sigbus
    t72-trun-2x3-loader-sigbus-rank4-step5-train-w2-record-logging-slash-filter2           rank 4, sigbus
    t72-legacy-2x3-raise-value-rank5-step3-ckpt-shards-w2-error-norank                     rank 5, python-exception
    t72-static-2x3-node0-killed-by-rank0-init-w2-exception-lightning-redirects             control (node 0 lost whole)
    t72-trun-3x2-clean-w0-uncaught-logging-paren                                           control (clean)
    t72-trun-2x3-config-every-rank-step1-eval-w0-record-lightning-filter0                  control (every rank's ValueError)

The awkward ones kept: THREE rows at ``init`` (rank 1's segfault, 3 x 2, no output option, DataLoader workers 2; rank
4's SIGBUS under ``--tee 3 --local-ranks-filter 1``, 3 x 2, the culprit local rank 0 so its own lines
filtered out; the recovered run's SIGBUS of rank 5 under ``--max-restarts 1 --tee 3 --log-dir``, 3 x 2) and the
node-lost control at ``init`` too (node 0, the store's host, lost whole by rank 0, static rendezvous under
``--redirects 3 --log-dir``); FOUR in the validation loop (rank 5's SIGKILL at step 3 under ``--tee 3 --log-dir``, 3 x
2; rank 1's SIGABRT at step 1 under ``@record``; the op mismatch of rank 0 at step 7; the every-attempt SIGABRT of rank
2 at step 8 under ``--standalone --max-restarts 1 --tee 3``, 1 x 4, both attempts failing); FOUR in the training loop
(rank 1's ``error`` raise at step 6, static rendezvous under ``--redirects 3 --log-dir``; the ``monitored_barrier``
late rank 0 under a filter of local rank 2, its own lines filtered out; the DETAIL size mismatch of rank 0 at step 4
under ``--tee 3 --log-dir``, 3 x 2; the DataLoader worker's SIGBUS of rank 4 at step 5 under a filter of local rank 2,
2 x 3, the culprit local rank 1 so its lines filtered out); ONE at a shard save (``legacy`` ``torch.distributed.launch``
drawn for the caught ``ValueError`` of rank 5 at step 3, 2 x 3); the culprit's own lines filtered out in THREE rows
(the SIGBUS at init, the late barrier rank, the loader worker); rank 0 the culprit in four rows (the never-joining
rank, the late barrier rank, the op mismatch, the size mismatch); ``--standalone`` for one (the every-attempt abort),
static rendezvous for two (the raise, the node lost), ``legacy`` for one, ``mp.spawn`` not drawn (its two draws
replaced, as were legacy's two others); ``num_workers`` 2 in ten of the thirteen fault rows (and in one control: the
node lost).

Recorded (session 70, after the truths were committed): every fault fired in both versions (checked in the node logs
and ``--log-dir`` files: the culprit's signal in the tables, its message, or its victims' ``monitoredBarrier``,
``Detected mismatch``, store-key or gloo errors naming it; the every-attempt SIGABRT twice, the recovered run's SIGBUS
once). One re-recording, for the environment: 2.14.1's t72-trun-3x2-sigkill-rank5-step3-eval-w2-print-exc-lightning-logdir
first broke at init under load (every rank of nodes 0 and 1 'Gloo connectFullMesh failed ... timed out connecting:
SO_ERROR: Connection refused' / 'Connection closed by peer' within 3 s of starting, before step 0, so rank 5's SIGKILL
never came); recorded again at once, it fired (rank 5 exitcode -9 at step 3). t61_worker.py unchanged. Nothing in the
draw or the truths changed.
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(72)`` (``draw(replaced)``), its scenarios and command lines under the ``t72``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(72)
