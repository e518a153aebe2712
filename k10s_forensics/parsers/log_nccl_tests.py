"""nccl-tests' own report of an NCCL call that failed in its process (docs/parsers-logs.md, "nccl-tests' failure lines").

nccl-tests (``all_reduce_perf`` and its siblings) checks each NCCL call it makes and prints, once per failing process,
``HOST: Test NCCL failure FILE.cu:LINE 'message / '`` (NVIDIA/nccl-tests#322: ``HCA-14: Test NCCL failure common.cu:1204
'unhandled cuda error (run with NCCL_DEBUG=INFO for details) / '``), then `` .. HOST pid N: Test failure FILE.cu:LINE``.
Its CUDA twin, ``Test CUDA failure``, is a ``cuda_error`` event (log_patterns_cuda.NCCL_CUDA_FAILURE). This line is a
``nccl_test_failure`` event with the host that printed it (``nccl_host``), the NCCL result's name (subkind) and its words
(error_message): no failure line of a rank by itself (a failed health check reads as no failure: session 51), read only
by the common-mode reading of the same failure printed on two or more hosts (queries/_incident_common_mode.sql).
"""

from __future__ import annotations

import re
from typing import Any

#: group 1 the host nccl-tests printed, group 2 the NCCL result's words (its `(run with NCCL_DEBUG=INFO …)` hint and
#: the trailing ` / ` of an empty last-error string left out); its quotes ASCII or a rich-text editor's, which turns the
#: closing one after ` / ` into an opening ``‘`` (tests/paste_damage.editor_typography)
NCCL_TEST_FAILURE = re.compile(
    r"(?:^|[\s:>\]])([\w.\-]{1,120}): Test NCCL failure [\w.\-]{1,120}\.cu:\d{1,6} ['\u2018\u2019]"
    r"([^'\u2018\u2019\n(/]{1,200}?)\s*(?:\(run with NCCL_DEBUG[^)\n]{0,40}\))?\s*(?:/[^'\u2018\u2019\n]{0,200})?['\u2018\u2019]")
#: NCCL's result strings (ncclGetErrorString) by their enum names
_NAMES = {"unhandled cuda error": "ncclUnhandledCudaError", "unhandled system error": "ncclSystemError",
          "internal error - please report this issue to the NCCL developers": "ncclInternalError",
          "internal error": "ncclInternalError", "invalid usage": "ncclInvalidUsage", "invalid argument": "ncclInvalidArgument",
          "remote process exited or there was a network error": "ncclRemoteError"}


def nccl_test_failure(text: str) -> dict[str, Any] | None:
    """The ``nccl_test_failure`` event of nccl-tests' ``HOST: Test NCCL failure FILE.cu:LINE 'message'`` line, or None."""
    m = NCCL_TEST_FAILURE.search(text) if "Test NCCL failure " in text else None
    if m is None:
        return None
    words = m.group(2).strip()
    return {"kind": "nccl_test_failure", "subkind": _NAMES.get(words, "nccl_error"), "error_type": "NCCL error",
            "error_message": words[:300], "nccl_host": m.group(1)}
