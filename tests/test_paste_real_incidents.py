"""Property: every real incident (tests/data/real-incidents) whose culprit k10s finds today keeps
its culprit rank and cause — and every control stays without a confident culprit — when its log
is damaged the way pasting damages logs (tests/paste_damage.py), one damage at a time and all
together, then imported with ``k10s import-logs`` and analyzed in-process.

Reuse: when the repaired damaged log is line for line the repaired original (trailing spaces
aside), the bundle and the verdict are the same by construction and nothing is re-run; only the
others are imported and analyzed. The redaction removes information: every log it changes is
analyzed (slow); all damages combined are compared with the redacted log the same way. The damaged
bundles are analysed BATCH at a time, merged into one captured bundle (tests/bundle_batch.py: an
analysis has a fixed cost that a batch pays once; each incident's findings are picked out).
"""

from __future__ import annotations

import functools

import pytest

from bundle_batch import PER_ANALYSIS, findings_of, merge
from incident_kit import incident_bundle, load_corpus, misses
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.parsers.log_paste import repair_paste
from paste_damage import DAMAGES, combined, redact
from test_real_incidents_corpus import CORPUS, NOT_YET

CASES = [c for c in load_corpus(CORPUS) if c.incident not in NOT_YET]
ALL = dict(DAMAGES, combined=combined)
#: Damages that take over 30 s on a loaded 2-core machine (redact: every log it changes is analyzed,
#: ~0.4 CPU s each), split into SHARDS tests over every SHARDS-th incident: one test of ~100 s at the end
#: of a run would leave the other xdist worker's core idle.
SLOW = ("redact", "combined", "wrap-100")
SHARDS = 4
BATCH = PER_ANALYSIS


#: Known losses (damage, incident), each a strict xfail of its own (test_known_paste_losses): a paste of several fenced
#: blocks with prose between them, double-spaced: dropping a fence leaves an even run of blank lines where its own blank
#: followed it, so double spacing is not recognised and a line ProcessGroupNCCL's tag ends stays apart from its message
#: (real incidents batch 31).
#: And a gist page's one long row wrapped: its code view's empty cells (`… | |`) come off with the padding after them,
#: and one full-width line without padding is no evidence of a terminal, so the UCX line stays cut (session 19, second round;
#: all damages combined wrap it too).
#: And NCCL's `host:pid:tid [device]` prefixes redacted alike (batch 76's nccl-tests-24): the two hosts' proxies reporting the
#: same IB completion error are told apart only by host and pid, so masked they read as one process, whose device 1's
#: teardown `Cuda failure` (read as rank 1) then stands alone.
#: (Batch 111's awsome-distributed-ai-192, a flattened srun paste whose 100-column cut fell inside a label, `… 2.18.5 1` |
#: `0: ncclSystemError …`, is joined back since session 29: tests/test_unwrap_cut_label_wordings.py.)
#: And the elastic agent's `failed (exitcode: 1) local_rank: 0 (pid: 139953)` under rank 0's store-barrier time-out
#: (batch 208's UniMatch-50, `world_size=8, worker_count=1`): its pid ties the report to the process whose own last error
#: is the barrier's wait, which names no one; with the pid masked (`pid: xxxxxx`) the report stands alone, the corpus'
#: lone-launcher-report culprit shape (kept by session 34's study), and names local rank 0 (session 36's fresh-clone CI).
#: And fairseq-4352 (read since session 72: a padded paste's first row cut mid-row joins its tail): re-wrapped at 100
#: columns with padding, its 72-column first row gets the padding a whole row has, so nothing shows it was cut
#: mid-row any more and fairseq's OOM report loses its head again (all damages combined alike).
#: And batch 218's UniAD-229, a quote that lost its line breaks (records run together on one line, split apart by
#: log_flat_records when the line starts with a record): wrapped at 100 columns with padding, the terminal-width repair
#: joins the padded progress-bar row and the empty quote row in front of the flattened records, so the line no longer
#: starts with a record and stays whole (cutting lines that start otherwise would also cut Firefly-171's bar-led agent
#: lines and ray-45825's Ray-prefixed ones, unmeasured); its agent report and the peer's SIGTERM are lost again.
KNOWN_LOSSES = {
    ("wrap-100", "UniAD-229-dual-4090-eval-rank0-allreduce-timeout-rank1-never-joined"),
    ("combined", "UniAD-229-dual-4090-eval-rank0-allreduce-timeout-rank1-never-joined"),
    ("redact", "UniMatch-50-remote-sensing-store-barrier-rank0-worker-count-1-of-8-control"),
    ("redact", "nccl-tests-24-ib-error12-both-hosts-gid-index-control"),
    ("double-space", "sirzzang-blog-gpu-ecc-dbe-rank1-rank0-timeout-torchrun-pid-only"),
    ("combined", "sirzzang-blog-gpu-ecc-dbe-rank1-rank0-timeout-torchrun-pid-only"),
    ("wrap-100", "gist-sparticlesteve-srun-n8-mpi-backend-rank0-ucx-cuda-ipc-invalid-context"),
    ("combined", "gist-sparticlesteve-srun-n8-mpi-backend-rank0-ucx-cuda-ipc-invalid-context"),
    ("wrap-100", "fairseq-4352-two-gpu-transformer-oom-gpu1-device0-summary-empty"),
    ("combined", "fairseq-4352-two-gpu-transformer-oom-gpu1-device0-summary-empty"),
}

