"""torchrun's ``--log-dir`` tree through ``k10s import-logs`` (docs/import.md, "torchrun's --log-dir tree";
docs/rules.md, "Session 65: import-logs reads torchrun's --log-dir tree"; parsers/log_torchrun_dir.py).

Under ``--redirects 3`` the consoles hold only the agents' tables: a worker's own error is in the tree only. Every
recorded run that kept its tree (tests/data/torch-runs/*/*/log-dir) is imported as a user would bring it, its node
logs AND its tree (a third way beside tests/test_torch_runs.py's two, batched as they are): the culprit named, a
control unnamed. Then: the tree alone, a restart's two attempts, a tar of the tree, which console an agent belongs to
(a console's path naming its folder, the ranks its workers print, neither), a ``--tee`` file not added twice, and bad
input (no tree in the folder, an empty tree, a link out of the tree, the command's one line).
"""

from __future__ import annotations

import subprocess
import sys
import tarfile

import pytest

from bundle_batch import PER_ANALYSIS, findings_of, merge
from k10s_forensics.analyze.runner import analyze
from k10s_forensics.errors import InputError
from k10s_forensics.logimport import LogSource, import_logs, read_source, read_sources
from k10s_forensics.parsers.log_torchrun_dir import merge_tree
from torch_runs_kit import CAPTURED, load_runs, plain, score, score_findings

