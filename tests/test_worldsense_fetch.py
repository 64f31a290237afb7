"""``benchlab fetch worldsense`` against a local HTTP server on 127.0.0.1 (no other network): verified, resumable."""

from __future__ import annotations

import hashlib
import shutil
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from benchlab.data.errors import BenchlabError
from benchlab.data.samples import sample_path
from benchlab.data.worldsense import fetch
from benchlab.data.worldsense.fetch import FetchEvent, Manifest, ManifestFile, fetch_worldsense
from benchlab.tui.cli import main
from tests.conftest import full_data


class RepoServer:
    """Serves a folder laid out as the benchmark's repository; honours ``Range: bytes=N-``; can cut a transfer."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.requests: list[tuple[str, str | None]] = []
        self.cut_after: dict[str, int] = {}  # path -> bytes to send before dropping the connection (once)
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output clean
                pass

            def do_GET(self) -> None:
                rel = self.path.lstrip("/")
                server.requests.append((rel, self.headers.get("Range")))
                from urllib.parse import unquote

                file = server.root / unquote(rel)
                if not file.is_file():
                    self.send_error(404, "Not Found")
                    return
                data = file.read_bytes()
                start = 0
                header = self.headers.get("Range")
                if header and header.startswith("bytes=") and header.endswith("-"):
                    start = int(header[6:-1])
                    if start >= len(data):
                        self.send_error(416, "Range Not Satisfiable")
                        return
                    self.send_response(206)
                    self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
                else:
                    self.send_response(200)
                body = data[start:]
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                cut = server.cut_after.pop(rel, None)
                if cut is not None:
                    self.wfile.write(body[:cut])
                    self.wfile.flush()
                    self.connection.shutdown(socket.SHUT_RDWR)
                    self.close_connection = True
                    return
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        host, port = self.httpd.server_address[:2]
        return f"http://{host!s}:{port}/"

    def __enter__(self) -> RepoServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def small_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[RepoServer, Manifest]]:
    """A two-file repository (the sample's trials and licence) with its own manifest."""
    root = tmp_path / "repo"
    (root / "data" / "worldsense" / "test_set").mkdir(parents=True)
    shutil.copy(sample_path("worldsense", "trials.jsonl.bz2"), root / "data/worldsense/test_set/trials.jsonl.bz2")
    shutil.copy(sample_path("worldsense", "LICENSE"), root / "LICENSE")
    files = []
    for source, dest in [("LICENSE", "worldsense/LICENSE"),
                         ("data/worldsense/test_set/trials.jsonl.bz2", "worldsense/test_set/trials.jsonl.bz2")]:
        data = (root / source).read_bytes()
        files.append(ManifestFile(source=source, dest=dest, size=len(data), sha256=hashlib.sha256(data).hexdigest()))
    manifest = Manifest(benchmark="worldsense", repository="x/y", commit="0" * 40, licence="CC BY-NC 4.0", files=files)
    monkeypatch.setattr(fetch, "load_manifest", lambda: manifest)
    with RepoServer(root) as server:
        yield server, manifest


TRIALS = "data/worldsense/test_set/trials.jsonl.bz2"


def test_download_verifies_and_then_skips(small_repo: tuple[RepoServer, Manifest], tmp_path: Path) -> None:
    server, manifest = small_repo
    dest = tmp_path / "dest"
    summary = fetch_worldsense(dest, base_url=server.url)
    assert len(summary.downloaded) == 2 and summary.skipped == []
    for entry in manifest.files:
        assert hashlib.sha256((dest / entry.dest).read_bytes()).hexdigest() == entry.sha256
    assert not list(dest.rglob("*.part"))
    server.requests.clear()
    again = fetch_worldsense(dest, base_url=server.url)
    assert again.downloaded == [] and len(again.skipped) == 2 and server.requests == []


def test_resume_a_partial_download_with_a_range_request(small_repo: tuple[RepoServer, Manifest],
                                                        tmp_path: Path) -> None:
    server, _ = small_repo
    dest = tmp_path / "dest"
    full = (server.root / TRIALS).read_bytes()
    part = dest / "worldsense/test_set/trials.jsonl.bz2.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(full[:3000])
    events: list[FetchEvent] = []
    fetch_worldsense(dest, base_url=server.url, on_event=events.append)
    assert (TRIALS, "bytes=3000-") in server.requests
    assert any(e.kind == "resume" and e.done == 3000 for e in events)
    assert (dest / "worldsense/test_set/trials.jsonl.bz2").read_bytes() == full


def test_interrupted_download_keeps_the_part_and_resumes(small_repo: tuple[RepoServer, Manifest],
                                                         tmp_path: Path) -> None:
    server, _ = small_repo
    dest = tmp_path / "dest"
    server.cut_after[TRIALS] = 2500
    with pytest.raises(BenchlabError, match="run the command again to resume"):
        fetch_worldsense(dest, base_url=server.url)
    part = dest / "worldsense/test_set/trials.jsonl.bz2.part"
    assert part.stat().st_size == 2500
    assert not (dest / "worldsense/test_set/trials.jsonl.bz2").exists()  # never an unverified file in place
    fetch_worldsense(dest, base_url=server.url)
    assert server.requests[-1] == (TRIALS, "bytes=2500-")
    assert (dest / "worldsense/test_set/trials.jsonl.bz2").read_bytes() == (server.root / TRIALS).read_bytes()


def test_a_corrupt_part_is_downloaded_again(small_repo: tuple[RepoServer, Manifest], tmp_path: Path) -> None:
    server, _ = small_repo
    dest = tmp_path / "dest"
    part = dest / "worldsense/test_set/trials.jsonl.bz2.part"
    part.parent.mkdir(parents=True)
    part.write_bytes(b"\0" * 3000)
    events: list[FetchEvent] = []
    fetch_worldsense(dest, base_url=server.url, on_event=events.append)
    assert any(e.kind == "retry" for e in events)
    assert (dest / "worldsense/test_set/trials.jsonl.bz2").read_bytes() == (server.root / TRIALS).read_bytes()


def test_checksum_mismatch_keeps_nothing(small_repo: tuple[RepoServer, Manifest], tmp_path: Path) -> None:
    server, _ = small_repo
    original = (server.root / TRIALS).read_bytes()
    (server.root / TRIALS).write_bytes(b"not the published file\n")
    dest = tmp_path / "dest"
    with pytest.raises(BenchlabError, match=f"the published one {len(original)} bytes"):
        fetch_worldsense(dest, base_url=server.url)
    (server.root / TRIALS).write_bytes(original[:-1] + b"X")  # same size, different bytes
    with pytest.raises(BenchlabError, match="does not match its published SHA-256"):
        fetch_worldsense(dest, base_url=server.url)
    assert not (dest / "worldsense/test_set/trials.jsonl.bz2").exists()
    assert not list(dest.rglob("*.part"))


def test_missing_file_and_unreachable_server(small_repo: tuple[RepoServer, Manifest], tmp_path: Path) -> None:
    server, _ = small_repo
    (server.root / TRIALS).unlink()
    with pytest.raises(BenchlabError, match="HTTP 404"):
        fetch_worldsense(tmp_path / "a", base_url=server.url)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(BenchlabError, match="cannot download"):
        fetch_worldsense(tmp_path / "b", base_url=f"http://127.0.0.1:{port}/", timeout=5)
    with pytest.raises(BenchlabError, match="http:// or https://"):
        fetch_worldsense(tmp_path / "c", base_url="ftp://example.invalid/")


def test_cli_fetch_reports_and_says_how_to_score(small_repo: tuple[RepoServer, Manifest], tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    server, _ = small_repo
    main(["fetch", "worldsense", "--dest", str(tmp_path / "d"), "--base-url", server.url])
    out, err = capsys.readouterr()
    assert "2 file(s) downloaded, 0 already there, all verified" in out
    assert f"benchlab score worldsense -t {tmp_path / 'd' / 'worldsense' / 'test_set'}" in out
    assert "worldsense/test_set/trials.jsonl.bz2: downloaded, sha256 ok" in err


@pytest.mark.fulldata
def test_fetch_the_published_files_from_a_local_mirror(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The real manifest against ../shared/datasets served as the repository; then score what was fetched."""
    datasets = full_data("worldsense")
    root = tmp_path / "repo"
    root.mkdir()
    (root / "data").symlink_to(datasets.parent, target_is_directory=True)
    (root / "LICENSE").symlink_to(datasets / "LICENSE")
    dest = tmp_path / "dest"
    with RepoServer(root) as server:
        main(["fetch", "worldsense", "--dest", str(dest), "--base-url", server.url, "--only", "other_tests"])
    out, _ = capsys.readouterr()
    assert "17 file(s) downloaded" in out  # 4 sets x (trials + 3 results) + licence
    for source in (datasets / "other_tests").rglob("*"):
        if source.is_file():
            assert (dest / "worldsense" / source.relative_to(datasets)).read_bytes() == source.read_bytes()
    main(["score", "worldsense", "-t", str(dest / "worldsense/other_tests/ood-query"), "--format", "csv"])
    out, _ = capsys.readouterr()
    assert "Llama2-FT+1M,70.9 (0.9)" in out