#: No damage loses an incident's verdict (the last known loss, a flattened torchrun report wrapped at 100
#: columns and cut inside `torch.distributed.elast|ic.multiprocessing…ChildFailedError:`, is joined back since
#: session 15: tests/test_paste_cut_names.py). A loss that cannot be mended generally is listed in the test
#: with a strict xfail of its own, as that one was.


def _lines(text: str) -> list[str]:
    return [ln.rstrip() for ln in repair_paste(text).text.split("\n")]


@functools.lru_cache(maxsize=None)
def _reference_lines(text: str) -> tuple[str, ...]:
    """The repaired lines of an undamaged log, once per log for every damage (a test process runs several)."""
    return tuple(_lines(text))


def _params():
    for name in ALL:
        if name in SLOW:
            for shard in range(SHARDS):
                yield pytest.param(name, shard, id=f"{name}-{shard + 1}of{SHARDS}", marks=[pytest.mark.slow])
        else:
            yield pytest.param(name, None, id=name)


@pytest.mark.parametrize(("damage", "shard"), list(_params()))
def test_pasted_incidents_keep_their_verdict(tmp_path, damage, shard):
    fn, changed = ALL[damage], []
    cases = CASES if shard is None else CASES[shard::SHARDS]
    for case in cases:
        if (damage, case.incident) in KNOWN_LOSSES:
            continue
        text = (case.folder / case.incident / "log.txt").read_text(encoding="utf-8")
        damaged = fn(text)
        reference = redact(text) if damage == "combined" else text
        if damage != "redact" and tuple(_lines(damaged)) == _reference_lines(reference):
            continue  # the same lines: the same bundle, the verdict the original's (or the redacted one's)
        if damage == "redact" and damaged == text:
            continue
        changed.append((case, incident_bundle(tmp_path / case.incident, case, damaged, derive=False)))
    wrong = []
    for b in range(0, len(changed), BATCH):
        batch = changed[b:b + BATCH]
        findings = analyze(merge([bundle for _, bundle in batch], tmp_path / f"merged{b}"))["findings"]
        for i, (case, _) in enumerate(batch):
            why = misses(case, findings_of(findings, i))
            if why:
                wrong.append(f"{case.incident}: {why}")
    assert not wrong, f"{len(wrong)}/{len(cases)} changed under {damage} ({len(changed)} analyzed):\n" + "\n".join(wrong)


@pytest.mark.xfail(strict=True, raises=AssertionError, reason="a known paste loss (KNOWN_LOSSES: why, for each)")
@pytest.mark.parametrize(("damage", "incident"), sorted(KNOWN_LOSSES))
def test_known_paste_losses(tmp_path, damage, incident):
    case = next(c for c in CASES if c.incident == incident)
    text = (case.folder / case.incident / "log.txt").read_text(encoding="utf-8")
    findings = analyze(incident_bundle(tmp_path / incident, case, ALL[damage](text)))["findings"]
    assert misses(case, findings) is None, misses(case, findings)


def test_the_command_reads_a_redacted_double_spaced_crlf_paste(tmp_path):
    """The issue's shapes through the command a user runs: mpiexec's report with its PID and node
    masked, a blank line after every line, CRLF; import-logs says what it undid, analyze names rank 0."""
    import json

    from click.testing import CliRunner

    from k10s_forensics.cli import cli
    from paste_damage import crlf, double_space

    text = (CORPUS / "openai-glow-18-mpiexec-segfault-rank0" / "log.txt").read_text(encoding="utf-8")
    pasted = crlf(double_space(redact(text)))
    assert "with PID xxxxxx on node xxxxxxxx exited on signal 11" in pasted
    (tmp_path / "paste.txt").write_bytes(pasted.encode("utf-8"))
    runner = CliRunner()
    out = runner.invoke(cli, ["import-logs", str(tmp_path / "paste.txt"), "-o", str(tmp_path / "b"), "--nproc-per-node", "2"])
    assert out.exit_code == 0, out.output
    assert "paste.txt: undid CRLF line ends, double spacing" in out.output
    result = runner.invoke(cli, ["analyze", str(tmp_path / "b"), "--format", "json"])
    findings = json.loads(result.output)["findings"]
    assert any(f["ranks"] == [0] and f["cause"] == "segfault" and f["severity"] == "warning" for f in findings), findings