TREES = [r for r in load_runs() if (r.folder / "log-dir").is_dir()]
#: Runs the tree does not set right, with why (strict: a fixed run must leave).
NOT_YET = {"2.13.0/t49-trun-2x2-valueerror-ranks012-redirects": (
    "the tree gives ranks 0, 1, 2 their ValueErrors (rank 3 SIGTERMed before it printed a line), but in lines with no "
    "clock of their own: 'failed alike in lines without a timestamp … no single culprit' (2.14.1, where rank 3's gloo "
    "timeout is in its stderr.log, is named right)"),
    **{f"{v}/t75-static-2x2-loader-sigkill-rank0-step2-eval-w2-error-norank-logdir": (
        "static 2 x 2, --tee 3 --log-dir, logger.error(f'rank {rank}: {e}') then sys.exit(2): one of rank 0's DataLoader "
        "workers SIGKILLs itself in step 2's validation; the tree, like the console, holds only the handler's "
        "message-only 'rank 0: DataLoader worker (pid(s) N) exited unexpectedly' (no 'killed by signal'), the tables "
        "rank 0 exit 2 first: 'Rank 0 raised an exception' (python-exception, rank 0: the rank right, the cause not); "
        "truth host-oom-kill (session 71, the seventy-fifth set, as recorded)") for v in ("2.13.0", "2.14.1")},
    **{f"{v}/t76-trun-2x2-restarts1-recovered-raise-rank2-shutdown-w2-error-lightning-redirects": (
        "2 x 2, --max-restarts 1 --redirects 3 --log-dir, logger.error(f'rank {rank}: {e}') then sys.exit(2): rank 2 raises "
        "at shutdown on the first attempt only; the tree holds only its message-only handler record 'rank 2: bad batch at "
        "step 3: sample 17 has no tokens' (no exception name, no traceback), the second attempt clean: 'Rank 2 exited with "
        "status 2' (exit-2, rank 2: the rank right, the cause not); truth python-exception (session 71, the seventy-sixth "
        "set, as recorded, both versions)") for v in ("2.13.0", "2.14.1")},
    # Read right since session 71 (docs/rules.md "Session 71: a handler's message before its stdout's flush";
    # tests/test_handler_message_flushed.py): 2.13.0's t73-trun-2x3-raise-rank5-init-w0-error-norank-logdir ("the tree holds
    # only message-only handler records ... 'Rank 5 exited with status 2' (exit-2, rank 5: the rank right, the cause not)"):
    # rank 5's 'starting' line, its stdout flushed at exit, stood after the handler's message in the console
    # Read right since session 70 (docs/rules.md "Session 70: a DataLoader worker's death its rank named before";
    # tests/test_loader_lost_named_signal.py): 2.13.0's t71-trun-3x2-loader-sigbus-rank2-step8-train-w2-uncaught-deepspeed-
    # redirects ("rank 2's uncaught 'exited unexpectedly' after a ConnectionRefusedError read host-oom-kill": the
    # worker's own 'ERROR: Unexpected bus error encountered in worker.' above it in rank 2's stderr now names the signal)
    # Read right since session 69 (docs/rules.md "Session 69: a --log-dir tree's loader kills and alike failures";
    # tests/test_log_dir_loader_kill.py, tests/test_log_dir_alike.py): 2.13.0's t69-trun-2x2-config-every-rank-step6-train-w2-
    # error-logging-norank-redirects ("the tree holds all four ranks' records within 6 ms, but the tables give rank 1 exit 2
    # first": now every rank's own record alike is common mode, k10s_incident_all_said) and both versions' t70-trun-2x2-
    # loader-sigkill-rank2-step6-train-w2-error-deepspeed-redirects ("the handler's one-line record read as
    # python-exception": now the record's DataLoader worker kill, or in 2.13.0 the kill its rank printed under 'Exception
    # ignored in:' of the worker its record says exited unexpectedly, carries the worker's signal: host-oom-kill)
    # Read right since session 68: 2.14.1's t66-trun-3x2-raise-rank2-step8-eval-w0-print-exc-norank-logdir ("no line of the
    # tree names a rank, so its three agent folders are placed by their random names' order ... local rank 0 read as rank
    # 4"): now each folder is placed by the lines its console holds under --tee (docs/rules.md "Session 68: placing
    # --log-dir agent folders"; tests/test_log_dir_placement.py)
    # Read right since session 67 (kept as the record): 2.14.1's t61-trun-2x3-missing-shard-rank0-shutdown-w2-error-deepspeed-
    # redirects ("rank 0 right, cause exit-2: ... why the two differ is not yet known": the tree's agent folders were
    # placed by their random names' order, node 0 given ranks 3-5's; now by the ranks the workers' records name) and both
    # versions' t62-trun-3x2-assert-rank0-step1-eval-w0-error-rank0only-logdir ("the handler prints the message alone
    # ('rank 0: expected 4 samples ...') before sys.exit(2)": now read as its exception): docs/rules.md "Session 67: a
    # message-only handler record"
}
#: The runs the consoles alone miss (tests/test_torch_runs.py's NOT_YET, the import way) that the tree sets right.
FIXED = ["2.13.0/t56-trun-2x2-never-joins-rank1-redirects", "2.14.1/t56-trun-2x2-never-joins-rank1-redirects",
         "2.13.0/t58-trun-2x2-monitored-barrier-rank1-step1-lightning-redirects",
         "2.14.1/t58-trun-2x2-monitored-barrier-rank1-step1-lightning-redirects",
         "2.13.0/t58-trun-2x3-op-mismatch-rank4-step5-rank0only-redirects",
         "2.14.1/t58-trun-2x3-op-mismatch-rank4-step5-rank0only-redirects",
         "2.13.0/t42-trun-2x3-node1-killed-redirects3", "2.13.0/t44-trun-2x2-bcast-unpicklable-rank0-redirects",
         "2.14.1/t49-trun-2x2-valueerror-ranks012-redirects",
         *(f"{v}/t61-trun-2x3-missing-shard-rank0-shutdown-w2-error-deepspeed-redirects" for v in ("2.13.0", "2.14.1")),
         *(f"{v}/t67-trun-2x3-{n}-redirects" for v in ("2.13.0", "2.14.1")
           for n in ("monitored-barrier-rank0-step4-train-w2-error-deepspeed", "raise-rank4-step1-train-w0-error-lightning")),
         *(f"{v}/t70-{n}-redirects" for v in ("2.13.0", "2.14.1")
           for n in ("standalone-1x6-size-mismatch-rank1-step6-ckpt-rank0-w2-error-rank0only",
                     "trun-2x3-monitored-barrier-rank3-step4-eval-w0-exception-lightning")),
         *(f"{v}/t72-static-2x3-{n}-redirects" for v in ("2.13.0", "2.14.1")
           for n in ("raise-rank1-step6-train-w2-error-logging-norank", "node0-killed-by-rank0-init-w2-exception-lightning")),
         *(f"{v}/t71-{n}-redirects" for v in ("2.13.0", "2.14.1")
           for n in ("trun-2x2-monitored-barrier-rank3-step5-eval-w2-print-exc-logging-norank",
                     "trun-2x3-op-mismatch-rank3-step6-ckpt-shards-w0-print-exc-logging-norank")),
         *(f"{v}/t71-trun-3x2-loader-sigbus-rank2-step8-train-w2-uncaught-deepspeed-redirects" for v in ("2.13.0", "2.14.1")),
         *(f"{v}/t73-{n}-redirects" for v in ("2.13.0", "2.14.1")
           for n in ("standalone-1x6-never-joins-rank3-w0-record-norank", "trun-2x2-memoryerror-rank2-step2-train-w2-record-logging-norank",
                     "trun-2x3-node1-killed-by-rank3-init-w0-exception-norank")),
         *(f"{v}/t74-{n}-redirects" for v in ("2.13.0", "2.14.1")
           for n in ("trun-3x2-never-joins-rank2-w0-error-deepspeed", "static-2x2-raise-value-rank3-step4-train-w0-error-lightning")),
         *(f"{v}/t76-trun-2x2-size-mismatch-rank3-step5-train-w2-exception-norank-redirects" for v in ("2.13.0", "2.14.1")),
         *(f"{v}/t78-static-2x2-raise-rank3-step2-eval-w2-error-lightning-redirects" for v in ("2.13.0", "2.14.1")),
         "2.13.0/t79-trun-2x3-restarts1-raise-rank4-step4-ckpt-rank0-w0-exception-logging-norank-redirects"]
