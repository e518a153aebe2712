"""The seventy-sixth set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(76)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, through
``t61.reseeded``), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo on CPU, gloo timeouts of
3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios76 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item              launcher   layout rank step option           local handler   style        rankfmt crash    exception     phase      ckpt   w lsig
    sigkill           static     2x3    3    4    tee-logdir       0     record    logging-rank rank=   raise    missing-shard checkpoint rank0  0 sigbus
    segfault          standalone 1x4    2    1    none             3     uncaught  deepspeed    slash   segfault assert        shutdown   shards 0 sigkill
    raise             legacy     2x2    0    4    none             1     uncaught  print-norank paren   sigkill  raise-runtime init       rank0  2 sigbus
    abort             trun       3x2    4    7    redirects-logdir 1     error     print-norank paren   abort    missing-shard train      shards 2 sigbus
    sigbus            trun       3x2    4    3    tee-filter       0     error     deepspeed    field   sigbus   keyerror      init       rank0  0 sigbus
    never-joins       trun       3x2    0    1    tee-logdir       1     exception print-norank slash   sigkill  raise-runtime eval       shards 2 sigbus
    monitored-barrier spawn      2x3    4    6    none             1     record    lightning    paren   sigkill  raise-value   eval       rank0  0 sigbus
    op-mismatch       trun       2x3    2    5    tee              2     print-exc lightning    slash   sigbus   raise-runtime train      shards 2 sigbus
    size-mismatch     trun       2x2    3    5    redirects-logdir 1     exception print-norank RANK    segfault assert        train      shards 2 sigbus
    every-attempt     trun       2x2    3    5    tee              1     record    lightning    rank=   segfault raise-value   init       rank0  2 sigkill
    recovered         trun       2x2    2    3    redirects-logdir 1     error     lightning    field   raise    assert        shutdown   rank0  2 sigbus
    loader-worker     static     2x3    2    7    tee-filter       1     print-exc deepspeed    slash   segfault missing-shard eval       rank0  2 sigbus
    exception         trun       3x2    4    3    redirects-logdir 1     exception lightning    RANK    sigkill  assert        init       rank0  2 sigbus
    node-killed       static     2x2    2    3    tee-logdir       1     print-exc logging-rank paren   segfault raise-value   eval       rank0  0 sigbus
    clean             trun       2x3    0    7    none             2     exception rank0-only   paren   segfault raise-runtime eval       rank0  2 sigkill
    config-every-rank trun       2x3    1    8    tee-filter       0     record    print-norank RANK    abort    missing-shard shutdown   shards 2 sigkill

Replaced draws (launcher/option/phase/workers), by item (11): never-joins: legacy/tee/train/2; recovered:
legacy/redirects-logdir/train/0; loader-worker: trun/tee-filter/shutdown/0, spawn/none/checkpoint/2,
static/none/checkpoint/0, trun/none/checkpoint/2, spawn/tee/eval/2, trun/tee-filter/train/0,
trun/redirects-logdir/shutdown/0; node-killed: legacy/tee-filter/shutdown/2; clean: spawn/tee/init/0.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t76-static-2x3-sigkill-rank3-step4-ckpt-rank0-w0-record-logging-rank-logdir         rank 3, host-oom-kill
    t76-standalone-1x4-segfault-rank2-shutdown-w0-uncaught-deepspeed                    rank 2, segfault
    t76-legacy-2x2-raise-rank0-init-w2-uncaught-norank                                  rank 0, python-exception
    t76-trun-3x2-abort-rank4-step7-train-w2-error-norank-redirects                      rank 4, abort
    t76-trun-3x2-sigbus-rank4-init-w0-error-deepspeed-filter0                           rank 4, sigbus
    t76-trun-3x2-never-joins-rank0-w2-exception-norank-logdir                           rank 0, never-joined
    t76-spawn-2x3-monitored-barrier-rank4-step6-eval-w0-record-lightning                rank 4, never-joined
    t76-trun-2x3-op-mismatch-rank2-step5-train-w2-print-exc-lightning-tee               rank 2, collective-mismatch
    t76-trun-2x2-size-mismatch-rank3-step5-train-w2-exception-norank-redirects          rank 3, collective-mismatch
    t76-trun-2x2-restarts1-segfault-rank3-init-w2-record-lightning-tee                  rank 3, segfault
    t76-trun-2x2-restarts1-recovered-raise-rank2-shutdown-w2-error-lightning-redirects  rank 2, python-exception
    t76-static-2x3-loader-sigbus-rank2-step7-eval-w2-print-exc-deepspeed-filter1        rank 2, sigbus
    t76-trun-3x2-assert-rank4-init-w2-exception-lightning-redirects                     rank 4, python-exception
    t76-static-2x2-node1-killed-by-rank2-step3-eval-w0-print-exc-logging-paren-logdir   control (node 1 lost whole)
    t76-trun-2x3-clean-w2-exception-rank0only                                           control (clean)
    t76-trun-2x3-config-every-rank-shutdown-w2-record-norank-filter0                    control (every rank's ValueError)

The awkward ones kept: FOUR faults at ``init`` (rank 0's raise under ``legacy`` (``torch.distributed.launch``), 2 x 2,
no output option, ``uncaught``, ``print-norank``, workers 2; rank 4's SIGBUS under ``--tee 3 --local-ranks-filter 0``, 3
x 2, the culprit node 2's local rank 0 so its lines kept; the every-attempt segfault of rank 3 under ``--max-restarts 1
--tee 3``, 2 x 2, both attempts failing, workers 2; rank 4's ``AssertionError`` (the drawn exception, the ``exception``
handler) under ``--redirects 3 --log-dir``, 3 x 2, ``lightning``, workers 2) and the never-joining rank 0 (under ``--tee
3 --log-dir``, 3 x 2, ``print-norank``; its drawn phase unused: it never calls ``init_process_group``); TWO at shutdown
(rank 2's segfault under ``--standalone``, 1 x 4, no output option, ``uncaught``, ``deepspeed``; the recovered run's
raise of rank 2 under ``--max-restarts 1 --redirects 3 --log-dir``, 2 x 2, the second attempt running clean) and every
rank's ``ValueError`` control at shutdown too (under ``--tee 3 --local-ranks-filter 0``, 2 x 3); TWO in the validation
loop (the ``monitored_barrier`` late rank 4 at step 6 under ``mp.spawn``, 2 x 3, ``@record``, ``lightning``; the
DataLoader worker's SIGBUS of rank 2 at step 7 under static rendezvous and ``--tee 3 --local-ranks-filter 1``, 2 x 3,
the culprit's local rank 2 so its own lines filtered out) and the node-lost control in eval too (node 1 lost whole by
rank 2 under static rendezvous and ``--tee 3 --log-dir``, 2 x 2); THREE in the training loop (rank 4's SIGABRT at step 7
under ``--redirects 3 --log-dir``, 3 x 2, workers 2; the op mismatch of rank 2 at step 5 under ``--tee 3``, 2 x 3,
``print-exc``, ``lightning``; the size mismatch of rank 3 at step 5 under ``--redirects 3 --log-dir``, 2 x 2,
``exception``, ``print-norank``); ONE at a checkpoint save (rank 3's SIGKILL at step 4 at the rank-0 save under static
rendezvous and ``--tee 3 --log-dir``, 2 x 3, ``@record``, ``logging-rank``); c10d ``torchrun`` for eight of the thirteen
faults, static rendezvous for two (the SIGKILL, the DataLoader worker's SIGBUS) and one control (node lost whole),
``--standalone`` for one (the segfault), ``legacy`` for one (the raise at init) and ``mp.spawn`` for one (the late
barrier rank); ``--local-ranks-filter`` in three rows, the culprit's own lines filtered out in one (the DataLoader
worker's SIGBUS); no output option in four rows (the ``legacy`` raise, the ``--standalone`` segfault, the ``mp.spawn``
late rank, the clean control); rank 0 the culprit in two rows (the ``legacy`` raise, the never-joining rank);
``num_workers`` 2 in nine of the thirteen fault rows (and in two controls: the clean run, every rank's ``ValueError``).

Recorded (session 71, after the truths were committed): every fault fired as drawn in both versions (checked in the node
logs and ``--log-dir`` files: the culprit's signal in the tables ('failed (exitcode: -9/-11/-6/-7) local_rank: N', rank
3's SIGKILL as node 1's local rank 0, rank 4's SIGABRT and SIGBUS as node 2's local rank 0), its message ('bad batch at
step 4/3', 'AssertionError: expected 4 samples in the batch at step 3, got 3'), or its victims' errors naming it ('Rank
4 failed to pass monitoredBarrier in 1500 ms', ``Detected mismatch`` with rank 2's ``OpType=ALLGATHER`` and rank 3's
``TensorShape=[5]``, store keys ``/default_pg/0//cpu//0/0``); the filtered DataLoader worker SIGBUS of rank 2 shown by
its table only (rank 2, local rank 2, exit 1 'first observed', its lines filtered out); the every-attempt segfault twice
('failed (exitcode: -11) local_rank: 1' in each attempt); the recovered run's raise once (exit 2, then exit 0 on both
agents); node 1 lost whole, exit -9; every rank's ``ValueError``). TWO re-recordings, each of one run only, each after a
failure under load while another helper recorded another set: 2.13.0's clean control
(t76-trun-2x3-clean-w2-exception-rank0only) failed at its first recording with gloo 'Timed out waiting 3000ms for
recv/send operation to complete' on every rank (exit 1 on both agents); re-recorded alone it ran clean (exit 0 on both
agents); 2.14.1's late barrier rank (t76-spawn-2x3-monitored-barrier-rank4-step6-eval-w0-record-lightning) failed at its
first recording before the fault, in ``DDP(model)``'s ``_verify_params_across_processes`` ('Connection closed by peer',
no barrier reached); re-recorded alone, rank 0 said 'Rank 4 failed to pass monitoredBarrier in 1500 ms'. Nothing else
re-recorded; t61_worker.py unchanged. Nothing in the draw or the truths changed. 32 runs, node logs up to 19 KB, 25-71 s
a run.
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(76)`` (``draw(replaced)``), its scenarios and command lines under the ``t76``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(76)
