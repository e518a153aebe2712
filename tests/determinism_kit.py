"""Run analyze, report and rebuild over many bundles in one process, each output to a file
(tests/test_determinism.py compares two such runs).

Run as a script, once per configuration (``PYTHONHASHSEED`` and DuckDB threads differ)::

    PYTHONHASHSEED=1 python tests/determinism_kit.py PLAN.json OUT --threads 1
    PYTHONHASHSEED=2 python tests/determinism_kit.py PLAN.json OUT --threads 4 --ungated-every 4

``PLAN.json``: ``{"analyze": {name: bundle}, "report": {name: bundle}, "rebuild": {name: bundle}}``.

- analyze: ``OUT/analyze/<name>.json``, ``.txt`` and ``.md`` (``--format json``, text, markdown);
  ``--ungated-every N``: one bundle in N (those whose name's CRC-32 is a multiple of N: the same
  bundles on every run) is analysed with every rule's SQL run whatever its gate says and no empty
  shortcut (``analyze(gates=False)``), so the comparison also proves, on a fixed quarter of every
  kind of bundle the suite analyses, that the gates change nothing (docs/rules.md, "Gates"). Not
  all of them: an ungated analysis costs ~1.5 times a gated one (measured on 39 imported
  incidents: 265 against 410 CPU ms), and every bundle would add ~75 CPU s to the suite;
- report: ``OUT/report/<name>.html`` (``SOURCE_DATE_EPOCH`` fixes the footer's time);
- rebuild: the bundle's manifest and raw/ copied to ``OUT/rebuilt/<name>`` and rebuilt there with
  ``--jobs`` = threads (1: in this process; more: in worker processes), its tables kept.

A bundle whose run fails gets ``<name>.error`` (one line), so a failure that depends on the
configuration is a difference too. One process for all the bundles: starting Python and
DuckDB once per bundle would cost more than the analyses.

``--serve``: stay up and analyse on request (one JSON line on stdin, ``{"analyze": {name:
bundle}, "out": folder}``; one line back, ``ok`` or the error). ``Twins`` keeps two such
servers, one per configuration, for the tests that analyse a bundle anyway (the real-incident
corpus, the scenarios): each bundle they build is analysed once per configuration, the two
outputs compared byte for byte, and the test reads its findings from them — one import or
simulation and two analyses per bundle instead of a test's own analysis plus a second sweep.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import zlib
from pathlib import Path


def ungated(name: str, every: int) -> bool:
    """Whether ``--ungated-every`` analyses ``name`` without gates (0: none, 1: all)."""
    return every > 0 and zlib.crc32(name.encode("utf-8")) % every == 0


def analyse_all(bundles: dict[str, str], out: Path, threads: int, ungated_every: int = 0) -> None:
    from k10s_forensics.analyze import render
    from k10s_forensics.analyze.runner import analyze
    from k10s_forensics.store.bundle import Bundle
    from k10s_forensics.errors import K10sError

    out.mkdir(parents=True, exist_ok=True)
    for name, path in sorted(bundles.items()):
        try:
            result = analyze(Bundle.open(path), threads=threads, gates=not ungated(name, ungated_every))
        except K10sError as exc:
            (out / f"{name}.error").write_text(f"{type(exc).__name__}: {exc}\n", encoding="utf-8")
            continue
        (out / f"{name}.json").write_text(render.to_json(result), encoding="utf-8")
        (out / f"{name}.txt").write_text(render.to_text(result, color=False), encoding="utf-8")
        (out / f"{name}.md").write_text(render.to_markdown(result), encoding="utf-8")


def report_all(bundles: dict[str, str], out: Path, threads: int) -> None:
    from k10s_forensics.store.bundle import Bundle
    from k10s_forensics.errors import K10sError
    from k10s_forensics.reports import render_report

    out.mkdir(parents=True, exist_ok=True)
    for name, path in sorted(bundles.items()):
        try:
            render_report(Bundle.open(path), None, out / f"{name}.html", threads=threads)
        except K10sError as exc:
            (out / f"{name}.error").write_text(f"{type(exc).__name__}: {exc}\n", encoding="utf-8")


def rebuild_all(bundles: dict[str, str], out: Path, jobs: int) -> None:
    from k10s_forensics.store.bundle import Bundle
    from k10s_forensics.errors import K10sError
    from k10s_forensics.rebuild.pool import rebuild_parallel

    out.mkdir(parents=True, exist_ok=True)
    for name, path in sorted(bundles.items()):
        copy = out / name
        copy.mkdir()
        shutil.copy2(Path(path) / "manifest.json", copy / "manifest.json")
        shutil.copytree(Path(path) / "raw", copy / "raw")
        try:
            rebuild_parallel(Bundle.open(copy), jobs, say=None)
        except K10sError as exc:
            (out / f"{name}.error").write_text(f"{type(exc).__name__}: {exc}\n", encoding="utf-8")


def outputs(root: Path) -> dict[str, Path]:
    """Every file under ``root`` by its relative path."""
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def differing(a: Path, b: Path, same=lambda rel, x, y: x.read_bytes() == y.read_bytes()) -> list[str]:
    """Relative paths of the files that differ between two output folders (or are in one only)."""
    left, right = outputs(a), outputs(b)
    return [rel for rel in sorted(set(left) | set(right))
            if rel not in left or rel not in right or not same(rel, left[rel], right[rel])]


#: The two configurations compared: name, PYTHONHASHSEED, DuckDB threads, one bundle in how many analysed
#: without the rule gates (``ungated``; 0: none). The second runs every rule's SQL on a fixed quarter of the
#: bundles: those comparisons also prove gated == ungated, byte for byte.
CONFIGS = (("threads-1", "1", 1, 0), ("threads-4", "2", 4, 4))


def kit_args(threads: int, ungated_every: int) -> list[str]:
    """The kit's options for one configuration."""
    return ["--threads", str(threads), *(["--ungated-every", str(ungated_every)] if ungated_every else [])]
