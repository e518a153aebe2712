"""The sixty-fourth set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(64)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, as
tests/tools/torch_scenarios62.py calls them), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo
on CPU, gloo timeouts of 3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios64 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item               launcher    layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill            trun        2x2    3    3    tee              0     exception lightning      rank=   segfault memoryerror   train      rank0  2 sigkill
    segfault           trun        2x3    1    4    tee              0     uncaught  logging-norank slash   abort    assert        eval       rank0  2 sigkill
    raise              trun        2x3    0    3    none             0     exception deepspeed      field   segfault assert        shutdown   shards 2 sigbus
    abort              trun        3x2    3    6    tee-filter       0     exception lightning      paren   raise    memoryerror   train      rank0  2 sigbus
    sigbus             trun        2x3    3    6    tee              1     record    print-norank   field   raise    memoryerror   shutdown   rank0  2 sigkill
    never-joins        trun        2x3    2    8    none             1     print-exc logging-norank field   abort    assert        init       rank0  2 sigbus
    monitored-barrier  spawn       2x2    0    2    none             0     record    rank0-only     field   abort    raise-value   shutdown   rank0  2 sigbus
    op-mismatch        trun        2x2    0    6    tee              0     record    print-norank   RANK    sigbus   missing-shard train      rank0  2 sigbus
    size-mismatch      standalone  1x6    1    8    none             1     exception logging-norank paren   raise    memoryerror   train      rank0  2 sigbus
    every-attempt      standalone  1x6    0    7    tee-logdir       3     uncaught  logging-norank field   sigkill  assert        checkpoint shards 2 sigkill
    recovered          trun        2x3    0    8    redirects-logdir 0     uncaught  deepspeed      paren   sigbus   raise-value   checkpoint shards 2 sigbus
    loader-worker      trun        2x3    4    3    tee-filter       2     error     rank0-only     paren   raise    raise-value   eval       rank0  2 sigkill
    exception          standalone  1x4    0    7    redirects-logdir 3     print-exc logging-rank   slash   abort    missing-shard shutdown   shards 2 sigbus
    node-killed        trun        2x3    4    8    tee-filter       1     error     logging-norank paren   sigbus   keyerror      eval       rank0  0 sigkill
    clean              trun        2x2    0    8    tee-filter       1     exception lightning      field   sigkill  assert        checkpoint rank0  0 sigkill
    config-every-rank  trun        2x2    3    4    none             0     record    deepspeed      field   abort    keyerror      train      shards 0 sigkill

Replaced draws (launcher/option/phase/workers), by item (5): sigkill: spawn/tee/checkpoint/0, legacy/tee/shutdown/0,
spawn/tee/eval/0; size-mismatch: legacy/tee-logdir/train/0; loader-worker: spawn/tee-logdir/checkpoint/2.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t64-trun-2x2-sigkill-rank3-step3-train-w2-exception-lightning-tee                        rank 3, host-oom-kill
    t64-trun-2x3-segfault-rank1-step4-eval-w2-uncaught-logging-norank-tee                    rank 1, segfault
    t64-trun-2x3-raise-rank0-shutdown-w2-exception-deepspeed                                 rank 0, python-exception
    t64-trun-3x2-abort-rank3-step6-train-w2-exception-lightning-filter0                      rank 3, abort
    t64-trun-2x3-sigbus-rank3-shutdown-w2-record-norank-tee                                  rank 3, sigbus
    t64-trun-2x3-never-joins-rank2-w2-print-exc-logging-norank                               rank 2, never-joined
    t64-spawn-2x2-monitored-barrier-rank0-shutdown-w2-record-rank0only                       rank 0, never-joined
    t64-trun-2x2-op-mismatch-rank0-step6-train-w2-record-norank-tee                          rank 0, collective-mismatch
    t64-standalone-1x6-size-mismatch-rank1-step8-train-w2-exception-logging-norank           rank 1, collective-mismatch
    t64-standalone-1x6-restarts1-sigkill-rank0-step7-ckpt-shards-w2-uncaught-logging-norank-logdir  rank 0, host-oom-kill
    t64-trun-2x3-restarts1-recovered-sigbus-rank0-step8-ckpt-shards-w2-uncaught-deepspeed-redirects rank 0, sigbus
    t64-trun-2x3-loader-sigkill-rank4-step3-eval-w2-error-rank0only-filter2                  rank 4, host-oom-kill
    t64-standalone-1x4-missing-shard-rank0-shutdown-w2-print-exc-logging-slash-redirects     rank 0, python-exception
    t64-trun-2x3-node1-killed-by-rank4-step8-eval-w0-error-logging-norank-filter1            control (node 1 lost whole)
    t64-trun-2x2-clean-w0-exception-lightning-filter1                                        control (clean)
    t64-trun-2x2-config-every-rank-step4-train-w0-record-deepspeed                           control (every rank's ValueError)

The awkward ones kept: ``mp.spawn`` drawn for the first time in t61's draw (t61 and t62 never drew it): the monitored
barrier with rank 0, the barrier's own checker, late to the closing barrier at SHUTDOWN, under ``@record`` and rank-0-only
prints; ``--standalone`` for three (the DETAIL size mismatch at step 8, 1 x 6; the every-attempt SIGKILL at step 7's
shard save under ``--tee 3 --log-dir``, 1 x 6; a missing shard at shutdown under ``--redirects 3 --log-dir`` and
``print_exc``, 1 x 4); the recovered run's SIGBUS at a shard save under ``--redirects 3 --log-dir``; rank 0 the culprit in
six rows; the DataLoader worker's SIGKILL in the validation loop under the ``error`` handler and a filter of local rank 2 (ranks
2 and 5 shown, not the culprit); node 1 lost whole in the validation loop under a filter; static
rendezvous and legacy never drawn; ``num_workers`` 2 in every fault row (0 only in the three controls).

Recorded (session 67, after the truths were committed): every fault fired in both versions (checked in the node logs
and ``--log-dir`` files: the culprit's signal in the tables, its message, or its victims' closed connections or
``monitoredBarrier`` errors naming it), after two re-recordings, each once: (1) the ``mp.spawn`` run, both versions:
its first recording never reached the fault, every rank failing at its first DataLoader (``AttributeError: Can't pickle
local object '_data.<locals>.Data'``: under ``mp.spawn`` the DataLoader's own workers are spawned too, and t61_worker.py's
Dataset is a local class), a defect of the program, not a combination the draw's rules forbid; t61_worker.py's loader now
forks its workers (``multiprocessing_context="fork"``, torchrun's default on Linux, so nothing changes for the torchrun
rows of t61, t62 and this set) and the run was recorded again; (2) 2.14.1's abort run, a load timeout before its fault
(``Gloo connectFullMesh failed ... Connect timeout`` at init, another recorder running beside it).
"""

from __future__ import annotations

import torch_scenarios61 as t61

#: t61's joint draw with ``random.Random(64)`` (``draw(replaced)``), its scenarios and command lines under the ``t64``
#: prefix
LAUNCHERS, cleanup, public, draw, scenarios, commands = t61.reseeded(64)
