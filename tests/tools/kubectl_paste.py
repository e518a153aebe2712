"""Record what a user pastes from real ``kubectl`` for recorded launcher runs: the run's node logs as
the pod logs of a PyTorchJob bundle (tests/torch_runs_kit.py ``podlog_run``), served by ``k10s serve``,
read back with ``kubectl logs -l training.kubeflow.org/job-name=train --prefix --timestamps --tail=-1``
(every pod's log, one after the other, each line ``[pod/<pod>/<container>] <time> <line>``), written as
``kubectl-prefix.log`` beside the run's node logs. A run whose containers the kubelet restarted: the same command with
``--previous`` first (the earlier containers' logs), then without, pasted one after the other.

    .venv/bin/python tests/tools/kubectl_paste.py t10-          # runs whose name holds "t10-"

Needs ``kubectl`` on PATH. Not part of the test run (tests/test_torch_runs.py reads the files).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from torch_runs_kit import load_runs, podlog_run  # noqa: E402

PASTE = "kubectl-prefix.log"
KUBECTL = ["kubectl", "logs", "-n", "team-a", "-l", "training.kubeflow.org/job-name=train", "--prefix", "--timestamps",
           "--tail=-1", "--max-log-requests", "16"]


def paste(run, tmp: Path) -> str:
    podlog_run(run, tmp)
    asks = [[*KUBECTL, "--previous"], KUBECTL] if run.previous() else [KUBECTL]
    kubeconfig = tmp / "kubeconfig"
    serve = subprocess.Popen([sys.executable, "-m", "k10s_forensics", "serve", str(tmp / "bundle"), "--kubeconfig", str(kubeconfig)],
                             stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        serve.stdout.readline()  # "serving … on http://127.0.0.1:<port>": ready
        env = {"KUBECONFIG": str(kubeconfig), "HOME": str(tmp), "PATH": "/usr/bin:/bin:/usr/local/bin"}
        return "".join(subprocess.run(ask, env=env, check=True, capture_output=True, text=True, timeout=60).stdout for ask in asks)
    finally:
        serve.terminate()
        serve.wait(timeout=30)


def main() -> int:
    pattern = sys.argv[1] if len(sys.argv) > 1 else "t10-"
    for run in load_runs():
        if pattern in run.name:
            with tempfile.TemporaryDirectory() as d:
                text = paste(run, Path(d))
            (run.folder / PASTE).write_text(text, encoding="utf-8")
            print(f"{run.id}: {len(text.splitlines())} lines", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