#: ``k10s report``'s footer time in the runs (SOURCE_DATE_EPOCH).
EPOCH = "1795000000"


class DeterminismError(Exception):
    """The two configurations gave different output (not an AssertionError: a case marked
    ``xfail(raises=AssertionError)`` for its verdict still fails on it)."""


def same_output(rel: str, a: Path, b: Path) -> bool:
    """Byte equality; a rebuilt layer's record may differ only in when it was built."""
    if not rel.endswith("tables/derived.json"):
        return a.read_bytes() == b.read_bytes()
    drop = re.compile(r'"built_at": "[^"]*"')
    return drop.sub("", a.read_text(encoding="utf-8")) == drop.sub("", b.read_text(encoding="utf-8"))


def check_same(a: Path, b: Path, expected_files: int) -> None:
    """Raise DeterminismError unless folders ``a`` and ``b`` hold the same outputs, none an error."""
    diff = differing(a, b, same_output)
    names = sorted({rel.split("/")[-1].rsplit(".", 1)[0] for rel in diff})
    if diff:
        raise DeterminismError(f"{len(names)} bundle(s) give different output across configurations: {names}; files: {diff[:20]}")
    errors = sorted(p.relative_to(a).as_posix() for p in a.rglob("*.error"))
    if errors:
        raise DeterminismError(f"runs failed: {errors}: {[(a / e).read_text(encoding='utf-8') for e in errors[:3]]}")
    found = sum(1 for p in a.rglob("*") if p.is_file())
    if found < expected_files:
        raise DeterminismError(f"{found} output files, expected {expected_files}")


def _env(seed: str) -> dict[str, str]:
    """The environment of a run of one configuration; with the allocator ``./dev.sh test``
    preloads into the test processes (tests/conftest.py keeps it from other children)."""
    env = {**os.environ, "PYTHONHASHSEED": seed, "SOURCE_DATE_EPOCH": EPOCH}
    malloc = os.environ.get("K10S_TEST_MALLOC")
    if malloc and os.path.isfile(malloc):
        env["LD_PRELOAD"] = " ".join([malloc, *env.get("LD_PRELOAD", "").split()])
    return env


