"""Batch 83's localised shapes (tests/data/real-incidents, ``"batch": 83``, family ``localised``): a shell in a zh_CN
locale reports its job's death in Chinese, and the report is no rank's (docs/rules.md, "Session 27: batch 83").

The variants seen in the threads and pages searched for the batch, each beside its English original:

* bash's report of its foreground job's signal, bare: ``已放弃 (核心已转储)`` (``Aborted (core dumped)``, yolov7-pytorch-63
  after NCCL's ``unhandled cuda error``), or with full-width brackets ``段错误（核心已转储）`` (``Segmentation fault
  (core dumped)``, as Chinese blog pastes print it);
* bash's report of a script's command, ``./train.sh: 行 9: 4402 段错误  (核心已转储) torchrun …`` (``line 9: … Segmentation
  fault (core dumped)``): the shell's child is the launcher, whose own report has already named the worker;
* bash's job notification ``[1]+  已杀死  nohup …`` (``Killed``): the backgrounded launcher was killed after its report.

None of these lines names a rank, in either language: a paste holding only such a line names no one, and one holding a
launcher's report of a worker (xtuner-375's SIGKILLed local rank 3, a torchrun SIGSEGV of local rank 1) still names that
worker with its cause whatever the shell adds. The analyses go through tests/bundle_batch.py (every input in one analysis).
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from bundle_batch import Batched, assert_one_rank, pasted
from incident_kit import corpus_log, naming_findings

NOW = dt.datetime(2026, 12, 1, 6, 0, tzinfo=dt.timezone.utc)

ABORT = corpus_log("yolov7-pytorch-63-zh-locale-aborted-core-dumped-nccl-unhandled-cuda-control")
SHARDS = corpus_log("xtuner-375-zh-loading-shards-71pct-local-rank3-sigkill")

#: the shell's last line of yolov7-pytorch-63, in each wording seen
ABORT_LINES = {"zh": "已放弃 (核心已转储)", "en": "Aborted (core dumped)", "zh-segv-fullwidth": "段错误（核心已转储）",
               "en-segv": "Segmentation fault (core dumped)"}
#: bash's job notification of a killed background job
KILLED = {"zh": "[1]+  已杀死               nohup xtuner train internlm2_20b_full.py > train.log 2>&1",
          "en": "[1]+  Killed                  nohup xtuner train internlm2_20b_full.py > train.log 2>&1"}
#: bash's report of a script's command that died of SIGSEGV (the launcher: its child the workers)
SCRIPT = {"zh": "./train.sh: 行 9:  4402 段错误               (核心已转储) torchrun --nproc_per_node 4 train.py",
          "en": "./train.sh: line 9:  4402 Segmentation fault      (core dumped) torchrun --nproc_per_node 4 train.py"}
SEGV_REPORT = """\
[2024-03-02 10:11:12,345] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 4411 closing signal SIGTERM
[2024-03-02 10:11:12,346] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 4413 closing signal SIGTERM
[2024-03-02 10:11:12,346] torch.distributed.elastic.multiprocessing.api: [WARNING] Sending process 4414 closing signal SIGTERM
[2024-03-02 10:11:13,901] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: -11) local_rank: 1 (pid: 4412) of binary: /usr/bin/python
"""


def _abort(lang: str) -> str:
    return ABORT.replace(ABORT_LINES["zh"], ABORT_LINES[lang])


def _shards(lang: str) -> str:
    return SHARDS + KILLED[lang] + "\n"


def _script(lang: str) -> str:
    return SEGV_REPORT + SCRIPT[lang] + "\n"


BUILD = {"abort": _abort, "shards": _shards, "script": _script}
#: (processes per node, world size) each shape's paste or thread states (None: not known)
SIZES = {"abort": (None, None), "shards": (4, 4), "script": (4, 4)}

CULPRITS = {("shards", "zh"): (3, "host-oom-kill"), ("shards", "en"): (3, "host-oom-kill"),
            ("script", "zh"): (1, "segfault"), ("script", "en"): (1, "segfault")}
CONTROLS = [("abort", lang) for lang in ABORT_LINES]
BATCHED = Batched("localised-batch83", list(CULPRITS) + CONTROLS)


def _make(key: tuple, folder: Path) -> object:
    nproc, world = SIZES[key[0]]
    return pasted(BUILD[key[0]](key[1]), folder, nproc, NOW, world)


def test_the_variants_are_the_corpus_lines_reworded():
    assert ABORT.rstrip("\n").endswith(ABORT_LINES["zh"])
    assert all(_abort(lang).rstrip("\n").endswith(line) for lang, line in ABORT_LINES.items())


@pytest.mark.parametrize("key", BATCHED.params(CULPRITS))
def test_a_shell_report_after_the_launchers_leaves_its_worker_named(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, *CULPRITS[key])


@pytest.mark.parametrize("key", BATCHED.params(CONTROLS))
def test_a_shells_report_of_its_job_names_no_one(tmp_path_factory, key):
    named = naming_findings(BATCHED.findings(key, tmp_path_factory, _make))
    assert_one_rank(named, None)
