"""Logs saved in other encodings than UTF-8 (Windows PowerShell's ``>`` writes UTF-16 LE with a mark) read as text."""

from __future__ import annotations

import codecs
import io
import sys
import types
import zipfile

import pytest

from k10s_forensics.errors import InputError
from k10s_forensics.logimport import read_sources
from k10s_forensics.parsers.log_archive import members
from k10s_forensics.parsers.log_encoding import decode_log

LOG = ("[rank1]: Traceback (most recent call last):\n"
       "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 1; 79.14 GiB total)\n"
       "E1130 04:00:00.000000 140 torch/distributed/elastic/multiprocessing/api.py:874] failed (exitcode: 1) "
       "local_rank: 1 (pid: 2127) of binary: /usr/bin/python3 ✓ 训练\n")

ENCODED = {
    "utf-8": LOG.encode("utf-8"),
    "utf-8 with a mark": codecs.BOM_UTF8 + LOG.encode("utf-8"),
    "utf-16 le with a mark (PowerShell 5.1 >)": codecs.BOM_UTF16_LE + LOG.encode("utf-16-le"),
    "utf-16 be with a mark": codecs.BOM_UTF16_BE + LOG.encode("utf-16-be"),
    "utf-16 le without a mark": LOG.encode("utf-16-le"),
    "utf-16 be without a mark": LOG.encode("utf-16-be"),
    "utf-32 le with a mark": codecs.BOM_UTF32_LE + LOG.encode("utf-32-le"),
    "utf-32 be with a mark": codecs.BOM_UTF32_BE + LOG.encode("utf-32-be"),
}


@pytest.mark.parametrize("encoding", ENCODED)
def test_every_encoding_reads_as_the_same_text(encoding):
    assert decode_log(ENCODED[encoding]) == LOG


@pytest.mark.parametrize("data", [
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)),
    b"\x7fELF\x02\x01\x01\x00" + b"\x00" * 8 + bytes(range(1, 200)),
    bytes(range(256)) * 4,
    b"\x00\x00\x00\x00",
], ids=["png", "elf", "every-byte", "nuls"])
def test_binary_data_is_no_text(data):
    assert decode_log(data) is None


def test_a_latin1_letter_is_replaced_and_the_wording_kept():
    text = decode_log("caf\xe9 [rank0]: RuntimeError: boom\n".encode("latin-1"))
    assert text == "caf\ufffd [rank0]: RuntimeError: boom\n"


def test_a_powershell_saved_file_imports_as_its_utf8_twin(tmp_path):
    (tmp_path / "ps.txt").write_bytes(ENCODED["utf-16 le with a mark (PowerShell 5.1 >)"])
    (tmp_path / "u8.txt").write_bytes(ENCODED["utf-8"])
    (tmp_path / "bin.txt").write_bytes(b"\x00\x01\x02\x03" * 64)
    assert [s.text for s in read_sources(str(tmp_path / "ps.txt"))] == [s.text for s in read_sources(str(tmp_path / "u8.txt"))]
    with pytest.raises(InputError, match="binary data, not a text log"):
        read_sources(str(tmp_path / "bin.txt"))


def test_stdin_bytes_are_decoded_alike(monkeypatch):
    monkeypatch.setattr(sys, "stdin", types.SimpleNamespace(buffer=io.BytesIO(ENCODED["utf-16 be with a mark"])))
    assert [s.text for s in read_sources("-")] == [LOG]


def test_an_archive_member_in_utf16_is_read(tmp_path):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("logs/worker-0.log", ENCODED["utf-16 le with a mark (PowerShell 5.1 >)"])
        zf.writestr("logs/core.bin", b"\x7fELF\x00\x00" + bytes(range(256)))
    assert members("logs.zip", buf.getvalue(), 1 << 20) == [("logs/worker-0.log", LOG)]


#: torch's DataLoader worker signal handler writes its message with the C string's terminating NUL (a worker's SIGBUS)
WORKER_BUS = ("[default1]:ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared "
              "memory (shm).\n[default1]:\x00[default1]:Traceback (most recent call last):\n"
              "[default1]:RuntimeError: DataLoader worker (pid 4121) is killed by signal: Bus error. \n")


def test_a_stray_nul_in_a_log_is_dropped_not_refused(tmp_path):
    assert decode_log(WORKER_BUS.encode("utf-8")) == WORKER_BUS.replace("\x00", "")
    (tmp_path / "node0.log").write_bytes((LOG * 40 + WORKER_BUS).encode("utf-8"))
    assert [s.text for s in read_sources(str(tmp_path / "node0.log"))] == [LOG * 40 + WORKER_BUS.replace("\x00", "")]


@pytest.mark.parametrize("data", [
    (LOG * 4).encode("utf-8").replace(b" ", b"\x00"),  # NULs every few bytes: not a stray terminator
    (LOG * 4).encode("utf-8") + b"\x00" + bytes(range(1, 9)) * 30,  # one NUL, but control bytes throughout
    b"\x00\x01",  # a tiny file: under a hundred bytes no NUL is stray
], ids=["many-nuls", "control-bytes", "tiny"])
def test_text_with_more_than_stray_nuls_is_still_binary(data):
    assert decode_log(data) is None
