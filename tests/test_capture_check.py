"""``k10s capture --check`` and CLI error paths (real serve, real CLI in a subprocess)."""

from __future__ import annotations

import contextlib
import io

import pytest

from k10s_forensics.serve import start_server
from k10s_forensics.simulate import simulate


@pytest.fixture(scope="module")
def kubeconfig(tmp_path_factory):
    root = tmp_path_factory.mktemp("sim-check")
    simulate("healthy", root / "b", seed=4, nodes=2, gpus_per_node=1, minutes=1, interval_s=30)
    srv = start_server(root / "b")
    yield srv.write_kubeconfig(root / "kc.yaml")
    srv.stop()


def _k10s(*args, timeout=60):
    """Run the real CLI entry point in-process (``main`` turns errors into messages and exit codes)."""
    from types import SimpleNamespace

    from k10s_forensics.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return SimpleNamespace(returncode=code, stdout=out.getvalue(), stderr=err.getvalue())


def test_check_reports_each_collector_or_says_why_it_cannot(kubeconfig):
    proc = _k10s("capture", "--kubeconfig", str(kubeconfig), "-A", "--check")
    assert proc.returncode == 0, proc.stderr
    verdicts = {line.split()[0]: line.split(None, 1)[1] for line in proc.stdout.splitlines() if line and not line.startswith(" ")}
    from k10s_forensics.collectors import COLLECTORS

    assert set(verdicts) == {c.name for c in COLLECTORS}
    assert all(v == "would run" for v in verdicts.values()), proc.stdout


def test_check_names_what_rbac_denies(tmp_path_factory):
    from k10s_forensics.serve.faults import Faults

    root = tmp_path_factory.mktemp("sim-check-forbid")
    simulate("healthy", root / "b", seed=4, nodes=2, gpus_per_node=1, minutes=1, interval_s=30)
    with start_server(root / "b", faults=Faults(forbid=("events", "pods/exec"))) as srv:
        kc = srv.write_kubeconfig(root / "kc.yaml")
        proc = _k10s("capture", "--kubeconfig", str(kc), "-A", "--check")
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    skipped = {line.split()[0] for line in lines if line.endswith("would be skipped")}
    assert skipped == {"events", "visible-devices", "nvidia-smi", "ss", "dmesg", "flight-recorder", "ncclras"}
    assert any("denied: list events" in line for line in lines)
    assert any("denied: create pods/exec" in line for line in lines)


def test_bad_job_and_missing_kubeconfig_are_one_line_errors(tmp_path, kubeconfig):
    proc = _k10s("capture", "--kubeconfig", str(kubeconfig), "--job", "just-a-name", "-o", str(tmp_path / "x"))
    assert proc.returncode == 2 and "expected [KIND/]NAMESPACE/NAME" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "x").exists()
    proc = _k10s("capture", "--kubeconfig", str(tmp_path / "nope.yaml"), "-o", str(tmp_path / "y"))
    assert proc.returncode == 2 and proc.stderr.startswith("k10s: error: kubeconfig") and "Traceback" not in proc.stderr
    proc = _k10s("capture", "--kubeconfig", str(kubeconfig), "--duration", "soon")
    assert proc.returncode == 2 and "not a duration" in proc.stderr


def test_unreachable_api_server_is_a_clear_error(tmp_path):
    kc = tmp_path / "kc.yaml"
    kc.write_text("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n  cluster:\n    server: http://127.0.0.1:9\n"
                  "users:\n- name: u\n  user: {}\ncontexts:\n- name: x\n  context:\n    cluster: c\n    user: u\n"
                  "current-context: x\n")
    proc = _k10s("capture", "--kubeconfig", str(kc), "-o", str(tmp_path / "out"), "--timeout", "2s", timeout=120)
    assert proc.returncode == 1 and "cannot reach the Kubernetes API at http://127.0.0.1:9" in proc.stderr
    assert not (tmp_path / "out" / "manifest.json").exists()
