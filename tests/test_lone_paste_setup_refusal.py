"""A refusal of the setup, mode or combination in a paste of one rank's lines only (docs/rules.md, "Session 60: a lone
copy of a setup refusal"): ``ValueError: You can't train a model that has been loaded with `device_map='auto'` in any
distributed mode``, ``ValueError: Architecture X not supported``, ``NotImplementedError: Cannot copy out of meta tensor`` (a model left on meta by ZeRO-3's
loading) are the config's and launch's, which every rank meets alike: the rank is a suspect, said at info (low_why
``lone-paste-setup-refusal``; lerobot#2270, Qwen-VL-Series-Finetune#7 and SpecForge#58 named their lone rank at warning,
all three controls). Contrasts: the same refusal while the other ranks' lines show them running past it names that rank;
a refusal tied to the rank's own device or index (``device 5``, ``cuda:1``, a rank-indexed path) stays the rank's; a
warning raised as an error and Dynamo's ``Unsupported`` (torch-runs t11, t7: culprits) stay the rank's; a CUDA call's
``operation not supported`` is not this class; refusals the common-mode reading already leaves unnamed (``DeepSpeed
Zero-3 is not compatible with passing a `device_map```, ``Backend gloo does not support alltoall``) stay so.
"""

from __future__ import annotations

import datetime as dt

import pytest

from bundle_batch import pasted_findings
from incident_kit import corpus_lines, naming_findings

NOW = dt.datetime(2026, 12, 6, 8, 30, tzinfo=dt.timezone.utc)

REFUSALS = [
    "ValueError: You can't train a model that has been loaded with `device_map='auto'` in any distributed mode. Please "
    "rerun your script specifying `--num_processes=1` or by launching with `python {{myscript.py}}`.",
    "ValueError: Architecture Qwen3MoeForCausalLM not supported",
    "NotImplementedError: Cannot copy out of meta tensor; no data!",
    "NotImplementedError: The current rlhf_type 'gkd' does not support sequence_parallel. Please set "
    "--sequence_parallel_size to 1.",
    "ValueError: Flash Attention 2.0 only supports torch.float16 and torch.bfloat16 dtypes",
    "ValueError: Automatic adjustment of the optimizer state with a new world size is not currently supported",
]


def _tail(rank: int, error: str) -> list[str]:
    return [f"[rank{rank}]: Traceback (most recent call last):",
            f'[rank{rank}]:   File "/workspace/train.py", line 88, in <module>',
            f"[rank{rank}]:     model = accelerator.prepare(model)",
            f'[rank{rank}]:   File "/usr/lib/python3/site-packages/accelerate/accelerator.py", line 1441, in prepare',
            f"[rank{rank}]:     raise_setup_error()",
            f"[rank{rank}]: {error}"]


def _gist(findings: list[dict]) -> list[tuple]:
    return [(f["rule"], f["severity"], f["cause"], f["ranks"]) for f in findings]


def _rank_failures(findings: list[dict]) -> list[tuple]:
    return [(f["severity"], f["ranks"], f["evidence"][0].get("low_why")) for f in findings if f["rule"] == "rank-failure"]


