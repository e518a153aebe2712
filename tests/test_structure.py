"""Structure: no import circles, commands load lazily, analyze/sql stay light."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from import_graph import cycles, module_graph, package_graph

#: Package-level circles known and accepted, with why. The collectors are plugins written
#: against capture's context/retry/commands, and capture's engine and permission check
#: load their registry by default: one layer split across two folders.
KNOWN_PACKAGE_CIRCLES = [["k10s_forensics.capture", "k10s_forensics.collectors"]]

#: Heavy packages the analyze/sql commands must not import.
HEAVY = ("plotly", "jinja2", "kubernetes", "textual", "pyspark", "websocket", "urllib3")


def test_no_module_imports_itself_through_a_circle():
    found = cycles(module_graph())
    assert found == [], "import circles (break them so each module imports downward only): " + "; ".join(" <-> ".join(c) for c in found)


def test_packages_import_downward_only():
    found = [c for c in cycles(package_graph(module_graph())) if c not in KNOWN_PACKAGE_CIRCLES]
    assert found == [], "package import circles: " + "; ".join(" <-> ".join(c) for c in found)


def test_the_circle_finder_finds_circles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_command_index_names_every_command_and_its_module():
    from k10s_forensics.cli import COMMAND_INDEX, COMMAND_MODULES, cli

    commands = cli.load_all()
    actual = {}
    for module in COMMAND_MODULES:
        for command in __import__(module, fromlist=["COMMANDS"]).COMMANDS:
            actual[command.name] = module
    assert set(commands) == set(actual)
    assert COMMAND_INDEX == actual, "k10s_forensics.cli.COMMAND_INDEX is out of date"


def _modules_loaded_by(args: list[str], tmp_path) -> set[str]:
    out = tmp_path / "mods.json"
    code = (
        "import sys, json, atexit\n"
        f"atexit.register(lambda: open({str(out)!r}, 'w').write(json.dumps(sorted(sys.modules))))\n"
        "from k10s_forensics.cli import main\n"
        f"main({args!r})\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return set(json.loads(out.read_text()))


@pytest.mark.parametrize("command", [["analyze", "--format", "json"], ["sql", "SELECT count(*) AS n FROM ranks"]])
def test_analyze_and_sql_import_only_what_they_need(command, tmp_path):
    from k10s_forensics.store.bundle import Bundle
    from k10s_forensics.rebuild.run import rebuild
    from k10s_forensics.simulate import simulate

    path = tmp_path / "b"
    simulate("healthy", path, nodes=2, gpus_per_node=2, minutes=2, seed=3)
    rebuild(Bundle.open(path))
    loaded = _modules_loaded_by([command[0], str(path), *command[1:]], tmp_path)
    heavy = sorted(m for m in loaded if m.split(".")[0] in HEAVY)
    assert heavy == []
    ours = {m for m in loaded if m.startswith("k10s_forensics.")}
    for unneeded in ("k10s_forensics.capture", "k10s_forensics.serve", "k10s_forensics.collectors", "k10s_forensics.reports",
                     "k10s_forensics.sharing", "k10s_forensics.simulate", "k10s_forensics.rebuild.run"):
        assert not any(m == unneeded or m.startswith(unneeded + ".") for m in ours), unneeded
