"""``kubectl describe pod`` pasted beside a log: a training pod's terminated container.

A user whose job died pastes the failed pod's description as often as its log::

    Name:             llama-worker-1
    Labels:           training.kubeflow.org/replica-index=1
                      training.kubeflow.org/replica-type=worker
    Containers:
      pytorch:
        State:          Waiting
          Reason:       CrashLoopBackOff
        Last State:     Terminated
          Reason:       OOMKilled
          Exit Code:    137
        Environment:
          RANK:         2

One block is read line by line (``DescribeBlocks.feed``): the pod's name starts it, a
``Terminated`` state with a non-zero ``Exit Code`` is the container's end (a ``pod_status`` exit
as ``log_pods`` makes of a ``kubectl get pods`` row; ``OOMKilled``: the kernel's OOM killer,
exit −9), the Kubeflow labels say the replica where the name does not, and the ``RANK`` the
training operator set in the container's environment, printed later in the block, is the rank
itself. Without that ``RANK`` the rank comes, as for a pod row, from the job's layout the paste
shows (``log_pods.resolve_ranks``).
"""

from __future__ import annotations

import re
from typing import Any

from k10s_forensics.parsers.log_pods import REPLICA

Event = dict[str, Any]

NAME = re.compile(r"^Name:\s+(?P<pod>[a-z0-9](?:[a-z0-9.-]{0,251}[a-z0-9])?)\s*$")
STATE = re.compile(r"^\s+(?:Last )?State:\s+(?P<state>Terminated|Running|Waiting)\b")
REASON = re.compile(r"^\s+Reason:\s+(?P<reason>[A-Za-z][\w-]{0,40})\s*$")
EXIT_CODE = re.compile(r"^\s+Exit Code:\s+(?P<code>-?\d{1,4})\s*$")
LABEL = re.compile(r"training\.kubeflow\.org/replica-(?P<key>type|index)=(?P<value>[a-z0-9-]{1,63})\b")
ENV_RANK = re.compile(r"^\s+RANK:\s+(?P<rank>\d{1,7})\s*$")


class DescribeBlocks:
    """The ``kubectl describe pod`` blocks of one log body, fed line by line."""

    def __init__(self) -> None:
        self._pod: str | None = None
        self._replica: dict[str, Any] = {}
        self._terminated = False
        self._reason: str | None = None
        self._events: list[Event] = []  # this block's exits, given the RANK printed after them

    def feed(self, text: str) -> Event | None:
        """The exit ``text`` completes (a ``pod_status`` event), a ``_pod_seen`` marker for a block's
        replica (its name), else None."""
        m = NAME.match(text)
        if m:
            self.__init__()
            self._pod = m.group("pod")
            found = REPLICA.match(self._pod)
            if found:
                index = found.group("index")
                self._replica = {"_job": found.group("job"), "_role": found.group("role"), "_index": int(index) if index else None}
                return {"kind": "_pod_seen", **self._replica}  # the replica exists: the job's layout (log_pods)
            return None
        if self._pod is None:
            return None
        for label in LABEL.finditer(text):
            key = "_role" if label.group("key") == "type" else "_index"
            value = label.group("value")
            self._replica[key] = value if key == "_role" else int(value) if value.isdigit() else None
        if (m := STATE.match(text)) is not None:
            self._terminated, self._reason = m.group("state") == "Terminated", None
        elif self._terminated and (m := REASON.match(text)) is not None:
            self._reason = m.group("reason")
        elif self._terminated and (m := EXIT_CODE.match(text)) is not None:
            self._terminated = False
            return self._exit(int(m.group("code")))
        elif (m := ENV_RANK.match(text)) is not None:
            for ev in self._events:
                ev["_env_rank"] = int(m.group("rank"))
        return None

    def _exit(self, code: int) -> Event | None:
        if code == 0 or "_job" not in self._replica:
            return None
        reason = self._reason or "Terminated"
        ev = {"kind": "process_exit", "subkind": "pod_status", "exit_code": -9 if reason == "OOMKilled" else code,
              "error_message": f"pod {self._pod}: {reason} (exit code {code})"[:300], "_no_rank": True, **self._replica}
        self._events.append(ev)
        return ev


__all__ = ["DescribeBlocks"]
