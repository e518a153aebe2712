"""The sixty-third set of recorded runs (held out when recorded, the truths written from the draw before any
recording): the SIXTY-FIRST SET'S JOINT DRAW with a new seed, ``random.Random(63)`` (tests/tools/torch_scenarios61.py's
``draw``, ``name`` and ``scenarios``, its items, rules of replacement and truths, all called, not copied, as
tests/tools/torch_scenarios62.py calls them), the same 16 items (13 faults, 3 controls), t61_worker.py's program, gloo
on CPU, gloo timeouts of 3 s; recorded with torch 2.13.0 and 2.14.1.

The draw (``python -c "import torch_scenarios63 as t; [print(r) for r in t.draw()]"``; the draws that could not run
listed after it):

    item               launcher    layout rank step option           local handler   style          rankfmt crash    exception     phase      ckpt   w lsig
    sigkill            trun        2x2    1    6    tee              1     uncaught  lightning      field   sigkill  keyerror      train      rank0  2 sigbus
    segfault           static      2x3    5    4    none             0     exception logging-norank paren   raise    raise-runtime init       rank0  0 sigbus
    raise              legacy      3x2    3    3    none             1     error     rank0-only     rank=   sigbus   raise-value   eval       shards 0 sigbus
    abort              trun        2x3    1    3    tee-logdir       0     record    logging-rank   field   sigkill  missing-shard train      shards 2 sigbus
    sigbus             trun        3x2    3    1    tee              1     uncaught  lightning      field   sigbus   memoryerror   checkpoint shards 0 sigkill
    never-joins        trun        2x3    3    1    tee-filter       2     print-exc rank0-only     field   abort    assert        eval       shards 2 sigbus
    monitored-barrier  trun        2x3    0    5    tee-logdir       1     print-exc deepspeed      slash   sigbus   memoryerror   init       rank0  2 sigkill
    op-mismatch        standalone  1x6    2    4    tee              0     exception logging-rank   slash   raise    missing-shard train      shards 2 sigkill
    size-mismatch      trun        2x3    0    7    tee              2     record    rank0-only     paren   abort    keyerror      train      shards 2 sigbus
    every-attempt      trun        3x2    4    4    tee-logdir       1     uncaught  print-norank   field   raise    missing-shard checkpoint rank0  2 sigbus
    recovered          trun        3x2    4    6    tee-filter       0     error     print-norank   RANK    abort    keyerror      checkpoint rank0  0 sigbus
    loader-worker      standalone  1x6    2    5    tee-logdir       0     uncaught  logging-norank rank=   raise    missing-shard eval       rank0  2 sigbus
    exception          trun        2x3    1    2    tee              1     print-exc deepspeed      RANK    abort    missing-shard eval       shards 2 sigbus
    node-killed        trun        2x3    0    5    tee              1     record    print-norank   slash   sigkill  missing-shard eval       rank0  2 sigkill
    clean              trun        3x2    1    3    none             1     uncaught  logging-rank   slash   sigkill  missing-shard checkpoint rank0  2 sigkill
    config-every-rank  trun        2x2    3    2    tee-filter       0     error     rank0-only     slash   raise    missing-shard init       shards 0 sigkill

Replaced draws (launcher/option/phase/workers), by item: sigkill: spawn/redirects-logdir/train/0; raise:
spawn/tee-logdir/shutdown/0; never-joins: spawn/tee/shutdown/2; monitored-barrier: spawn/redirects-logdir/eval/0;
size-mismatch: legacy/tee-logdir/init/2; node-killed: standalone/tee-filter/init/2.

Scenarios, in the same order, with their truths (t61's: the cause names as earlier sets give them; ``victims``: every
other rank; controls: no rank may be named):

    t63-trun-2x2-sigkill-rank1-step6-train-w2-uncaught-lightning-tee                       rank 1, host-oom-kill
    t63-static-2x3-segfault-rank5-init-w0-exception-logging-norank                         rank 5, segfault
    t63-legacy-3x2-raise-rank3-step3-eval-w0-error-rank0only                               rank 3, python-exception
    t63-trun-2x3-abort-rank1-step3-train-w2-record-logging-field-logdir                    rank 1, abort
    t63-trun-3x2-sigbus-rank3-step1-ckpt-shards-w0-uncaught-lightning-tee                  rank 3, sigbus
    t63-trun-2x3-never-joins-rank3-w2-print-exc-rank0only-filter2                          rank 3, never-joined
    t63-trun-2x3-monitored-barrier-rank0-init-w2-print-exc-deepspeed-logdir                rank 0, never-joined
    t63-standalone-1x6-op-mismatch-rank2-step4-train-w2-exception-logging-slash-tee        rank 2, collective-mismatch
    t63-trun-2x3-size-mismatch-rank0-step7-train-w2-record-rank0only-tee                   rank 0, collective-mismatch
    t63-trun-3x2-restarts1-raise-rank4-step4-ckpt-rank0-w2-uncaught-norank-logdir          rank 4, python-exception
    t63-trun-3x2-restarts1-recovered-abort-rank4-step6-ckpt-rank0-w0-error-norank-filter0  rank 4, abort
    t63-standalone-1x6-loader-sigbus-rank2-step5-eval-w2-uncaught-logging-norank-logdir    rank 2, sigbus
    t63-trun-2x3-missing-shard-rank1-step2-eval-w2-print-exc-deepspeed-tee                 rank 1, python-exception
    t63-trun-2x3-node0-killed-by-rank0-step5-eval-w2-record-norank-tee                     control (node 0 lost whole)
    t63-trun-3x2-clean-w2-uncaught-logging-slash                                           control (clean)
    t63-trun-2x2-config-every-rank-init-w0-error-rank0only-filter0                         control (every rank's ValueError)

The awkward ones kept: the LEGACY launcher (``torch.distributed.launch --use-env``) kept for the first time in t61's
draws (3 x 2, rank 3's raise under the ``error`` handler in step 3's validation loop, rank-0-only prints); ``mp.spawn`` never drawn (its four draws all came with a torchrun output option); ``--standalone`` for two (the
op mismatch in training, the DataLoader worker's SIGBUS in the validation loop under ``--tee 3 --log-dir``); a
``monitored_barrier`` late rank 0 at INIT (the store's own rank late); the size mismatch from rank 0; the every-attempt
run's crash a plain raise at the rank-0 checkpoint save and the recovered run's an ``os.abort()`` there; node 0 (rank 0's,
the c10d store's host) lost whole; no ``--redirects`` at all (no draw of ``redirects-logdir`` kept), four ``--log-dir``
runs with ``--tee`` (``tee-logdir``), three without any output option.
"""

from __future__ import annotations

import torch_scenarios61 as t61

LAUNCHERS = tuple(f"t63{launcher.removeprefix('t61')}" for launcher in t61.LAUNCHERS)
cleanup = t61.cleanup
public = t61.public


def draw(replaced: list | None = None) -> list[tuple]:
    """t61's joint draw with ``random.Random(63)``."""
    return t61.draw(63, replaced)


def scenarios(S) -> list[dict]:
    return t61.scenarios(S, seed=63, tag="t63")


def commands(sc: dict, opts: list[str], port: str) -> list[list[str]]:
    """Each node's command line for the scenario's launcher, running t61_worker.py."""
    return t61.commands({**sc, "launcher": sc["launcher"].replace("t63", "t61", 1)}, opts, port)
