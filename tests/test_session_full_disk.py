"""A session that cannot write at its start (full disk, read-only file system, no permission) says so in one line,
exits 2 and leaves no lock file (and no results) behind: with an injected OSError, and on a real full tmpfs."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from session_helpers import write_testset

from benchlab.annotations.session import lock as session_lock
from benchlab.tui.cli import main


@pytest.fixture(scope="module")
def testset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_testset(tmp_path_factory.mktemp("ws"), tuples_per_cell=3, sizes=(3,))


def run(capsys: pytest.CaptureFixture[str], testset: Path, out: Path) -> tuple[int, str]:
    try:
        main(["run", "worldsense", "-t", str(testset), "--participant", "D2", "--out", str(out), "--practice", "0",
              "--tuples-per-cell", "2", "--simulate", "random"])
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    return code, capsys.readouterr().err


def _no_lock_left(out: Path) -> None:
    assert not list(out.rglob("*.lock")), "a stale lock file was left behind"
    assert not (out / "results").exists()


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EROFS, errno.EACCES])
def test_lock_pid_write_failing_gives_one_line_and_no_stale_lock(
    testset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, code: int,
) -> None:
    real_write = os.write
    pid_line = f"{os.getpid()}\n".encode()

    def write(fd: int, data: bytes) -> int:
        if bytes(data) == pid_line:
            raise OSError(code, os.strerror(code))
        return real_write(fd, data)

    monkeypatch.setattr(session_lock.os, "write", write)
    status, err = run(capsys, testset, tmp_path / "out")
    assert status == 2 and err.count("\n") == 1, err
    assert err.startswith("benchlab: error: ") and ".human-D2.lock" in err and os.strerror(code) in err
    assert "internal error" not in err and "Traceback" not in err
    _no_lock_left(tmp_path / "out")


def test_lock_file_that_cannot_be_created_gives_one_line(
    testset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:
    real_open = os.open

    def refuse(path: str | os.PathLike[str], flags: int, mode: int = 0o777, **kw: object) -> int:
        if str(path).endswith(".lock"):
            raise OSError(errno.EROFS, os.strerror(errno.EROFS))
        return real_open(path, flags, mode, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(session_lock.os, "open", refuse)
    status, err = run(capsys, testset, tmp_path / "out")
    assert status == 2 and err.count("\n") == 1 and "read-only" in err.lower(), err
    _no_lock_left(tmp_path / "out")


@contextlib.contextmanager
def _full_tmpfs(where: Path) -> Iterator[Path]:
    where.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(where)], capture_output=True,
                             text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({mounted.stderr.strip() or 'mount refused'}); the injected "
                    "ENOSPC tests above cover the same code")
    try:
        fd = os.open(where / "filler", os.O_WRONLY | os.O_CREAT)
        with contextlib.suppress(OSError):  # fill it to the last byte
            while os.write(fd, b"\0" * 512):
                pass
        os.close(fd)
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)  # lazy: never leave a mount behind


def test_full_disk_at_session_start_on_a_real_tmpfs(testset: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root; the injected ENOSPC tests above cover the same code")
    with _full_tmpfs(tmp_path / "mnt") as disk:
        status, err = run(capsys, testset, disk / "lab")
        assert status == 2 and err.count("\n") == 1, err
        assert err.startswith("benchlab: error: ") and "No space left on device" in err
        assert "internal error" not in err
        if (disk / "lab").exists():
            _no_lock_left(disk / "lab")
