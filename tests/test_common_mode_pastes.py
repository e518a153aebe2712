"""Failures no single rank owns, as pastes show them: a command line argparse rejects (every
process runs the same one; torchrun reports whichever exit it saw first), source Python cannot
parse, and a paste whose processes' lines are spliced mid-line (several processes failed at
once, none of them named by a rank). Contrasts: a rank's own exception is still named.
"""

from __future__ import annotations

import datetime as dt

import pytest

from incident_kit import naming_findings
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.logimport import LogSource, import_logs
from k10s_forensics.parsers.log_classify import classify
from k10s_forensics.parsers.log_layout import _interleaved_max

NOW = dt.datetime(2026, 11, 28, 12, 0, tzinfo=dt.timezone.utc)
AGENT = "[2024-06-13 17:39:24,518] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: {code}) local_rank: {local} (pid: 2465952) of binary: /usr/bin/python3"
USAGE = "usage: train.py [-h] [--model MODEL] [--local_rank LOCAL_RANK] DIR"


def _named(tmp_path, text: str, name: str = "b", **layout):
    bundle, _ = import_logs([LogSource("paste.txt", text)], tmp_path / name, job="train", namespace="team-a", now=NOW, **layout)
    return [(f["rule"], f["cause"], f["ranks"]) for f in naming_findings(analyze(bundle)["findings"])]


@pytest.mark.parametrize("error", [
    "train.py: error: unrecognized arguments: --local-rank=1",
    "[rank1]: train.py: error: unrecognized arguments: --local-rank=1",
    "[default1]:train.py: error: unrecognized arguments: --local-rank=1",
    "main.py: error: the following arguments are required: --data-path",
    # a parser named by its own prog (`ArgumentParser('BEiT fine-tuning …')`, unilm#1597), known by argparse's own words
    "BEiT fine-tuning and evaluation script for image classification: error: unrecognized arguments: --local-rank=1",
    "python -m trainer: error: argument --lr: invalid float value: '1e-4,'",
    "[rank1]: DINO: error: ambiguous option: --out could match --output_dir, --out_dim",
    # the interpreter that cannot open its script (IDiff-Face#6): every process runs that command line
    "/usr/bin/python3: can't open file 'train_jonas.py': [Errno 2] No such file or directory",
    "C:\\Users\\me\\venv\\Scripts\\python.exe: can't open file 'C:\\work\\train.py': [Errno 2] No such file or directory",
])
@pytest.mark.parametrize("local", [0, 1])
def test_an_argparse_error_is_every_process_s(tmp_path, error, local):
    text = "\n".join([USAGE, error, AGENT.format(code=2, local=local), ""])
    assert _named(tmp_path, text) == []


@pytest.mark.parametrize("line", [
    "BEiT fine-tuning script: error: unrecognized arguments: --local-rank=1",
    "train.py: error: unrecognized arguments: --local-rank=1",
    "python -m trainer: error: the following arguments are required: --data-path",
])
def test_argparse_s_words_under_any_program_name_are_its_usage_error(line):
    (event,) = [e for e in classify(line) if e["kind"] == "python_exception"]
    assert event["error_type"] == "argparse usage error"


def test_the_interpreter_s_report_of_its_missing_script_is_a_failure_of_its_own():
    (event,) = classify("/opt/conda/bin/python3.10: can't open file '/workspace/train.py': [Errno 2] No such file or directory")
    assert (event["kind"], event["error_type"]) == ("python_exception", "python can't open file")
    assert event["error_message"] == "/workspace/train.py: [Errno 2] No such file or directory"
    assert classify("ffmpeg: can't open file 'clip.mp4': [Errno 2] No such file or directory") == []  # not the interpreter


@pytest.mark.parametrize("line", [
    "loader: error: could not open shard 17",  # a program's own `error:` line, none of argparse's words
    "fatal: error: argument list too long",
])
def test_other_error_lines_are_no_usage_error(line):
    assert not [e for e in classify(line) if e.get("error_type") == "argparse usage error"]


def test_a_syntax_error_is_every_process_s(tmp_path):
    text = "\n".join(['[rank1]: Traceback (most recent call last):', '[rank1]:   File "/workspace/train.py", line 12', '[rank1]:     def main(',
                      '[rank1]: SyntaxError: invalid syntax', AGENT.format(code=1, local=0), ""])
    assert _named(tmp_path, text, nproc_per_node=2) == []


