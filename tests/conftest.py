"""Shared fixtures: paths to the real samples, the Hypothesis budget, and the test loop's wiring
for pytest-xdist (see tests/README.md)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[1]
# The real samples are vendored in the repo (tests/data/README.md says how new ones arrive).
REAL_SAMPLES = REPO / "tests" / "data" / "real-samples"
SAMPLE_BUNDLES = REPO / "sample-bundles"

# Hypothesis: a short, derandomized budget by default (the same cases on every run, no example
# database written into the repo, no deadline on a loaded machine); K10S_FUZZ=long explores.
# Tests with their own @settings(max_examples=...) keep their count; see fuzz_kit for the fuzzers.
FUZZ_LONG = os.environ.get("K10S_FUZZ") == "long"
settings.register_profile("k10s-ci", max_examples=50, deadline=None, derandomize=True, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("k10s-long", max_examples=1000, deadline=None, database=None,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("k10s-long" if FUZZ_LONG else "k10s-ci")


#: The allocator ``./dev.sh test`` preloads into the test processes (jemalloc; absent: none).
TEST_MALLOC = os.environ.get("K10S_TEST_MALLOC", "")


_SAMPLES_KEY = pytest.StashKey[dict]()


def without_test_malloc(preload: str) -> str:
    """``LD_PRELOAD`` less the test allocator."""
    return " ".join(p for p in preload.split() if p != TEST_MALLOC)


def pytest_configure(config: pytest.Config) -> None:
    """The processes that run tests keep the preloaded allocator for themselves; what they start
    (Chromium, kubectl, Prometheus, ``k10s`` subprocesses) runs as a user's would, without it. The
    xdist controller keeps it: it starts the workers. The determinism kit gives it back to its
    analysis servers (``determinism_kit._env``)."""
    controller = not hasattr(config, "workerinput") and bool(config.getoption("numprocesses", None))
    if TEST_MALLOC and not controller and "LD_PRELOAD" in os.environ:
        rest = without_test_malloc(os.environ["LD_PRELOAD"])
        if rest:
            os.environ["LD_PRELOAD"] = rest
        else:
            del os.environ["LD_PRELOAD"]


def _sample_bundle_state() -> dict[str, tuple[int, int]]:
    """(size, mtime) of every file under sample-bundles/ (what a test writing into the repository changes),
    less the empty ``.k10s.lock`` k10s keeps beside any bundle it reads (store/locking.py; git ignores it)."""
    return {str(p): (p.stat().st_size, p.stat().st_mtime_ns) for p in sorted(SAMPLE_BUNDLES.rglob("*"))
            if p.is_file() and p.name != ".k10s.lock"}


def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput"):  # the controller (or a run without xdist): once per run
        session.config.stash[_SAMPLES_KEY] = _sample_bundle_state()


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when a test wrote into sample-bundles/ (a stale derived layer rebuilt in place,
    an index or cache written there): tests work on copies (tests/report_helpers.copy_sample)."""
    before = session.config.stash.get(_SAMPLES_KEY, None)
    if before is None:
        return
    after = _sample_bundle_state()
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    if changed:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_line(f"error: the tests changed {len(changed)} file(s) under sample-bundles/, e.g. {changed[:3]}: "
                                "a test must work on a copy", red=True)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(scope="session")
def real_samples() -> Path:
    assert REAL_SAMPLES.is_dir(), f"real samples missing at {REAL_SAMPLES}: they are part of the repo"
    return REAL_SAMPLES


@pytest.fixture(scope="session", autouse=True)
def _own_archive_cache(tmp_path_factory: pytest.TempPathFactory):
    """Archives unpack into this session's (this worker's) tmp folder, never ~/.cache/k10s:
    runs and xdist workers share nothing. A test that sets K10S_CACHE_DIR itself still wins."""
    before = os.environ.get("K10S_CACHE_DIR")
    os.environ["K10S_CACHE_DIR"] = str(tmp_path_factory.mktemp("k10s-cache"))
    yield
    if before is None:
        os.environ.pop("K10S_CACHE_DIR", None)
    else:
        os.environ["K10S_CACHE_DIR"] = before