_BATCHES = [TREES[i:i + PER_ANALYSIS] for i in range(0, len(TREES), PER_ANALYSIS)]
_BATCH_OF = {run.id: (b, i) for b, batch in enumerate(_BATCHES) for i, run in enumerate(batch)}
_FINDINGS: dict[int, list] = {}


def _consoles(run, tmp) -> list[LogSource]:
    out = []
    for name, text in zip(run.truth["node_logs"], run.stamped()):
        (tmp / name).write_text(plain(text), encoding="utf-8")
        out.append(read_source(str(tmp / name)))
    return out


def _import(sources, tmp, derive=True):
    return import_logs(sources, tmp / "bundle", job="train", namespace="team-a", now=CAPTURED, derive=derive)


def _params():
    for run in TREES:
        why = NOT_YET.get(run.id)
        marks = [pytest.mark.xfail(strict=True, reason=why)] if why else []
        yield pytest.param(run, id=run.id, marks=[*marks, pytest.mark.xdist_group(f"log-dir-{_BATCH_OF[run.id][0]}")])


def test_the_fixed_runs_are_recorded_with_trees():
    assert set(FIXED) <= {r.id for r in TREES} and set(NOT_YET) <= {r.id for r in TREES} and len(TREES) >= 80


@pytest.mark.slow
@pytest.mark.parametrize("run", list(_params()))
def test_a_run_imported_with_its_tree_names_its_culprit(tmp_path_factory, run):
    b, i = _BATCH_OF[run.id]
    if b not in _FINDINGS:
        tmp = tmp_path_factory.mktemp(f"logdir{b}")
        bundles = []
        for k, r in enumerate(_BATCHES[b]):
            (tmp / str(k)).mkdir()
            bundles.append(_import(_consoles(r, tmp / str(k)) + read_sources(str(r.folder / "log-dir")), tmp / str(k), False)[0])
        _FINDINGS[b] = analyze(merge(bundles, tmp / "merged"))["findings"]
    why = score_findings(run, findings_of(_FINDINGS[b], i))
    assert why is None, why


