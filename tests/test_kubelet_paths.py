"""kubelet's own log trees given as paths (``k10s import-logs /var/log/pods/*/*/*``, ``/var/log/containers/*``, the same
folders in a tar or zip a user collected): the file (CRI, Docker's json-file) names no pod, its path does
(``parsers/log_paths``); the importer reads each file under a name that keeps what its path says."""

from __future__ import annotations

import gzip
import io
import os
import zipfile

import pytest

import store_shapes
from k10s_forensics.logimport import LogSource, _kubelet_files, read_sources
from k10s_forensics.parsers.log_exports import split_export
from k10s_forensics.parsers.log_paths import path_names, source_name

UID = "0d40e910-c015-d976-de01-9249659217d2"
ID = "3f" * 32
MASTER = f"team-a_train-master-0_{UID}/pytorch"
WORKER = f"team-a_train-worker-0_{UID.replace('0d', '1d', 1)}/pytorch"
CRI0 = "2026-11-28T12:04:00.100000000Z stdout F [rank0]: step 1\n2026-11-28T12:04:05.100000000Z stderr F [rank0]: RuntimeError: closed\n"
CRI1 = "2026-11-28T12:04:00.200000000Z stdout F [rank1]: step 1\n2026-11-28T12:04:03.100000000Z stderr F [rank1]: KeyError: 'x'\n"


@pytest.mark.parametrize("path,names", [
    (f"/var/log/pods/{MASTER}/0.log", ("team-a", "train-master-0", "pytorch")),
    (f"/var/log/pods/{MASTER}/0.log.20261129-101500", ("team-a", "train-master-0", "pytorch")),
    (f"/var/log/pods/{MASTER}/0.log.20261129-101500.gz", ("team-a", "train-master-0", "pytorch")),
    (f"/var/log/pods/{MASTER}/3.log", ("team-a", "train-master-0", "pytorch")),  # the container's fourth start
    (f"node-0.tar.gz/var/log/pods/{MASTER}/0.log", ("team-a", "train-master-0", "pytorch")),
    (f"C:\\incident\\var\\log\\pods\\{MASTER.replace('/', chr(92))}\\0.log", ("team-a", "train-master-0", "pytorch")),
    (f"/home/alice/incident/{MASTER}/0.log", ("team-a", "train-master-0", "pytorch")),  # the pod's folder copied: a whole uid
    ("pods/kube-system_etcd-cp-0_5c3f1e0d9a2b4c6e8f0a1b2c3d4e5f60/etcd/0.log", ("kube-system", "etcd-cp-0", "etcd")),  # a static pod
    (f"/var/log/containers/train-worker-0_team-a_pytorch-{ID}.log", ("team-a", "train-worker-0", "pytorch")),
    (f"./copied/train-worker-0_team-a_pytorch-{ID}.log", ("team-a", "train-worker-0", "pytorch")),  # the link copied alone
    (f"gpu-0-application.var.log.containers.train-worker-0_team-a_pytorch-{ID}.log", ("team-a", "train-worker-0", "pytorch")),
    ("/home/alice/team-a_train-master-0_0d40e910/pytorch/0.log", None),  # no pods/ folder and no whole uid
    (f"/var/log/pods/{MASTER}/notes.txt", None),
    (f"./train-worker-0_team-a_pytorch-{ID[:12]}.log", None),  # a short id: any file name could be that
    ("/var/log/syslog", None),
    (None, None),
])
def test_a_log_files_path_names_its_namespace_pod_and_container(path, names):
    assert path_names(path) == names


