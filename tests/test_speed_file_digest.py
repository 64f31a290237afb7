"""An input's SHA-256 is taken once per process while the file is unchanged (``data/file_digest.py``), and never
outlives a change: a rewritten, truncated or replaced file gives the digest of its new bytes."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from benchlab.data import file_digest
from benchlab.data.file_digest import file_sha256, read_with_sha256


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _written(path: Path, data: bytes, age_s: int = 60) -> Path:
    """``path`` holding ``data``, last modified ``age_s`` seconds ago (a file changed just now is never
    remembered: see ``RACY_NS``)."""
    path.write_bytes(data)
    past = time.time_ns() - age_s * 1_000_000_000
    os.utime(path, ns=(past, past))
    return path


def test_the_digest_is_the_files_and_follows_every_change(tmp_path: Path) -> None:
    path = _written(tmp_path / "results.jsonl", b"first\n")
    assert file_sha256(path) == _sha(b"first\n") == file_sha256(str(path))
    _written(path, b"other\n", age_s=30)  # the same size, edited later: the modification time tells
    assert file_sha256(path) == _sha(b"other\n")
    path.write_bytes(b"longer now\n")
    assert file_sha256(path) == _sha(b"longer now\n")
    path.write_bytes(b"just now!!\n")  # the same size again, within the same second: never remembered above
    assert file_sha256(path) == _sha(b"just now!!\n")
    os.replace(_written(tmp_path / "new", b"replaced\n"), path)
    assert file_sha256(path) == _sha(b"replaced\n")
    path.unlink()
    with pytest.raises(OSError):
        file_sha256(path)


def test_a_readers_digest_is_reused_and_is_of_what_it_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _written(tmp_path / "trials.jsonl", b"trials\n")
    data, digest = read_with_sha256(path, path.read_bytes)
    assert data == b"trials\n" and digest == _sha(data)
    hashed: list[bytes] = []
    real = hashlib.file_digest
    monkeypatch.setattr(hashlib, "file_digest", lambda fh, name: (hashed.append(b""), real(fh, name))[1])
    assert file_sha256(path) == digest and hashed == []  # the same file, unchanged: not hashed again
    _written(path, b"trials, more\n")
    assert file_sha256(path) == _sha(b"trials, more\n") and len(hashed) == 1
    path.write_bytes(b"trials, again\n")  # modified just now: hashed on every call
    assert file_sha256(path) == file_sha256(path) == _sha(b"trials, again\n") and len(hashed) == 3


def test_the_memo_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_digest, "LIMIT", 3)
    monkeypatch.setattr(file_digest, "_MEMO", {})
    for i in range(7):
        path = _written(tmp_path / f"f{i}", bytes([i]))
        assert file_sha256(path) == _sha(bytes([i]))
        assert len(file_digest._MEMO) <= 3
