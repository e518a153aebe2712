"""The corpus' expectations k10s does not meet yet from session 59's blind batches (361-), each with why; part of
tests/corpus_not_yet.NOT_YET (strict xfail: a case that starts passing must leave this list)."""

from __future__ import annotations

#: Expectations of session 59's batches that we do not meet, with why.
NOT_YET_S59: dict[str, str] = {
    # batch 367 (chinese-japanese-blog-and-qa-pages-multi-gpu-2024-2026): 4 of 4 read right both ways as collected
    # (bb193b96), no NOT_YET, 0 of 4 controls named: csdn-gitblog-151474550 (DeepSpeed's lone `indexSelectLargeIndex ...
    # Assertion `srcIndex < srcSelectDimSize` failed`) and gitcode-blog-ab6ebba8 (Megatron-DeepSpeed TP=1's `CUDA error:
    # device-side assert triggered`), a cuda-error warning of no rank; gitcode-blog-c78323ca (vLLM's `NCCL WARN
    # socketStartConnect ... Software caused connection abort` + `NCCL error: unhandled system error`), an nccl-error
    # warning of no rank; gitcode-blog-a552f72d (one `NCCL WARN NET/IB : Got completion from peer ... with error 12`),
    # nothing: see tests/test_chinese_japanese_blog_and_qa_pages_multi_gpu_2024_2026_batch367_wordings.py
    # session 59 leftovers
}