class Twins:
    """Two analysis servers (``--serve``), one per configuration, started on first use."""

    def __init__(self, log_dir: Path):
        self.log_dir = log_dir
        self.procs: list[subprocess.Popen] = []

    def _start(self) -> None:
        self.log_dir.mkdir(parents=True, exist_ok=True)
        for name, seed, threads, every in CONFIGS:
            log = open(self.log_dir / f"{name}.log", "w", encoding="utf-8")  # noqa: SIM115 (closed with the process)
            self.procs.append(subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "--serve", *kit_args(threads, every)],
                                               env=_env(seed), cwd=Path(__file__).resolve().parent, stdin=subprocess.PIPE,
                                               stdout=subprocess.PIPE, stderr=log, text=True, bufsize=1))

    def analyze(self, bundles: dict[str, str], out: Path) -> tuple[Path, Path]:
        """Analyse ``bundles`` in both servers side by side; raise DeterminismError unless the
        outputs (JSON, text, markdown per bundle) are the same. The two output folders."""
        if not self.procs:
            self._start()
        dirs = [out / name for name, *_ in CONFIGS]
        answers = []
        try:
            for proc, folder in zip(self.procs, dirs):
                proc.stdin.write(json.dumps({"analyze": {k: str(v) for k, v in bundles.items()}, "out": str(folder)}) + "\n")
                proc.stdin.flush()
            answers = [proc.stdout.readline().strip() for proc in self.procs]
        except OSError as exc:  # a server gone: its pipe is closed
            answers = [f"{type(exc).__name__}: {exc}"]
        for answer, (name, *_) in zip(answers, CONFIGS):
            if answer != "ok":
                tail = (self.log_dir / f"{name}.log").read_text(encoding="utf-8")[-3000:]
                self.close()  # the next test starts fresh servers
                raise RuntimeError(f"analysis server {name} answered {answer!r}: {tail}")
        check_same(dirs[0], dirs[1], 3 * len(bundles))
        return dirs[0], dirs[1]

    def findings(self, name: str, bundle: str | Path, out: Path) -> dict:
        """``analyze --format json`` of one bundle, after checking both configurations agree."""
        a, _ = self.analyze({name: str(bundle)}, out)
        return json.loads((a / f"{name}.json").read_text(encoding="utf-8"))

    def close(self) -> None:
        for proc in self.procs:
            try:
                proc.stdin.close()
            except OSError:
                pass
        for proc in self.procs:
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.procs = []


def serve(threads: int, ungated_every: int = 0) -> int:
    """Answer analysis requests on stdin until it closes (see ``Twins``)."""
    reply, sys.stdout = sys.stdout, sys.stderr  # whatever the analysis prints never mixes with the answers
    for line in sys.stdin:
        try:
            request = json.loads(line)
            analyse_all(request.get("analyze") or {}, Path(request["out"]), threads, ungated_every)
        except Exception as exc:  # noqa: BLE001 - the client shows it with the log
            print(f"error: {type(exc).__name__}: {exc}".replace("\n", " "), file=reply, flush=True)
            continue
        print("ok", file=reply, flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("plan", type=Path, nargs="?", help="JSON file: {analyze|report|rebuild: {name: bundle folder}}")
    parser.add_argument("out", type=Path, nargs="?")
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--serve", action="store_true", help="analyse on request from stdin (see Twins)")
    parser.add_argument("--ungated-every", type=int, default=0, metavar="N",
                        help="one bundle in N (by its name's CRC-32) runs every rule's SQL whatever its gate says")
    args = parser.parse_args(argv)
    if args.serve:
        return serve(args.threads, args.ungated_every)
    plan = json.loads(args.plan.read_text(encoding="utf-8"))
    analyse_all(plan.get("analyze") or {}, args.out / "analyze", args.threads, args.ungated_every)
    report_all(plan.get("report") or {}, args.out / "report", args.threads)
    rebuild_all(plan.get("rebuild") or {}, args.out / "rebuilt", args.threads)
    return 0


if __name__ == "__main__":
    sys.exit(main())
