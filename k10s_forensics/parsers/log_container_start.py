"""A GPU container that could not start, in the words of its runtime, pasted beside (or instead of) a log.

A user whose GPU pod never ran pastes ``kubectl describe pod``'s events or ``docker run``'s refusal; the capture reads
the same from the API (queries/gpu_startup.sql), a paste gives only the words, each the node's, not a rank's:

* the NVIDIA container toolkit's hook failing at container creation: ``nvidia-container-cli: initialization error: nvml
  error: driver/library version mismatch`` (the driver upgraded without a reboot), ``… load library failed:
  libnvidia-ml.so.1: cannot open shared object file`` (no driver on the node), ``nvidia-container-cli: device error:
  …: unknown device`` (a GPU the node does not have), ``nvidia-container-cli: requirement error: unsatisfied condition:
  cuda>=12.4, please update your driver …`` (the image's CUDA newer than the driver);
* no NVIDIA runtime for the container: containerd's ``no runtime for "nvidia" is configured``, CRI-O's ``unknown runtime
  handler``, Docker's ``could not select device driver "" with capabilities: [[gpu]]``;
* the kubelet refusing the pod at admission: ``UnexpectedAdmissionError`` / ``Allocate failed due to requested number of
  devices unavailable for nvidia.com/gpu`` (the device plugin's GPUs gone).

Each is a ``container_start`` event, no rank: ``subkind`` the cause as gpu-startup names it, ``error_type`` who said it,
``error_message`` the words (from the one that says what failed).
"""

from __future__ import annotations

import re
from typing import Any

Event = dict[str, Any]

#: (pattern, cause, who), the most specific first; each pattern starts at the words that say what failed
WORDINGS = (
    (re.compile(r"nvidia-container-cli: (?:initialization error: )?(?:nvml error: )?driver/library version mismatch[^\n]{0,200}", re.I),
     "toolkit-driver-mismatch", "nvidia-container-cli"),
    (re.compile(r"nvidia-container-cli: initialization error: load library failed: [^\n]{0,200}"), "toolkit-load-library", "nvidia-container-cli"),
    (re.compile(r"nvidia-container-cli: device error: [^\n]{0,200}"), "toolkit-device-error", "nvidia-container-cli"),
    (re.compile(r"nvidia-container-cli: requirement error: unsatisfied condition: cuda ?>= ?[\d.]{1,10}[^\n]{0,200}"),
     "cuda-driver-too-old", "nvidia-container-cli"),
    (re.compile(r"no runtime for \"?nvidia\"? is configured[^\n]{0,100}|unknown runtime handler:? \"?nvidia[^\n]{0,100}"),
     "no-nvidia-runtime", "container runtime"),
    (re.compile(r"could not select device driver \"[^\"]{0,40}\" with capabilities: \[\[gpu\]\][^\n]{0,40}"), "no-nvidia-runtime", "docker"),
    (re.compile(r"Allocate failed due to [^\n]{0,200}nvidia\.com/gpu[^\n]{0,200}"), "device-plugin-unhealthy", "kubelet"),
)
#: the substrings one of the wordings holds (checked first: a line without any is none of them)
MARKS = ("nvidia-container-cli: ", "runtime for", "runtime handler", "could not select device driver", "Allocate failed due to ")


def container_start(text: str) -> Event | None:
    """The event of a line holding a GPU container runtime's refusal to start a container (None: not one)."""
    if not any(mark in text for mark in MARKS):
        return None
    for rx, cause, who in WORDINGS:
        m = rx.search(text)
        if m:
            return {"kind": "container_start", "subkind": cause, "error_type": who, "_no_rank": True,
                    "error_message": m.group(0).strip()[:300]}
    return None


__all__ = ["WORDINGS", "container_start"]