def test_a_file_given_by_its_path_is_read_under_the_name_its_tree_gives(tmp_path):
    """The folder from ``<ns>_<pod>_<uid>/`` on (the link's own name), not ``0.log``: two pods' ``0.log`` are two pods; a
    rotated ``.gz`` is read as its text; a file whose path names no pod keeps its file name; a relative path is read
    where it lies."""
    pods = tmp_path / "var" / "log" / "pods"
    for folder, name, data in [(MASTER, "0.log", CRI0.encode()), (WORKER, "0.log.20261129-101500.gz", gzip.compress(CRI1.encode(), mtime=0))]:
        (pods / folder).mkdir(parents=True)
        (pods / folder / name).write_bytes(data)
    links = tmp_path / "var" / "log" / "containers"
    links.mkdir()
    os.symlink(pods / MASTER / "0.log", links / f"train-master-0_team-a_pytorch-{ID}.log")
    (tmp_path / "node0.log").write_text("[rank0]: step 1\n")
    got = [(s.name, s.text) for p in (pods / MASTER / "0.log", pods / WORKER / "0.log.20261129-101500.gz",
                                      links / f"train-master-0_team-a_pytorch-{ID}.log", tmp_path / "node0.log") for s in read_sources(str(p))]
    assert got == [(f"{MASTER}/0.log", CRI0), (f"{WORKER}/0.log.20261129-101500.gz", CRI1),
                   (f"train-master-0_team-a_pytorch-{ID}.log", CRI0), ("node0.log", "[rank0]: step 1\n")]
    cwd = os.getcwd()
    try:
        os.chdir(pods / MASTER)
        assert [s.name for s in read_sources("0.log")] == [f"{MASTER}/0.log"]
    finally:
        os.chdir(cwd)
    assert source_name("0.log") is None


def test_two_pods_files_and_their_links_are_two_pods_in_their_namespace():
    """``/var/log/pods/*/*/*`` and ``/var/log/containers/*`` given together: each container's file read once, each pod a
    node at the rank its name gives, the namespace the paths name (unless one was given)."""
    sources = [LogSource(f"train-master-0_team-a_pytorch-{ID}.log", CRI0), LogSource(f"{WORKER}/0.log", CRI1),
               LogSource(f"{MASTER}/0.log", CRI0)]
    kept, namespace = _kubelet_files(sources, "imported")
    assert [s.name for s in kept] == [f"train-master-0_team-a_pytorch-{ID}.log", f"{WORKER}/0.log"]
    assert namespace == "team-a"
    assert _kubelet_files(sources, "prod")[1] == "prod"
    assert _kubelet_files([LogSource("a.log", "x\n"), LogSource("b.log", "x\n")], "imported") == (
        [LogSource("a.log", "x\n"), LogSource("b.log", "x\n")], "imported")  # the same lines in two files named by no pod: two logs
    logs, job, how = split_export([(s.name, s.text) for s in kept], "imported")
    assert how == "CRI log file, 4 records (2 pods: train-master-0, train-worker-0)" and job == "train"
    assert [body.split("\n")[-1].split(" ", 1)[1] for _, body in logs] == ["[rank0]: RuntimeError: closed", "[rank1]: KeyError: 'x'"]


def test_the_same_trees_in_a_tar_or_a_zip_name_their_pods(tmp_path):
    """``tar czhf`` (links followed: the file twice) or a zip of both trees: the same as given on the command line."""
    files = [(f"var/log/pods/{MASTER}/0.log", CRI0.encode()), (f"var/log/pods/{WORKER}/0.log", CRI1.encode()),
             (f"var/log/containers/train-master-0_team-a_pytorch-{ID}.log", CRI0.encode())]
    (tmp_path / "node.tar.gz").write_bytes(store_shapes.tar_gz(files))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path, data in files:
            z.writestr(path, data)
    (tmp_path / "node.zip").write_bytes(buf.getvalue())
    for archive in ("node.tar.gz", "node.zip"):
        kept, namespace = _kubelet_files(read_sources(str(tmp_path / archive)), "imported")
        assert len(kept) == 2 and namespace == "team-a"
        assert split_export([(s.name, s.text) for s in kept], "imported")[2] == "CRI log file, 4 records (2 pods: train-master-0, train-worker-0)"