def _run(run_id: str):
    return next(r for r in TREES if r.id == run_id)


def test_the_tree_alone_places_each_agent_by_the_ranks_its_workers_print(tmp_path):
    run = _run("2.13.0/t56-trun-2x2-never-joins-rank1-redirects")
    bundle, layout = _import(read_sources(str(run.folder / "log-dir")), tmp_path)
    assert layout.hints["nodes"].startswith("torchrun --log-dir tree (2 agents, 2 local ranks each; node 0: ")
    assert layout.hints["nodes"].count("by the ranks its workers print") == 2
    assert layout.hints["nproc_per_node"] == "the --log-dir tree's local-rank folders" and layout.world_size == 4
    assert score(run, bundle) is None


def test_a_restarts_two_attempts_stay_apart_before_each_report(tmp_path):
    run = _run("2.14.1/t56-trun-3x2-restarts1-abort-rank0-step8-redirects")
    merged, how, nproc = merge_tree(_consoles(run, tmp_path) + read_sources(str(run.folder / "log-dir")), LogSource)
    lines = merged[0].text.split("\n")
    reports = [i for i, ln in enumerate(lines) if "failed (exitcode" in ln]
    starts = [i for i, ln in enumerate(lines) if ln.startswith("[default0]:") and "starting" in ln]
    assert len(reports) == 2 and len(starts) == 2 and starts[0] < reports[0] < starts[1] < reports[1], (reports, starts)
    assert nproc == 2 and how.startswith("torchrun --log-dir tree (3 agents")
    assert score(run, _import(_consoles(run, tmp_path) + read_sources(str(run.folder / "log-dir")), tmp_path)[0]) is None


def test_a_tar_of_the_tree_reads_as_the_folder(tmp_path):
    run = _run("2.13.0/t58-trun-2x2-monitored-barrier-rank1-step1-lightning-redirects")
    with tarfile.open(tmp_path / "logs.tar.gz", "w:gz") as tar:
        tar.add(run.folder / "log-dir", arcname="logs")
    from_tar = read_sources(str(tmp_path / "logs.tar.gz"))
    assert sorted(s.text for s in from_tar) == sorted(s.text for s in read_sources(str(run.folder / "log-dir")))
    assert score(run, _import(_consoles(run, tmp_path) + from_tar, tmp_path)[0]) is None


_TABLE = ("E1206 17:03:17.466000 26112 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: 1) "
          "local_rank: 0 (pid: 1) of binary: python3\n  rank      : {r} (local_rank: 0)\n  error_file: /tmp/logs/{f}/attempt_0/0/error.json\n")


def _tree(root, folders: list[str], lines: list[str]) -> None:
    for folder, line in zip(folders, lines):
        (root / folder / "attempt_0" / "0").mkdir(parents=True)
        (root / folder / "attempt_0" / "0" / "stderr.log").write_text(line + "\n", encoding="utf-8")


def test_a_console_naming_the_agents_folder_places_it_and_neither_places_nothing(tmp_path):
    folders = ["job_aaaaaaaa", "job_bbbbbbbb"]  # no rank printed: the workers' lines name none
    _tree(tmp_path / "logs", folders, ["ValueError: bad shard", "waiting"])
    tree = read_sources(str(tmp_path / "logs"))
    # node 0's console names job_bbbbbbbb's folder in its failure table's error_file: that agent is node 0
    consoles = [LogSource("node0.log", _TABLE.format(r=0, f=folders[1])), LogSource("node1.log", _TABLE.format(r=1, f=folders[0]))]
    merged, how, _ = merge_tree(consoles + tree, LogSource)
    assert "node 0: job_bbbbbbbb by its console's path; node 1: job_aaaaaaaa by its console's path" in how
    assert "[default0]:waiting" in merged[0].text and "[default0]:ValueError: bad shard" in merged[1].text
    assert merged[0].text.index("[default0]:waiting") < merged[0].text.index("failed (exitcode")
    assert merge_tree(consoles[::-1] + tree, LogSource)[1] == how  # the consoles given in either order: their tables place them
    # one agent placed by its console, the other is the one node left
    merged, how, _ = merge_tree([consoles[0]] + tree, LogSource)
    assert "node 0: job_bbbbbbbb by its console's path; node 1: job_aaaaaaaa by the one node left" in how
    # no line tells (session 68): no node guessed from the folders' names; the tree alone reads as one log naming no rank
    merged, how, _ = merge_tree(tree, LogSource)
    assert len(merged) == 1 and "none placed" in how and "folders' order" not in how, how


