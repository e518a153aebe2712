"""Session 32, batch 140 (torch.compile inside multi-process training): a kernel gone from the compile cache.

Triton and Inductor compile each kernel into a cache directory the processes of a launch share (Triton's
``~/.triton/cache/<hash>/``, Inductor's ``/tmp/torchinductor_<user>/``, or the directory ``TRITON_CACHE_DIR`` /
``TORCHINDUCTOR_CACHE_DIR`` name). A lone rank's ``FileNotFoundError: [Errno 2]`` on a compiled artifact there
(``.hsaco``, ``.cubin``, ``.json``, ``.so``) is that rank losing a race on the shared cache, which every process runs,
not its own fault: torchtitan-2146 (rank 6's ``.hsaco`` on 8 MI250s) was named at critical. ``staging_race`` now reads
it as common mode (queries/_incident.sql; docs/rules.md, "Session 32: batch 140"). A data file, a Hugging Face cache
file or a source file missing stays the rank's own.
"""

from __future__ import annotations

import datetime as dt

import pytest

NOW = dt.datetime(2026, 12, 1, tzinfo=dt.timezone.utc)

#: the corpus's line (torchtitan-2146), ROCm's kernel object under a job's TRITON_CACHE_DIR
HSACO = (
    "[rank6]: torch._inductor.exc.InductorError: FileNotFoundError: [Errno 2] No such file or directory: "
    "{q0}/home1/u/triton_cache_255441/E5DAZZK6P4ZXQ3VKJPNIEWZ7P4HLUH2VX7O2QO7USGHM5XQCLM6A/"
    "triton_red_fused_arange_bitwise_and_eq_ge_index_permute_sum_view_0.hsaco{q1}"
)
TAIL = (
    "[rank6]: Set TORCHDYNAMO_VERBOSE=1 for the internal stack trace (please do this especially if you're reporting "
    'a bug to PyTorch). For even more developer context, set TORCH_LOGS="+dynamo"'
)

RACES = {
    "rocm-hsaco-job-cache": HSACO.format(q0="'", q1="'"),
    "editor-quotes": HSACO.format(q0="\u2018", q1="\u2019"),
    "triton-default-cache-cubin": (
        "[rank3]: FileNotFoundError: [Errno 2] No such file or directory: "
        "'/root/.triton/cache/76c543c0d8742e904f283b49e0ee704b/_fwd_kernel.cubin'"
    ),
    "inductor-tmp-cache-json": (
        "[rank12]: torch._inductor.exc.InductorError: FileNotFoundError: [Errno 2] No such file "
        "or directory: '/tmp/torchinductor_svc/triton/4/5eba80077c5d5c6def3f812b8cccbc7d/"
        "triton_poi_fused_add_0.json'"
    ),
    "inductor-cache-dir-env": (
        "[rank1]: FileNotFoundError: [Errno 2] No such file or directory: "
        "'/scratch/job42/inductor_cache/fx/ab/cabcd.py'"
    ),
    "triton-cache-dash-so": (
        "[rank5]: OSError: [Errno 2] No such file or directory: "
        "'/shared/triton-cache/2f1e/cuda_utils.cpython-310-x86_64-linux-gnu.so'"
    ),
}


@pytest.mark.parametrize("line", RACES.values(), ids=RACES.keys())
def test_a_kernel_gone_from_the_shared_compile_cache_names_no_rank(tmp_path, line):
    from incident_kit import named_in_paste

    assert named_in_paste(tmp_path, line + "\n" + TAIL + "\n", 8, 16, NOW) == []


OWN = {
    "data-shard": (
        "[rank3]: FileNotFoundError: [Errno 2] No such file or directory: "
        "'/data/shards/train-00003-of-00008.bin'",
        3,
    ),
    "hf-hub-cache": (
        "[rank2]: FileNotFoundError: [Errno 2] No such file or directory: "
        "'/root/.cache/huggingface/hub/models--gpt2/snapshots/abc/config.json'",
        2,
    ),
    "triton-source-file": (
        "[rank4]: FileNotFoundError: [Errno 2] No such file or directory: "
        "'/work/triton_kernels/flash_fwd.py'",
        4,
    ),
}


@pytest.mark.parametrize(("line", "rank"), OWN.values(), ids=OWN.keys())
def test_another_file_missing_stays_the_rank_s_own(tmp_path, line, rank):
    """Not a compile cache's entry: a data shard, a model file in the Hugging Face cache, a source file in a directory
    merely named after Triton stay the failing rank's own first failure."""
    from incident_kit import named_in_paste

    named = named_in_paste(tmp_path, line + "\n", 8, 16, NOW)
    assert named and all(ranks == [rank] for _rule, _cause, ranks in named)
