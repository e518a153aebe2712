"""The collector registry lists every module in collectors/, and each collector is well formed."""

from __future__ import annotations

from pathlib import Path

import k10s_forensics.collectors as registry
from k10s_forensics.collectors import COLLECTORS, PHASES, Access, Collector

COLLECTORS_DIR = Path(registry.__file__).resolve().parent


def test_every_module_is_registered():
    modules = {p.stem for p in COLLECTORS_DIR.glob("*.py") if p.stem != "__init__"}
    assert modules, "no collector modules found"
    missing = modules - set(registry.COLLECTOR_MODULES)
    assert not missing, f"collector modules not listed in COLLECTOR_MODULES: {sorted(missing)}"
    assert len(COLLECTORS) == len(registry.COLLECTOR_MODULES) == len(modules)


def test_the_issue_collectors_are_all_there():
    names = {c.name for c in COLLECTORS}
    assert names == {"nodes", "pods", "events", "namespaces", "training-jobs", "kueue", "gpu-operator", "dcgm",
                     "nvidia-smi", "visible-devices", "ss", "dmesg", "logs", "prometheus", "flight-recorder", "ncclras",
                     "runtime-classes", "gpu-operator-logs"}


def test_collectors_are_well_formed():
    names = [c.name for c in COLLECTORS]
    assert len(names) == len(set(names)), "collector names must be unique"
    for c in COLLECTORS:
        assert isinstance(c, Collector) and type(c).run is not Collector.run, c
        assert c.phases and set(c.phases) <= set(PHASES), c
        assert set(c.needs) <= set(names), f"{c.name} needs an unknown collector: {c.needs}"
        assert c.access and all(isinstance(a, Access) for a in c.access), f"{c.name} declares no access for --check"
        assert c.description, c.name
        for a in c.access:
            assert a.verb in ("get", "list", "watch", "create"), a
            if a.verb == "create":
                assert (a.resource, a.subresource) == ("pods", "exec"), "create is only for pods/exec"


def test_needs_form_no_cycle():
    by_name = {c.name: c for c in COLLECTORS}

    def visit(name: str, path: tuple[str, ...]) -> None:
        assert name not in path, f"dependency cycle: {' -> '.join(path + (name,))}"
        for dep in by_name[name].needs:
            visit(dep, path + (name,))

    for c in COLLECTORS:
        visit(c.name, ())


def test_no_collector_reads_secrets_or_configmaps():
    for c in COLLECTORS:
        for a in c.access:
            assert a.resource not in ("secrets", "configmaps"), f"{c.name} must not read {a.resource}"
    for path in COLLECTORS_DIR.glob("*.py"):
        text = path.read_text()
        assert "/secrets" not in text and "/configmaps" not in text, f"{path.name} touches secrets/configmaps"