def test_a_rank_s_own_exception_is_still_named(tmp_path):
    text = "\n".join(['[rank1]: Traceback (most recent call last):', '[rank1]:   File "/workspace/train.py", line 40, in <module>',
                      '[rank1]:     batch["labels"]', "[rank1]: KeyError: 'labels'", AGENT.format(code=1, local=1), ""])
    assert _named(tmp_path, text, nproc_per_node=2) == [("rank-failure", "python-exception", [1])]


SPLICED = """Traceback (most recent call last):
  File "/root/peft/examples/sft/train.py", line 162, in <module>
main(model_args, data_args, training_args)  File "/opt/conda/lib/python3.10/site-packages/deepspeed/runtime/engine.py", line 1157, in _configure_distributed_model
  File "/root/peft/examples/sft/train.py", line 146, in main
    trainer.train(resume_from_checkpoint=checkpoint)
torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, unhandled cuda error (run with NCCL_DEBUG=INFO for details)
ncclUnhandledCudaError: Call to CUDA function failed.
Cuda failure 2 'out of memory'
"""


@pytest.mark.parametrize(("text", "want"), [
    (SPLICED, 2),
    (SPLICED.replace("main(model_args, data_args, training_args)  File", "  File"), None),
    # a launcher's prefix before a frame is no splice
    ('[rank0]:   File "/x/train.py", line 3, in main\n(RayTrainWorker pid=812, ip=10.0.0.5)   File "/x/train.py", line 3, in main\n'
     '[default0]:  File "/x/train.py", line 3, in main\n2024-06-13T17:39:24.518Z   File "/x/train.py", line 3, in main\n', None),
])
def test_spliced_lines_count_two_processes(text, want):
    assert _interleaved_max([text]) == want


def test_a_spliced_paste_names_no_single_process(tmp_path):
    assert _named(tmp_path, SPLICED) == []
    one = SPLICED.replace("main(model_args, data_args, training_args)  File", "  File")
    assert _named(tmp_path, one, "one") == []  # one traceback and no rank numbered: which rank is unknown
    # a job of one process: its NCCL error ends in NCCL's `Cuda failure 2 'out of memory'`, an OOM of its own
    assert _named(tmp_path, one, "said", nproc_per_node=1) == [("oom-cascade", "cuda-oom", [0])]


WORLD_STMT = 'assert value == world_size, f"Expected {world_size}, got {value}"'
LOSS_STMT = 'assert value == target, f"Expected {target}, got {value}"'


def _assert_tb(rank: int, message: str, prefix: str = "[rank{r}]: ", stmt: str = WORLD_STMT) -> list[str]:
    p = prefix.format(r=rank)
    return [f"{p}Traceback (most recent call last):", f'{p}  File "/home/u/test.py", line 16, in <module>',
            f"{p}    {stmt}", f"{p}AssertionError: {message}"]


@pytest.mark.parametrize(("first", "second", "stmt", "together"), [
    ("Expected 4, got 1.0", "Expected 4, got 0.0", WORLD_STMT, True),       # each rank's own values: the same failure
    ("shape [2, 4096] vs [2, 4095]", "shape [2, 4096] vs [2, 4097]", WORLD_STMT, True),
    # another failure under the same statement: since session 64 an assert of a value against the world size is every
    # process's check of the launch's size (docs/rules.md, "Session 64: checks every process runs alike"): together
    ("Expected 4, got 1.0", "loss is nan", WORLD_STMT, True),
    # the same pair under a statement that is no check of the launch's size: the first one is named
    ("Expected 4, got 1.0", "loss is nan", LOSS_STMT, False),
])
def test_ranks_raising_one_error_up_to_its_numbers_failed_together(tmp_path, first, second, stmt, together):
    """A paste without a clock: every rank fails the same assertion, each with its own numbers."""
    text = "\n".join([*_assert_tb(0, first, stmt=stmt), *_assert_tb(3, second, "[rank{r}]:", stmt=stmt), ""])
    named = _named(tmp_path, text, nproc_per_node=4, world_size=4)
    assert named == ([] if together else [("rank-failure", "python-exception", [0])])
