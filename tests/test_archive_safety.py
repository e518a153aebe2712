"""Hostile archives are refused with the right message and nothing lands outside the target."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest

from k10s_forensics.store.archive import safe_unpack, unpack_to_cache
from k10s_forensics.store.bundle import Bundle, BundleWriter, new_manifest
from k10s_forensics.errors import BundleError, UnsafeArchiveError
from k10s_forensics.sharing.pack import pack
from k10s_forensics.sharing.verify import verify


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    cache = tmp_path / "cache"
    monkeypatch.setenv("K10S_CACHE_DIR", str(cache))
    return cache


def small_bundle(path: Path) -> Path:
    w = BundleWriter(path, new_manifest())
    w.add("objects", {"api_version": "v1", "kind": "Namespace", "name": "team-a", "uid": "u1", "body": '{"kind":"Namespace"}'})
    w.add("logs", {"namespace": "team-a", "pod": "p", "body": "2026-01-01T00:00:00Z hello\n"})
    w.record_collector({"name": "pods", "status": "ok", "rows": 1})
    return w.close().path


def _manifest_for(files: dict[str, bytes]) -> dict:
    manifest = new_manifest()
    manifest["files"] = {rel: {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)} for rel, data in files.items()}
    return manifest


def write_archive(path: Path, members: list[tuple[tarfile.TarInfo, bytes | None]], level: int = 1) -> Path:
    with gzip.open(path, "wb", compresslevel=level) as gz, tarfile.open(fileobj=gz, mode="w|") as tf:
        for info, data in members:
            tf.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def regular(name: str, data: bytes) -> tuple[tarfile.TarInfo, bytes]:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def special(name: str, kind: bytes, linkname: str = "") -> tuple[tarfile.TarInfo, None]:
    info = tarfile.TarInfo(name)
    info.type = kind
    info.linkname = linkname
    return info, None


def hostile(tmp_path: Path, extra: list, files: dict[str, bytes] | None = None, manifest: dict | None = None) -> Path:
    files = files if files is not None else {"raw/logs.parquet": b"PAR1 not really"}
    manifest = manifest or _manifest_for(files)
    members = [regular("b/manifest.json", json.dumps(manifest).encode())]
    members += [regular(f"b/{rel}", data) for rel, data in files.items()]
    return write_archive(tmp_path / "hostile.tar.gz", members + extra)


def _assert_nothing_outside(tmp_path: Path) -> None:
    assert not list(tmp_path.rglob("evil*")), "a hostile member was written"
    assert not list((tmp_path / "cache").glob("*.tmp")), "a partial unpack was left behind"


@pytest.mark.parametrize(
    "member, message",
    [
        (regular("b/../../evil.txt", b"x"), "escapes the target directory"),
        (regular("/tmp/evil.txt", b"x"), "absolute path"),
        (special("b/raw/evil-link", tarfile.SYMTYPE, "/etc/passwd"), "symbolic link"),
        (special("b/raw/evil-hard", tarfile.LNKTYPE, "/etc/passwd"), "hard link"),
        (special("b/raw/evil-dev", tarfile.CHRTYPE), "device file"),
        (special("b/raw/evil-fifo", tarfile.FIFOTYPE), "device file or FIFO"),
        (regular("b/raw/evil-extra.parquet", b"x"), "not listed in the manifest"),
        (regular("b/raw/logs.parquet", b"PAR1 not really"), "appears twice"),
    ],
)
def test_hostile_members_are_refused(tmp_path: Path, member, message: str) -> None:
    archive = hostile(tmp_path, [member])
    with pytest.raises(UnsafeArchiveError, match=message):
        unpack_to_cache(archive)
    _assert_nothing_outside(tmp_path)
    result = verify(archive)
    assert len(result.problems) == 1 and message in result.problems[0]


def test_decompression_bomb_over_the_byte_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("K10S_MAX_UNPACK_BYTES", str(4 << 20))
    archive = hostile(tmp_path, [], files={"raw/logs.parquet": bytes(8 << 20)})
    with pytest.raises(UnsafeArchiveError, match="over the limit"):
        Bundle.open(archive)
    _assert_nothing_outside(tmp_path)


def test_decompression_bomb_over_the_ratio_limit(tmp_path: Path) -> None:
    archive = hostile(tmp_path, [], files={"raw/logs.parquet": bytes(70 << 20)})
    assert archive.stat().st_size < 1 << 20
    with pytest.raises(UnsafeArchiveError, match="ratio limit"):
        unpack_to_cache(archive)


def test_member_larger_than_the_manifest_says(tmp_path: Path) -> None:
    files = {"raw/logs.parquet": b"y" * 5000}
    manifest = _manifest_for({"raw/logs.parquet": b"y" * 10})
    archive = hostile(tmp_path, [], files=files, manifest=manifest)
    with pytest.raises(UnsafeArchiveError, match="larger than the 10 the manifest lists"):
        unpack_to_cache(archive)


def test_manifest_must_come_first(tmp_path: Path) -> None:
    archive = write_archive(tmp_path / "a.tar.gz", [regular("b/raw/logs.parquet", b"x"), regular("b/manifest.json", b"{}")])
    with pytest.raises(BundleError, match="manifest.json must be the first member"):
        unpack_to_cache(archive)


def test_not_an_archive(tmp_path: Path) -> None:
    junk = tmp_path / "junk.bin"
    junk.write_bytes(b"hello, not a tar")
    with pytest.raises(BundleError, match="neither a bundle folder nor a .tar.gz"):
        Bundle.open(junk)


def test_tampered_checksum_is_rejected(tmp_path: Path) -> None:
    bundle = small_bundle(tmp_path / "b")
    files = {rel: (bundle / rel).read_bytes() for rel in json.loads((bundle / "manifest.json").read_text())["files"]}
    manifest = json.loads((bundle / "manifest.json").read_text())
    tampered = bytearray(files["raw/logs.parquet"])
    tampered[len(tampered) // 2] ^= 0xFF
    files["raw/logs.parquet"] = bytes(tampered)
    archive = hostile(tmp_path, [], files=files, manifest=manifest)
    with pytest.raises(BundleError, match="raw/logs.parquet: checksum mismatch"):
        Bundle.open(archive)
    _assert_nothing_outside(tmp_path)
    problems = verify(archive).problems
    assert any("raw/logs.parquet: checksum mismatch" in p for p in problems)


def test_truncated_archive(tmp_path: Path) -> None:
    archive = pack(small_bundle(tmp_path / "b"), tmp_path / "b.tar.gz").path
    data = archive.read_bytes()
    cut = tmp_path / "cut.tar.gz"
    cut.write_bytes(data[: len(data) * 2 // 3])
    with pytest.raises(BundleError):
        unpack_to_cache(cut)
    assert not verify(cut).ok


def test_good_archive_opens_and_is_reused_from_cache(tmp_path: Path, _cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    archive = pack(small_bundle(tmp_path / "b"), tmp_path / "b.tar.gz").path
    opened = Bundle.open(archive)
    assert opened.path.parent == _cache and opened.has_raw("logs") and opened.has_raw("objects")
    import k10s_forensics.store.archive as archive_mod

    def boom(*_a, **_k):
        raise AssertionError("unpacked again instead of reusing the cache")

    monkeypatch.setattr(archive_mod, "safe_unpack", boom)
    assert Bundle.open(archive).path == opened.path


def test_safe_unpack_requires_a_fresh_target(tmp_path: Path) -> None:
    """Unpacking never writes into an existing folder (which could hold planted links)."""
    archive = pack(small_bundle(tmp_path / "b"), tmp_path / "b.tar.gz").path
    target = tmp_path / "t"
    target.mkdir()
    (target / "raw").symlink_to(tmp_path / "evil-dir")
    with pytest.raises(FileExistsError):
        safe_unpack(archive, target)
    assert not (tmp_path / "evil-dir").exists()
