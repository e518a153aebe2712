"""The seventy-fourth set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(74)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, through
``t61.reseeded``), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo on CPU, gloo timeouts of
3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios74 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item              launcher   layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill           trun       2x3    0    5    tee              0     print-exc print-norank   slash   abort    keyerror      eval       shards 0 sigbus
    segfault          standalone 1x6    4    1    tee-filter       0     error     logging-rank   slash   segfault keyerror      checkpoint rank0  2 sigbus
    raise             trun       2x3    1    4    tee-logdir       2     exception logging-norank paren   raise    keyerror      eval       shards 0 sigbus
    abort             trun       2x2    1    6    redirects-logdir 0     print-exc print-norank   field   sigbus   missing-shard train      rank0  2 sigbus
    sigbus            trun       2x2    3    2    tee-logdir       1     exception rank0-only     field   segfault raise-value   checkpoint shards 0 sigbus
    never-joins       trun       3x2    2    5    redirects-logdir 1     error     deepspeed      paren   segfault raise-value   eval       rank0  0 sigbus
    monitored-barrier standalone 1x4    2    3    tee-filter       3     error     rank0-only     field   sigbus   raise-value   init       shards 0 sigkill
    op-mismatch       trun       2x2    1    7    tee-filter       0     exception rank0-only     RANK    abort    memoryerror   train      rank0  0 sigkill
    size-mismatch     trun       3x2    3    2    tee-filter       1     uncaught  logging-norank rank=   raise    memoryerror   shutdown   shards 2 sigkill
    every-attempt     trun       2x2    2    8    tee-filter       0     error     rank0-only     field   segfault missing-shard init       rank0  2 sigbus
    recovered         trun       2x3    3    7    redirects-logdir 0     uncaught  rank0-only     slash   raise    raise-value   eval       shards 2 sigbus
    loader-worker     trun       2x2    1    1    tee-filter       1     record    logging-rank   field   raise    missing-shard train      shards 2 sigbus
    exception         static     2x2    3    4    redirects-logdir 0     error     lightning      slash   sigbus   raise-value   train      rank0  0 sigkill
    node-killed       static     3x2    1    8    tee              0     print-exc print-norank   rank=   abort    assert        shutdown   shards 0 sigbus
    clean             static     2x2    1    6    none             1     error     rank0-only     RANK    sigkill  memoryerror   train      rank0  0 sigkill
    config-every-rank static     2x3    3    2    tee              0     exception logging-norank field   abort    raise-value   checkpoint shards 2 sigkill

Replaced draws (launcher/option/phase/workers), by item (11): raise: legacy/tee-filter/init/2,
legacy/redirects-logdir/train/2; recovered: legacy/redirects-logdir/checkpoint/0, static/none/shutdown/0,
static/tee/shutdown/2, legacy/tee/train/2; loader-worker: legacy/tee/shutdown/2, static/none/eval/0; exception:
spawn/tee-logdir/checkpoint/2; config-every-rank: spawn/tee/train/2, spawn/tee-filter/checkpoint/2.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t74-trun-2x3-sigkill-rank0-step5-eval-w0-print-exc-norank-tee                            rank 0, host-oom-kill
    t74-standalone-1x6-segfault-rank4-step1-ckpt-rank0-w2-error-logging-slash-filter0        rank 4, segfault
    t74-trun-2x3-raise-rank1-step4-eval-w0-exception-logging-norank-logdir                   rank 1, python-exception
    t74-trun-2x2-abort-rank1-step6-train-w2-print-exc-norank-redirects                       rank 1, abort
    t74-trun-2x2-sigbus-rank3-step2-ckpt-shards-w0-exception-rank0only-logdir                rank 3, sigbus
    t74-trun-3x2-never-joins-rank2-w0-error-deepspeed-redirects                              rank 2, never-joined
    t74-standalone-1x4-monitored-barrier-rank2-init-w0-error-rank0only-filter3               rank 2, never-joined
    t74-trun-2x2-op-mismatch-rank1-step7-train-w0-exception-rank0only-filter0                rank 1, collective-mismatch
    t74-trun-3x2-size-mismatch-rank3-shutdown-w2-uncaught-logging-norank-filter1             rank 3, collective-mismatch
    t74-trun-2x2-restarts1-segfault-rank2-init-w2-error-rank0only-filter0                    rank 2, segfault
    t74-trun-2x3-restarts1-recovered-raise-rank3-step7-eval-w2-uncaught-rank0only-redirects  rank 3, python-exception
    t74-trun-2x2-loader-sigbus-rank1-step1-train-w2-record-logging-field-filter1             rank 1, sigbus
    t74-static-2x2-raise-value-rank3-step4-train-w0-error-lightning-redirects                rank 3, python-exception
    t74-static-3x2-node0-killed-by-rank1-shutdown-w0-print-exc-norank-tee                    control (node 0 lost whole)
    t74-static-2x2-clean-w0-error-rank0only                                                  control (clean)
    t74-static-2x3-config-every-rank-step2-ckpt-shards-w2-exception-logging-norank-tee       control (every rank's ValueError)

The awkward ones kept: TWO faults at ``init`` (the ``monitored_barrier`` late rank 2 under ``--standalone --tee 3
--local-ranks-filter 3``, 1 x 4, the culprit local rank 2 so its own lines filtered out; the every-attempt segfault of
rank 2 under ``--max-restarts 1 --tee 3 --local-ranks-filter 0``, 2 x 2, the culprit node 1's local rank 0 so its lines
kept, both attempts failing, DataLoader workers 2) and the never-joining rank 2 before it (under ``--redirects 3
--log-dir``, 3 x 2, ``deepspeed``; its drawn phase unused: it never calls ``init_process_group``); ONE at shutdown (the
DETAIL size mismatch of rank 3 under ``--tee 3 --local-ranks-filter 1``, 3 x 2, the culprit's lines kept, workers 2)
and the node-lost control at shutdown too (node 0, the static rendezvous's master, lost whole by rank 1 under ``--tee
3``, 3 x 2); THREE in the validation loop (rank 0's SIGKILL at step 5 under ``--tee 3``, 2 x 3, the store's host the
culprit; rank 1's raise at step 4 under the ``exception`` handler and ``--tee 3 --log-dir``, 2 x 3; the recovered run's
raise of rank 3 at step 7 under ``--max-restarts 1 --redirects 3 --log-dir``, ``uncaught``, ``rank0-only``, the second
attempt running clean); FOUR in the training loop (rank 1's SIGABRT at step 6 under ``--redirects 3 --log-dir``,
workers 2; the op mismatch of rank 1 at step 7 under ``--tee 3 --local-ranks-filter 0``, ``rank0-only``, the culprit's
lines filtered out; the DataLoader worker's SIGBUS of rank 1 at step 1 under ``@record`` and ``--tee 3
--local-ranks-filter 1``; rank 3's caught ``ValueError`` at step 4 under static rendezvous and ``--redirects 3
--log-dir``, ``lightning``); TWO at a checkpoint save (rank 4's segfault at step 1 at the rank-0 save under
``--standalone --tee 3 --local-ranks-filter 0``, 1 x 6, the culprit's lines filtered out, workers 2; rank 3's SIGBUS at
step 2 at the sharded save under ``--tee 3 --log-dir``, ``rank0-only``); c10d ``torchrun`` for ten of the thirteen
faults, ``--standalone`` for two (the segfault, the late barrier rank), static rendezvous for one fault (the
``ValueError``) and all three controls, ``legacy`` and ``mp.spawn`` not drawn (every draw of theirs replaced);
``--local-ranks-filter`` in six rows, the culprit's own lines filtered out in three (the segfault, the late barrier rank,
the op mismatch); rank 0 the culprit in one row only (the SIGKILL in eval); ``num_workers`` 2 in six of the thirteen
fault rows (and in one control: every rank's ``ValueError``).

Recorded (session 71, after the truths were committed): every fault fired in both versions (checked in the node logs and
``--log-dir`` files: the culprit's signal in the tables ('failed (exitcode: -9/-11/-6/-7) local_rank: N'), its message
('bad batch at step 4/7', 'has 7 features', 'DataLoader worker ... killed by signal: Bus error'), or its victims'
``monitoredBarrier``, ``Detected mismatch`` (rank 3's ``TensorShape=[5]``), store-key (``keys:
/default_pg/0//cpu//0/2``) errors naming it; the every-attempt segfault twice, 'failed (exitcode: -11) local_rank: 0' in
each attempt; the recovered run's raise once, exit 0; node 0 lost whole, exit -9; every rank's ``ValueError``). ONE
re-recording: 2.14.1's clean control (t74-static-2x2-clean-w0-error-rank0only) failed at its first recording with a gloo
init timeout under load (ranks 0 and 1 'wait timeout after 3000ms, keys: /default_pg/0//cpu//0/2', workers exit 2, both
agents exit 1, while another helper recorded another set); re-recorded alone, it ran clean (exit 0 on both agents).
Nothing else re-recorded; t61_worker.py unchanged. Nothing in the draw or the truths changed.
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(74)`` (``draw(replaced)``), its scenarios and command lines under the ``t74``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(74)