@pytest.fixture(scope="session")
def twins(tmp_path_factory: pytest.TempPathFactory):
    """Two analysis servers of this worker, one per configuration of the determinism check
    (PYTHONHASHSEED=1 and 1 DuckDB thread, seed 2, 4 threads and the rule gates off; tests/determinism_kit.py):
    ``twins.findings(name, bundle, out)`` analyses in both, raises ``DeterminismError`` unless the
    outputs are byte-identical, and returns the JSON result. A test that analyses a sample bundle, a
    real incident or a scenario anyway uses it, so the determinism sweep builds nothing of its own."""
    from determinism_kit import Twins

    kit = Twins(tmp_path_factory.mktemp("twins"))
    yield kit
    kit.close()


_SHARED_SCOPES = ("module", "class", "package")

#: Modules whose module-scoped fixtures are cheap next to their many independent tests (a scratch
#: folder, a tally, a Chromium): spread test by test over the workers like any other.
SPREAD_MODULES = frozenset({"test_rules_scenarios", "test_report_browser"})

#: End-to-end modules (a real Chromium, Prometheus, JVM, tmux or kubectl; a simulate + analyze or
#: an import + analyze per case; capture subprocesses; fuzzed rebuilds): every test in them is
#: marked ``slow``. They always run in ``./dev.sh test``; ``./dev.sh test --quick`` leaves them out.
#: A single slow test elsewhere takes ``@pytest.mark.slow`` (anything over ~30 s on 2 cores).
SLOW_MODULES = frozenset({
    "test_capture_e2e", "test_capture_fr_ras_e2e", "test_capture_interrupt",
    "test_fleet_index", "test_fleet_report", "test_fleet_spark",
    "test_integrity_bad_input", "test_integrity_concurrency", "test_integrity_crash", "test_integrity_fuzz",
    "test_prometheus_history",
    "test_real_incidents", "test_real_incidents_corpus",
    "test_report_browser",
    "test_rules_edge_sim", "test_rules_scenarios", "test_scenarios_fr_ras",
    "test_serve_kubectl", "test_sharing_findings",
    "test_view_large", "test_view_live", "test_view_samples", "test_view_tmux",
    "test_torch_runs", "test_paste_wordings", "test_paste_real_incidents", "test_capture_gpu_startup",
    "test_watch_incident", "test_watch_faults", "test_watch_cli", "test_watch_alertmanager", "test_diff",
})


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under ``pytest -n N --dist loadgroup`` (./dev.sh test): the tests of a module that share a
    module-scoped fixture run on one worker, so the fixture is built once, not once per worker;
    every other test (and SPREAD_MODULES) is spread one by one. Tests of SLOW_MODULES are
    marked ``slow``."""
    for item in items:
        module = item.module.__name__.rpartition(".")[2] if getattr(item, "module", None) else ""
        if module in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
        info = getattr(item, "_fixtureinfo", None)
        if info is None:
            continue
        scopes = {defs[-1].scope for name, defs in info.name2fixturedefs.items() if defs and name in item.fixturenames}
        if module not in SPREAD_MODULES and scopes & set(_SHARED_SCOPES) and not any(item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group(item.module.__name__ if item.module else item.nodeid.split("::")[0]))


@pytest.hookimpl(trylast=True, specname="pytest_collection_modifyitems")
def pytest_collection_modifyitems_slow_first(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slow tests first, each module's order kept (a stable sort): xdist hands out work in collection
    order, so the long end-to-end modules and groups start while the many short tests are still queued
    to fill the gaps, instead of one long group left running alone on one worker at the end."""
    items.sort(key=lambda item: 0 if item.get_closest_marker("slow") else 1)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """Under ``--dist loadgroup`` a worker gives each grouped test the nodeid suffix ``@group``;
    pytest 9.2 made ``nodeid`` read-only and xdist 3.8's suffix silently stopped working (tests
    that build in the source tree then raced). Refuse to run rather than run ungrouped."""
    if not session.config.option.__dict__.get("loadgroup"):
        return
    lost = [item.nodeid for item in session.items if any(item.iter_markers("xdist_group")) and "@" not in item.nodeid]
    if lost:
        raise pytest.UsageError(f"pytest-xdist's --dist loadgroup did not group {len(lost)} tests (e.g. {lost[0]}): "
                                "this pytest/pytest-xdist pair is unsupported; pyproject.toml pins the test extras")
