"""Advisory file locks that serialise rebuilds of one derived layer across processes.

One lock file per derived layer (``<bundle>/.k10s.lock``, or ``.k10s.lock`` beside a
cached ``tables/`` for read-only bundles). Readers (analyze, sql, report) hold it *shared*
while they read tables; a rebuild holds it *exclusive* while it swaps ``tables/``. A run
that must wait says so once (who holds the lock, since when), then waits.

``flock`` locks belong to the open file description and the kernel drops them when the
process dies, so a lock left by a killed process is recovered simply by taking it; what
the dead holder left behind (an unfinished ``tables.tmp-*``) is cleaned up by the caller,
which learns of it from :attr:`LayerLock.previous` (the holder note the dead process
left in the lock file).

Within one process every caller shares one descriptor per lock file (a second
descriptor would deadlock against the first), guarded by a re-entrant thread lock.
"""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from k10s_forensics.errors import BundleError

LOCK_NAME = ".k10s.lock"


@dataclass
class _Held:
    fd: int
    mode: int  # fcntl.LOCK_SH or fcntl.LOCK_EX
    readers: int = 0


_held: dict[str, _Held] = {}
_guard = threading.RLock()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def holder_note(path: Path) -> str:
    """The note the current (or last) exclusive holder wrote into the lock file."""
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return ""


def _open(path: Path) -> int:
    try:
        return os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as exc:
        raise BundleError(f"{path}: cannot open the lock file ({exc.strerror})") from None


def _flock(fd: int, mode: int, path: Path, say: Callable[[str], None] | None) -> None:
    try:
        fcntl.flock(fd, mode | fcntl.LOCK_NB)
        return
    except BlockingIOError:
        pass
    note = holder_note(path) or "another k10s process"
    if say is not None:
        say(f"waiting for {note} (lock {path}) ...")
    started = time.monotonic()
    fcntl.flock(fd, mode)
    if say is not None:
        say(f"lock {path} acquired after {time.monotonic() - started:.1f} s")


class LayerLock:
    """The lock of one derived layer, shared by every caller in this process."""

    def __init__(self, path: Path):
        self.path = path
        self.key = str(path)
        #: What the lock file said when this process first took it exclusively: a note
        #: left by a killed rebuild ("rebuilding ... pid N") or "" when it finished cleanly.
        self.previous = ""

    def acquire_shared(self, say: Callable[[str], None] | None = None) -> None:
        """Take (or keep) the lock for reading; re-entrant within the process."""
        with _guard:
            held = _held.get(self.key)
            if held is None:
                fd = _open(self.path)
                _flock(fd, fcntl.LOCK_SH, self.path, say)
                held = _held[self.key] = _Held(fd, fcntl.LOCK_SH)
            held.readers += 1

    def release_shared(self) -> None:
        with _guard:
            held = _held.get(self.key)
            if held is None:
                return
            held.readers = max(0, held.readers - 1)
            if held.readers == 0 and held.mode == fcntl.LOCK_SH:
                fcntl.flock(held.fd, fcntl.LOCK_UN)
                os.close(held.fd)
                del _held[self.key]

    def held_here(self) -> bool:
        """True when this process already holds this lock (shared or exclusive)."""
        with _guard:
            return self.key in _held

    def exclusive(self, what: str, say: Callable[[str], None] | None = None, *, wait: bool = True) -> "_Exclusive":
        """Context manager: the lock held exclusively, with ``what`` written as the holder note.

        With ``wait=False`` it yields None at once when another process holds the lock.
        """
        return _Exclusive(self, what, say, wait)


class _Exclusive:
    def __init__(self, lock: LayerLock, what: str, say: Callable[[str], None] | None, wait: bool = True):
        self.lock, self.what, self.say, self.wait = lock, what, say, wait
        self._fresh = False
        self._acquired = False

    def __enter__(self) -> LayerLock | None:
        _guard.acquire()
        held = _held.get(self.lock.key)
        if held is None and not self.wait:
            fd = _open(self.lock.path)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                _guard.release()
                return None
            held = _held[self.lock.key] = _Held(fd, fcntl.LOCK_EX)
            self._fresh = True
        elif held is None:
            held = _held[self.lock.key] = _Held(_open(self.lock.path), fcntl.LOCK_UN)
            self._fresh = True
        if held.mode != fcntl.LOCK_EX:
            # A shared holder converting: flock may drop the shared lock before upgrading.
            _flock(held.fd, fcntl.LOCK_EX, self.lock.path, self.say)
        self._previous_mode = held.mode
        held.mode = fcntl.LOCK_EX
        self.lock.previous = _dead_holder(holder_note(self.lock.path))
        _write_note(held.fd, f"{self.what} (pid {os.getpid()}, since {time.strftime('%H:%M:%S')})")
        self._acquired = True
        return self.lock

    def __exit__(self, *exc) -> None:
        if not self._acquired:
            return
        try:
            held = _held[self.lock.key]
            _write_note(held.fd, "")
            if self._fresh or self._previous_mode == fcntl.LOCK_UN:
                fcntl.flock(held.fd, fcntl.LOCK_UN)
                os.close(held.fd)
                del _held[self.lock.key]
            else:  # back to the shared lock the caller held before
                fcntl.flock(held.fd, fcntl.LOCK_SH)
                held.mode = fcntl.LOCK_SH
        finally:
            _guard.release()


def _dead_holder(note: str) -> str:
    """``note`` when it names a process that is gone (it was killed holding the lock)."""
    if "(pid " not in note:
        return ""
    try:
        pid = int(note.split("(pid ", 1)[1].split(",", 1)[0].split(")", 1)[0])
    except ValueError:
        return note
    return note if pid != os.getpid() and not _pid_alive(pid) else ""


def _write_note(fd: int, text: str) -> None:
    os.ftruncate(fd, 0)
    if text:
        os.pwrite(fd, (text + "\n").encode("utf-8"), 0)


def release_all() -> None:
    """Drop every lock this process holds (tests; long-lived processes between bundles)."""
    with _guard:
        for held in _held.values():
            try:
                fcntl.flock(held.fd, fcntl.LOCK_UN)
                os.close(held.fd)
            except OSError:
                pass
        _held.clear()


__all__ = ["LOCK_NAME", "LayerLock", "holder_note", "release_all"]
