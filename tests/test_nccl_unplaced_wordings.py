"""Real incidents batch 51 (docs/rules.md, "Real incidents batch 51"): NCCL's report that the communicator itself failed
(``unhandled system error`` / ``ncclSystemError``, ``ncclInternalError``) in a line naming no process (no rank tag, no
local rank, no NCCL ``host:pid`` prefix), pasted beside a launcher's exit status: the collective it failed in is every
member's, so the exit the launcher saw first names no culprit.

Each wording variant is a paste imported as a user would (``k10s import-logs``), beside the shapes that keep their
culprit (the NCCL error tagged with its rank, a rank's own exception, an ordinary exception naming no rank); all are
analysed in one merged bundle.
"""

from __future__ import annotations

import pytest

from bundle_batch import findings_of, merge
from incident_kit import Case, incident_bundle, naming_findings

TB = ["Traceback (most recent call last):", '  File "./train.py", line 48, in <module>',
      "    model = nn.parallel.DistributedDataParallel(",
      '  File "/opt/conda/lib/python3.8/site-packages/torch/nn/parallel/distributed.py", line 496, in __init__',
      "    dist._verify_model_across_ranks(self.process_group, parameters)"]
SYS_19 = ["RuntimeError: NCCL error in: /pytorch/torch/lib/c10d/ProcessGroupNCCL.cpp:911, unhandled system error, NCCL version 2.7.8",
          "ncclSystemError: System call (socket, malloc, munmap, etc) failed."]
SYS_2X = ["torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils.hpp:268, unhandled system "
          "error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.1",
          "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. "]
SYS_CODE = ["RuntimeError: NCCL Error 2: unhandled system error (run with NCCL_DEBUG=INFO for details)"]
INTERNAL = ["RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1269, internal error, NCCL version 2.14.3",
            "ncclInternalError: Internal check failed."]
OLD_AGENT = ["ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: {r} (pid: 3133{r}) of binary: "
             "/opt/conda/bin/python",
             "ERROR:torch.distributed.elastic.agent.server.local_elastic_agent:[default] Worker group failed"]
AGENT = ["W1128 07:42:14.601000 17676 site-packages/torch/distributed/elastic/multiprocessing/api.py:897] Sending process 1777{o} "
         "closing signal SIGTERM",
         "E1128 07:42:15.588000 17676 site-packages/torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
         "local_rank: {r} (pid: 1777{r}) of binary: /opt/conda/bin/python3.11"]


def _paste(*parts: list[str], r: int = 0, o: int = 1) -> str:
    return "\n".join(line.replace("{r}", str(r)).replace("{o}", str(o)) for part in parts for line in part) + "\n"


def _tagged(lines: list[str], rank: int) -> list[str]:
    return [f"[rank{rank}]: {line}" for line in lines]


#: (name, paste, processes per node or None (the importer infers it), ranks a finding may name at warning or above)
PASTES = [
    ("torch1-agent-rank0-system-error", _paste(TB, SYS_19, OLD_AGENT), None, []),
    ("torch1-agent-rank0-system-error-four", _paste(TB, SYS_19, OLD_AGENT), 4, []),
    ("torch2-agent-rank1-distbackend-system-error", _paste(TB, SYS_2X, AGENT, r=1, o=0), 2, []),
    ("agent-rank0-nccl-error-2", _paste(TB, SYS_CODE, OLD_AGENT), None, []),
    ("agent-rank3-internal-error", _paste(TB, INTERNAL, AGENT, r=3, o=2), 4, []),
    # kept: the NCCL error tagged with the rank the launcher reports, a rank's own exception beside the unplaced NCCL
    # error, an ordinary exception naming no rank beside the launcher's exit
    ("tagged-system-error-agent-same-rank", _paste(_tagged(TB + SYS_2X, 1), AGENT, r=1, o=0), 2, [1]),
    ("rank2-own-exception-beside-system-error", _paste(SYS_19, _tagged(TB + ["KeyError: 'labels'"], 2), AGENT, r=2, o=0), 4, [2]),
    ("unranked-value-error-agent-rank0", _paste(TB, ["ValueError: batch size 0 is not positive"], OLD_AGENT), None, [0]),
]


@pytest.fixture(scope="module")
def findings(tmp_path_factory) -> list:
    from k10s_forensics.analyze.runner import analyze
    from k10s_forensics.store.bundle import Bundle

    tmp = tmp_path_factory.mktemp("nccl_unplaced")
    bundles = [incident_bundle(tmp / name, Case(name, "x", [], [], nproc, nproc), text, derive=False)
               for name, text, nproc, _ in PASTES]
    return analyze(Bundle.open(merge(bundles, tmp / "merged").path))["findings"]


@pytest.mark.parametrize(("i", "want"), [(i, p[3]) for i, p in enumerate(PASTES)], ids=[p[0] for p in PASTES])
def test_an_unplaced_nccl_failure_names_no_rank(findings, i, want):
    named = naming_findings(findings_of(findings, i))
    assert sorted({r for f in named for r in f["ranks"]}) == want, [(f["rule"], f["severity"], f["ranks"]) for f in named]


def test_it_says_why(findings):
    """The no-culprit finding says why no rank is named."""
    for i, (name, _, _, want) in enumerate(PASTES):
        if want:
            continue
        said = [f["summary"] for f in findings_of(findings, i) if f["rule"] == "rank-failure"]
        assert any("NCCL reports the communicator failing" in s and "no single culprit" in s for s in said), (name, said)