def test_a_file_the_console_holds_under_tee_is_not_added_twice(tmp_path):
    run = _run("2.13.0/t23-trun-2x2-logdir-redirects3-tee1-keyerror-rank1")  # --tee 1: stdout on the console too
    merged, _, _ = merge_tree(_consoles(run, tmp_path) + read_sources(str(run.folder / "log-dir")), LogSource)
    lines = merged[0].text.split("\n")
    assert lines.count("[default0]:rank 0 step 0 loss 0.0020") == 1
    assert any(ln.startswith("[default1]:") and "KeyError" in ln for ln in lines)  # the stderr the console lacked


def test_bad_trees_are_one_line_errors(tmp_path):
    (tmp_path / "plain").mkdir()
    (tmp_path / "plain" / "notes.txt").write_text("hello\n", encoding="utf-8")
    with pytest.raises(InputError, match="no torchrun --log-dir tree in it"):
        read_sources(str(tmp_path / "plain"))
    _tree(tmp_path / "empty", ["job_cccccccc"], [""])
    with pytest.raises(InputError, match="no log lines"):
        _import(read_sources(str(tmp_path / "empty")), tmp_path)
    (tmp_path / "json" / "job_dddddddd" / "attempt_0" / "0").mkdir(parents=True)
    (tmp_path / "json" / "job_dddddddd" / "attempt_0" / "0" / "error.json").write_text("{}", encoding="utf-8")
    with pytest.raises(InputError, match="no stdout.log or stderr.log"):
        _import(read_sources(str(tmp_path / "json")), tmp_path)
    k10s = [sys.executable, "-m", "k10s_forensics", "import-logs"]
    done = subprocess.run([*k10s, str(tmp_path / "plain"), "-o", str(tmp_path / "b")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_link_out_of_the_tree_is_not_followed(tmp_path):
    _tree(tmp_path / "logs", ["job_eeeeeeee"], ["rank 0/2 starting"])
    secret = tmp_path / "secret.txt"
    secret.write_text("[rank1]: RuntimeError: not from the tree\n", encoding="utf-8")
    (tmp_path / "logs" / "job_eeeeeeee" / "attempt_0" / "1").mkdir()
    (tmp_path / "logs" / "job_eeeeeeee" / "attempt_0" / "1" / "stderr.log").symlink_to(secret)
    (tmp_path / "logs" / "job_ffffffff").symlink_to(tmp_path / "logs" / "job_eeeeeeee", target_is_directory=True)
    names = [s.name for s in read_sources(str(tmp_path / "logs"))]
    assert names == ["logs/job_eeeeeeee/attempt_0/0/stderr.log"], names


def test_the_cli_reads_consoles_and_the_tree(tmp_path):
    run = _run("2.14.1/t56-trun-2x2-never-joins-rank1-redirects")
    files = [s.name for s in _consoles(run, tmp_path)]
    k10s = [sys.executable, "-m", "k10s_forensics"]
    out = subprocess.run([*k10s, "import-logs", *files, str(run.folder / "log-dir"), "-o", "b"], cwd=tmp_path, check=True,
                         capture_output=True, text=True, timeout=300).stdout
    assert "torchrun --log-dir tree (2 agents" in out and "the --log-dir tree's local-rank folders" in out, out
