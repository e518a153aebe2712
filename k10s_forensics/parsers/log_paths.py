"""The pod a container's log file is named after: kubelet's own trees and the streams named after them.

kubelet keeps a container's log at ``/var/log/pods/<namespace>_<pod>_<pod uid>/<container>/<restart>.log``
(rotated: ``<restart>.log.<YYYYMMDD-hhmmss>``, the older ones compressed, ``….gz``) and links it from
``/var/log/containers/<pod>_<namespace>_<container>-<64 hex container id>.log``; log collectors name their
streams and tags after the link (Fluent Bit's ``kube.var.log.containers.<…>.log``, Container Insights'
``<host>-application.var.log.containers.<…>.log``). The file itself (CRI or Docker's json-file) names no pod,
so a path is all that says whose lines they are: given on the command line (``k10s import-logs
/var/log/pods/*/*/*``), as an archive's member (``tar czf node-0.tar.gz /var/log/pods``), or as the file a
collector read (Splunk's ``source``, Vector's ``file``, ECS's ``log.file.path``).

Read from the path's tail: the ``pods/`` folder may be gone (``cp -r /var/log/pods/<ns>_<pod>_<uid> .``) when the
uid is whole (a UUID, or a static pod's 32 hex digits), and a link copied on its own (``cp -L
/var/log/containers/train-* .``) still names its pod when its 64-hex container id is there.
"""

from __future__ import annotations

import re

_NAME = r"[a-z0-9][-a-z0-9]*"
_POD = r"[a-z0-9][-a-z0-9.]*"
_ROTATED = r"\d+\.log(?:\.\d{8}-\d{6})?(?:\.gz)?$"
_UUID = r"(?:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32})"
#: a collector's stream or tag named after kubelet's link, or the link itself: ``…containers[./]<pod>_<ns>_<container>-<id>[.log]``
_STREAM = re.compile(rf"containers[./]({_POD})_({_NAME})_({_NAME})-[0-9a-f]{{64}}(?:\.log)?$")
#: the link copied on its own: ``<pod>_<ns>_<container>-<id>.log``
_LINK = re.compile(rf"(?:^|/)({_POD})_({_NAME})_({_NAME})-[0-9a-f]{{64}}\.log$")
#: kubelet's folder: ``pods/<ns>_<pod>_<uid>/<container>/<n>.log[.<time>][.gz]``, or without ``pods/`` for a whole uid
_POD_DIR = re.compile(rf"(?:^|/)pods/({_NAME})_({_POD})_[0-9a-f-]{{8,64}}/({_NAME})/{_ROTATED}")
_UID_DIR = re.compile(rf"(?:^|/)({_NAME})_({_POD})_{_UUID}/({_NAME})/{_ROTATED}")


def path_names(path: object) -> tuple[str, str, str] | None:
    """(namespace, pod, container) a log file's path, or a stream named after one, gives; None when it names none."""
    if not isinstance(path, str) or len(path) > 1024:
        return None
    path = path.replace("\\", "/")
    for pattern in (_STREAM, _LINK):
        m = pattern.search(path)
        if m:
            return m.group(2), m.group(1), m.group(3)
    for pattern in (_POD_DIR, _UID_DIR):
        m = pattern.search(path)
        if m:
            return m.group(1), m.group(2), m.group(3)
    return None


def path_pod(path: object) -> tuple[str | None, str | None]:
    """(pod, container) of ``path_names``, else (None, None)."""
    found = path_names(path)
    return (found[1], found[2]) if found else (None, None)


def source_name(path: str) -> str | None:
    """The name a log file given by its path is read under when the path names its pod: the path from kubelet's
    ``<ns>_<pod>_<uid>/`` folder on (``team-a_train-0_<uid>/pytorch/0.log``), or the link's own name; None when it
    names none (the file's name is then enough)."""
    posix = path.replace("\\", "/")
    if path_names(posix) is None:
        return None
    parts = posix.split("/")
    return "/".join(parts[-1:] if _LINK.search(posix) or _STREAM.search(posix) else parts[-3:])


__all__ = ["path_names", "path_pod", "source_name"]