@pytest.mark.parametrize("error", REFUSALS)
@pytest.mark.parametrize("nproc", [None, 8])
def test_a_lone_rank_s_setup_refusal_is_a_suspect_only(tmp_path, error, nproc):
    findings = pasted_findings(_tail(3, error), tmp_path, nproc, nproc, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    assert _rank_failures(findings) == [("info", [3], "lone-paste-setup-refusal")]
    failure = next(f for f in findings if f["rule"] == "rank-failure")
    assert failure["confidence"] == "low"
    assert "refuses the setup, mode or combination" in failure["summary"]


@pytest.mark.parametrize("slug, rank", [("lerobot-2270-", 0), ("Qwen-VL-Series-Finetune-7-", 2), ("SpecForge-58-", 3)])
def test_the_corpus_lone_setup_refusals_are_suspects_only(tmp_path, slug, rank):
    """lerobot#2270, Qwen-VL-Series-Finetune#7 and SpecForge#58 as collected: the lone rank's suspect at info."""
    findings = pasted_findings(corpus_lines(slug), tmp_path, None, None, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    assert _rank_failures(findings) == [("info", [rank], "lone-paste-setup-refusal")]


def test_the_refusal_of_one_rank_while_the_others_run_on_names_it(tmp_path):
    """The others' lines show them past the check (their steps, then their peer's connection closing): the config did
    not refuse them alike, so the rank that raised it is named."""
    lines = [f"[rank{r}]: step 10 loss 0.5" for r in range(4)] + _tail(2, REFUSALS[2])
    lines += [f"[rank{r}]: step 11 loss 0.4" for r in (0, 1, 3)]
    lines += [f"[rank{r}]: RuntimeError: [/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by "
              f"peer [10.0.0.2]:45678" for r in (0, 1, 3)]
    named = naming_findings(pasted_findings(lines, tmp_path, 4, 4, NOW))
    assert {r for f in named for r in f["ranks"]} == {2}, _gist(named)


@pytest.mark.parametrize("error", [
    # tied to the rank's own device or index
    "ValueError: device 5 is not supported by this renderer",
    "ValueError: GPUs other than cuda:1 are not supported by this renderer",
    "ValueError: loading /ckpt/rank_3/optim.pt: format version 2 is not supported",
    # a warning raised as an error (torch-runs t11's rank), Dynamo's Unsupported (t7's rank)
    "UserWarning: The given NumPy array is not writable, and PyTorch does not support non-writable tensors.",
    "torch._dynamo.exc.Unsupported: Dynamo does not support tracing dynamic control flow",
    # near misses: no refusal wording
    "ValueError: the supported sequence length is 4096 but the batch holds 8192 tokens",
])
def test_a_lone_rank_s_own_or_other_error_stays_named(tmp_path, error):
    """Named (warning), or a suspect for another reason (Dynamo's exception class is not read as one): never this class."""
    findings = pasted_findings(_tail(5, error), tmp_path, None, None, NOW)
    assert [(r, w) for _s, r, w in _rank_failures(findings)] == [([5], None)], _gist(findings)


@pytest.mark.parametrize("error", [
    "ValueError: DeepSpeed Zero-3 is not compatible with passing a `device_map`.",
    "RuntimeError: Backend gloo does not support alltoall",
    "RuntimeError: memory format option is only supported by strided tensors",
    "NotImplementedError: OptimState8bit dispatch: attempting to run unimplemented operator/function",
])
def test_the_refusals_read_as_every_process_s_command_line_stay_so(tmp_path, error):
    """Refusals the common-mode reading (every process runs the same command line and code) already leaves unnamed stay
    so: no rank, no suspect (lm-evaluation-harness#3190, bris-inference#140, VideoSys#113, axolotl#2773)."""
    findings = pasted_findings(_tail(5, error), tmp_path, None, None, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    assert [(r, w) for _s, r, w in _rank_failures(findings)] == [([], None)], _gist(findings)


def test_a_cuda_call_s_operation_not_supported_is_not_this_class(tmp_path):
    error = "RuntimeError: CUDA error: operation not supported"
    whys = [w for _s, _r, w in _rank_failures(pasted_findings(_tail(1, error), tmp_path, None, None, NOW))]
    assert "lone-paste-setup-refusal" not in whys


@pytest.mark.parametrize("error", REFUSALS[:2])
def test_two_ranks_copies_name_no_one(tmp_path, error):
    findings = pasted_findings(_tail(0, error) + _tail(1, error), tmp_path, None, None, NOW)
    assert naming_findings(findings) == [], _gist(findings)
    assert "lone-paste-setup-refusal" not in [w for _s, _r, w in _rank_failures(findings)]
