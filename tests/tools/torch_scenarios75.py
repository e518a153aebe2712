"""The seventy-fifth set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(75)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, through
``t61.reseeded``), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo on CPU, gloo timeouts of
3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios75 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item              launcher   layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill           spawn      3x2    3    8    none             1     print-exc print-norank   rank=   sigkill  assert        eval       shards 2 sigbus
    segfault          standalone 1x6    0    7    tee-filter       4     record    lightning      RANK    segfault raise-value   train      shards 2 sigkill
    raise             spawn      2x2    2    1    none             0     print-exc logging-norank RANK    sigkill  raise-runtime checkpoint rank0  2 sigbus
    abort             trun       3x2    3    5    tee-logdir       0     error     rank0-only     field   sigkill  assert        eval       shards 2 sigkill
    sigbus            trun       3x2    4    8    none             1     uncaught  lightning      rank=   segfault assert        eval       shards 2 sigbus
    never-joins       trun       2x3    2    6    tee-filter       2     record    logging-norank field   raise    missing-shard checkpoint shards 0 sigbus
    monitored-barrier static     3x2    2    7    tee-filter       0     print-exc deepspeed      RANK    sigbus   raise-runtime checkpoint shards 0 sigbus
    op-mismatch       spawn      2x2    1    4    none             1     record    logging-norank slash   segfault raise-runtime checkpoint shards 0 sigbus
    size-mismatch     trun       2x2    2    4    tee-logdir       1     record    rank0-only     paren   segfault missing-shard train      shards 0 sigbus
    every-attempt     trun       2x2    0    6    tee-filter       1     print-exc rank0-only     RANK    raise    raise-value   shutdown   shards 2 sigkill
    recovered         trun       2x3    2    5    none             0     exception rank0-only     RANK    raise    raise-value   shutdown   rank0  0 sigbus
    loader-worker     static     2x2    0    2    tee-logdir       0     error     print-norank   RANK    raise    memoryerror   eval       rank0  2 sigkill
    exception         trun       2x2    2    7    none             1     error     logging-norank rank=   sigbus   keyerror      init       shards 0 sigbus
    node-killed       trun       2x2    1    2    redirects-logdir 0     print-exc lightning      paren   sigkill  raise-runtime train      shards 0 sigkill
    clean             standalone 1x4    3    1    tee              2     print-exc logging-rank   RANK    abort    assert        eval       shards 0 sigbus
    config-every-rank trun       2x3    0    7    none             1     error     deepspeed      RANK    sigkill  missing-shard checkpoint rank0  2 sigkill

Replaced draws (launcher/option/phase/workers), by item (7): loader-worker (6): static/tee-filter/eval/0,
trun/redirects-logdir/init/0, trun/tee/init/0, trun/tee/init/2, standalone/redirects-logdir/shutdown/0,
trun/redirects-logdir/shutdown/0; clean (1): spawn/tee-filter/eval/0.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t75-spawn-3x2-sigkill-rank3-step8-eval-w2-print-exc-norank                              rank 3, host-oom-kill
    t75-standalone-1x6-segfault-rank0-step7-train-w2-record-lightning-filter4               rank 0, segfault
    t75-spawn-2x2-raise-rank2-step1-ckpt-rank0-w2-print-exc-logging-norank                  rank 2, python-exception
    t75-trun-3x2-abort-rank3-step5-eval-w2-error-rank0only-logdir                           rank 3, abort
    t75-trun-3x2-sigbus-rank4-step8-eval-w2-uncaught-lightning                              rank 4, sigbus
    t75-trun-2x3-never-joins-rank2-w0-record-logging-norank-filter2                         rank 2, never-joined
    t75-static-3x2-monitored-barrier-rank2-step7-ckpt-shards-w0-print-exc-deepspeed-filter0 rank 2, never-joined
    t75-spawn-2x2-op-mismatch-rank1-step4-ckpt-shards-w0-record-logging-norank              rank 1, collective-mismatch
    t75-trun-2x2-size-mismatch-rank2-step4-train-w0-record-rank0only-logdir                 rank 2, collective-mismatch
    t75-trun-2x2-restarts1-raise-rank0-shutdown-w2-print-exc-rank0only-filter1              rank 0, python-exception
    t75-trun-2x3-restarts1-recovered-raise-rank2-shutdown-w0-exception-rank0only            rank 2, python-exception
    t75-static-2x2-loader-sigkill-rank0-step2-eval-w2-error-norank-logdir                   rank 0, host-oom-kill
    t75-trun-2x2-keyerror-rank2-init-w0-error-logging-norank                                rank 2, python-exception
    t75-trun-2x2-node0-killed-by-rank1-step2-train-w0-print-exc-lightning-redirects         control (node 0 lost whole)
    t75-standalone-1x4-clean-w0-print-exc-logging-RANK-tee                                  control (clean)
    t75-trun-2x3-config-every-rank-step7-ckpt-rank0-w2-error-deepspeed                      control (every rank's ValueError)

The awkward ones kept: ``mp.spawn`` drawn for THREE rows (rank 3's SIGKILL at step 8 in eval, 3 x 2, DataLoader
workers 2, ``print-norank``; rank 2's ``print-exc`` raise at step 1 in a rank-0 checkpoint save, 2 x 2, the worker's
style ``logging-norank``; the op mismatch of rank 1 at step 4 in a sharded checkpoint save under ``@record``); ONE
fault at ``init`` (rank 2's ``KeyError`` under ``error``, 2 x 2, caught ``exception`` item); TWO at shutdown, both
under ``--max-restarts 1`` and both python raises (the every-attempt raise of rank 0, the store's host, under ``--tee
3 --local-ranks-filter 1``, its own lines filtered out, both attempts failing; the recovered run's raise of rank 2
under ``rank0-only``, 2 x 3, the second attempt running clean); FOUR in the validation loop (rank 3's SIGKILL under
``mp.spawn``; rank 3's SIGABRT at step 5 under ``--tee 3 --log-dir``, ``rank0-only``, 3 x 2; rank 4's SIGBUS at step 8,
3 x 2, ``lightning``; the DataLoader worker's SIGKILL of rank 0 at step 2 under static rendezvous and ``--tee 3
--log-dir``, the store's host the culprit); TWO in the training loop (rank 0's segfault at step 7 under
``--standalone``, 1 x 6, ``--tee 3 --local-ranks-filter 4``, the culprit's lines filtered out; the DETAIL size mismatch
of rank 2 at step 4 under ``--tee 3 --log-dir``, ``rank0-only``; and there the node-lost control, node 0 lost whole by
rank 1 at step 2 under ``--redirects 3 --log-dir``, the store's node gone); THREE at a checkpoint save (the
``mp.spawn`` raise and op mismatch; the ``monitored_barrier`` late rank 2 at step 7 under static rendezvous, 3 x 2, ``--tee 3
--local-ranks-filter 0``); the never-joining rank 2 under ``--tee 3 --local-ranks-filter 2``, 2 x 3; ``legacy`` not
drawn, ``--standalone`` for two (the segfault, the clean control), static rendezvous for two (the late barrier rank,
the loader worker); rank 0 the culprit in THREE rows (the segfault, the every-attempt raise, the loader worker);
``num_workers`` 2 in seven of the thirteen fault rows (and in one control: every rank's ``ValueError``).
Recorded (session 71, after the truths were committed, the machine heavily loaded by other helpers' tests, load
average about 43 on 2 cores): 2.13.0's 16 runs fired as drawn at the first recording; in 2.14.1 two runs did not and
were re-recorded (only those, t61_worker.py and the draw unchanged): the ``mp.spawn`` SIGKILL (first recording: node
0's rank 0 'DistStoreError: wait timeout after 3000ms, keys: /default_pg/0//cpu//0/0' and node 2's 'client socket
has timed out after 3000ms' at init, no step run: re-recorded once, every rank through step 8, rank 3 silent after it,
its peers' gloo send/recv timeouts) and the ``mp.spawn`` op mismatch (the first two recordings failed at DETAIL's first
wrapped collective, 'Monitored Barrier encountered error running collective: CollectiveFingerPrint(SequenceNumber=0,
OpType=ALLREDUCE, ...)' before step 0: re-recorded twice, the third recording 'Detected mismatch between collectives
on ranks. Rank 1 ... Rank 3' as in 2.13.0). Checked in the node logs and ``--log-dir`` files: the culprit's signal in
the tables (-11, -6, -7), its message ('bad batch', ``'labels'``, the loader's 'DataLoader worker ... exited
unexpectedly'), its victims' ``monitoredBarrier``, ``Detected mismatch``, store-key (``keys: /default_pg/0//cpu//0/2``)
or gloo timeouts; the ``mp.spawn`` SIGKILL's rank 3 without a line after step 8 (its spawner reports a victim's exit 1
first, likely as its forked DataLoader workers hold its sentinel); the every-attempt raise on both attempts ('failed
(exitcode: 1) local_rank: 0' twice a node), the recovered raise once (exit 0); node 0 killed whole at step 2 (exit -9);
every rank's ``ValueError`` line; the clean run's four 'training done'. Nothing in the draw or the truths changed.
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(75)`` (``draw(replaced)``), its scenarios and command lines under the ``t75``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(75)
