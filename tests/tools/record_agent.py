"""One launcher process of a recorded run (tests/tools/record_torch.py): its merged stdout+stderr, each line
stamped when it arrived (as ``kubectl logs --timestamps`` serves a pod's log), this machine's paths scrubbed."""

from __future__ import annotations

import datetime as dt
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def scrub(text: str) -> str:
    """This machine's paths as a container's would read (/workspace), nothing else changed."""
    text = text.replace(str(REPO), "/workspace")
    mixed = os.environ.get("K10S_MIXED_BIN")  # another node's venv (another torch version): read as /opt/venv too
    if mixed:
        text = text.replace(str(Path(mixed).parent), "/opt/venv")
    prefix = str(Path(sys.prefix))
    return text if prefix.startswith(str(REPO)) else text.replace(prefix, "/opt/venv")


class Agent:
    """One launcher process (a node): its merged output, each line stamped when it arrived."""

    def __init__(self, name: str, cmd: list[str], env: dict[str, str]):
        self.name, self.cmd, self.lines = name, cmd, []
        self.proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        for raw in self.proc.stdout:
            stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f") + "000Z"
            self.lines.append(stamp + " " + scrub(raw.decode("utf-8", "replace").rstrip("\r\n")))

    def kill_group(self, sig: int = signal.SIGKILL) -> None:
        """The agent and every process under it (torchrun starts workers in sessions of their own),
        as when the node's pod dies."""
        for pid in [self.proc.pid, *_descendants(self.proc.pid)]:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass

    def wait(self, deadline: float) -> None:
        try:
            self.proc.wait(timeout=max(0.1, deadline - time.time()))
        except subprocess.TimeoutExpired:
            self.kill_group()
            self.proc.wait()
        self.reader.join(timeout=5)


def _descendants(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        for f in Path(f"/proc/{p}/task").glob("*/children"):
            try:
                kids = [int(k) for k in f.read_text().split()]
            except OSError:
                continue
            out += kids
            todo += kids
    return out


__all__ = ["Agent", "REPO", "scrub"]
