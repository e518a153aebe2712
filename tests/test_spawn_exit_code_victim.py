"""mp.spawn's exit-code report under only its peers' errors is a victim's (docs/rules.md, "Session 71: mp.spawn's
exit-code report under peers' errors").

``ProcessContext.join`` (torch 2.13/2.14 ``spawn.py``) raises ``ProcessExitedException: process N terminated with exit
code K`` for the first child it reaps that ended itself non-zero (a child that printed its own traceback and exited 1,
``print_exc`` + ``sys.exit(1)``). The first reaped is not the first failed: a child whose forked DataLoader workers are
still running is reaped late. So where every exception above the report in its log names no process and says another
failed (gloo's ``Connection closed by peer``, a send/recv timeout), the reported process is one of those victims, as a
torchrun agent's lone report is (``queries/_failure_line.sql``'s ``torn_down``); a report under an error of the
process's own keeps it named.

Recorded runs: tests/data/torch-runs (t75's ``mp.spawn`` raise, both versions, both ways); synthetic pastes below are
marked so.
"""

from __future__ import annotations

import pytest

from bundle_batch import pasted_findings
from spawn_paste_kit import GLOO as _GLOO, NOW, OWN as _OWN, TIMEOUT as _TIMEOUT, exited as _exited, traceback
from torch_runs_kit import findings_both_ways, load_runs

_RUNS = {r.id: r for r in load_runs()}
_VERSIONS = ("2.13.0", "2.14.1")
#: rank 2 raises (its own RuntimeError first); node 0's spawner reports a victim (rank 0 in 2.13.0, rank 1 in 2.14.1)
_RAISE = "t75-spawn-2x2-raise-rank2-step1-ckpt-rank0-w2-print-exc-logging-norank"
_VICTIM = {"2.13.0": 0, "2.14.1": 1}
#: rank 3 SIGKILLed silently; every spawner reports a victim under gloo timeouts: no victim may be named
_SIGKILL = "t75-spawn-3x2-sigkill-rank3-step8-eval-w2-print-exc-norank"
_IDS = [f"{v}/{n}" for v in _VERSIONS for n in (_RAISE, _SIGKILL)]


@pytest.fixture(scope="module")
def both_ways(tmp_path_factory) -> dict[str, dict[str, list]]:
    return findings_both_ways([_RUNS[rid] for rid in _IDS], tmp_path_factory.mktemp("spawn-exit-victim"))


def _named(findings: list[dict]) -> list[int]:
    return sorted({r for f in findings for r in (f.get("ranks") or [])})


@pytest.mark.parametrize("how", ["import", "podlog"])
@pytest.mark.parametrize("version", _VERSIONS)
def test_the_raising_rank_is_named_not_the_reported_victim(both_ways, how, version):
    findings = both_ways[how][f"{version}/{_RAISE}"]
    assert _named(findings) == [2], [(f["rule"], f["ranks"]) for f in findings]
    (f,) = [f for f in findings if f["rule"] == "rank-failure" and f.get("ranks")]
    assert f["cause"] == "python-exception" and _VICTIM[version] not in f["ranks"]


@pytest.mark.parametrize("how", ["import", "podlog"])
@pytest.mark.parametrize("version", _VERSIONS)
def test_victims_reported_under_gloo_timeouts_are_not_named(both_ways, how, version):
    assert _named(both_ways[how][f"{version}/{_SIGKILL}"]) == []


# ---- synthetic pastes (SYNTHETIC lines, written for this test, not from a real log) ----------------------------------
def _tb(last: str, frame: str = "    dist.barrier()") -> list[str]:  # SYNTHETIC: a worker's print_exc at a checkpoint
    return traceback(last, frame, "line 101, in _checkpoint")


@pytest.mark.parametrize("lines", [_tb(_GLOO) + _tb(_GLOO) + _exited(0), _tb(_TIMEOUT) + _exited(1)],
                         ids=["closed-by-peer", "send-timeout"])
def test_a_report_under_only_peers_errors_names_no_one(tmp_path, lines):
    assert _named(pasted_findings(lines, tmp_path, 2, 2, NOW)) == []


@pytest.mark.parametrize("lines, want", [(_tb(_OWN, "    raise RuntimeError(msg)") + _exited(0), [0]),
                                         (_tb(_OWN, "    raise RuntimeError(msg)") + _tb(_GLOO) + _exited(1), [1])],
                         ids=["own-error", "own-error-and-a-peers"])
def test_a_report_under_an_error_of_its_own_keeps_the_rank(tmp_path, lines, want):
    (f,) = [f for f in pasted_findings(lines, tmp_path, 2, 2, NOW) if f.get("ranks")]
    assert f["ranks"] == want and f["cause"] == "python-exception"


def test_a_control_where_every_process_raised_alike_has_no_confident_culprit(tmp_path):
    own = _tb(_OWN, "    raise RuntimeError(msg)")
    for f in pasted_findings(own + own + _exited(0), tmp_path, 2, 2, NOW):
        assert not f.get("ranks") or (f["severity"] not in ("critical", "error") and f.get("confidence") != "high")
