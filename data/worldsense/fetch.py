"""Downloading the full WorldSense data from the benchmark's public repository, verified and resumable.

Every file is listed in ``fetch_manifest.json`` with its size and SHA-256 (taken from the published commit), so
a download is checked before it is used. Bytes go to ``<file>.part`` first; an interrupted download resumes with
an HTTP Range request, and only a verified file is renamed into place. Files already present and intact are not
downloaded again. The base URL is configurable (``--base-url`` or ``BENCHLAB_WORLDSENSE_BASE_URL``), e.g. for a
mirror or a local server; it must point at the root of the repository at that commit.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel

from benchlab.data.atomic import fsync_dir
from benchlab.data.errors import BenchlabError
from benchlab.data.settings import get_settings
from benchlab.data.worldsense.settings import worldsense_settings

MANIFEST_PATH = Path(__file__).with_name("fetch_manifest.json")
CHUNK = 256 * 1024
#: Parts a user can ask for (``--only``), matched against each file's destination path.
PARTS = ("test_set", "other_tests", "training_set")


class ManifestFile(BaseModel):
    source: str
    dest: str
    size: int
    sha256: str


class Manifest(BaseModel):
    benchmark: str
    repository: str
    commit: str
    licence: str
    files: list[ManifestFile]


def load_manifest() -> Manifest:
    return Manifest.model_validate(json.loads(MANIFEST_PATH.read_text(encoding="utf-8")))


def default_base_url(manifest: Manifest | None = None) -> str:
    """The repository root at the pinned commit (or ``$BENCHLAB_WORLDSENSE_BASE_URL``)."""
    override = worldsense_settings().base_url
    if override:
        return override
    m = manifest or load_manifest()
    return f"https://raw.githubusercontent.com/{m.repository}/{m.commit}/"


def default_dest() -> Path:
    """Where downloads go by default: the user data folder (``.../benchlab/datasets``)."""
    return get_settings().data_dir / "datasets"


@dataclass(frozen=True)
class FetchEvent:
    """Progress report: ``kind`` is ``start`` / ``progress`` / ``done`` / ``skip`` / ``resume`` / ``retry``."""

    kind: str
    file: ManifestFile
    done: int = 0
    message: str = ""


@dataclass(frozen=True)
class FetchSummary:
    downloaded: list[Path]
    skipped: list[Path]
    dest: Path


def select_files(manifest: Manifest, only: Iterable[str] | None = None) -> list[ManifestFile]:
    """The files of the chosen parts (all when ``only`` is empty); the licence always comes along."""
    wanted = list(only or [])
    unknown = [p for p in wanted if p not in PARTS]
    if unknown:
        raise BenchlabError(f"unknown part {unknown[0]!r}; choose from {', '.join(PARTS)}")
    if not wanted:
        return list(manifest.files)
    return [f for f in manifest.files if f.dest.endswith("LICENSE") or any(f"/{p}/" in f.dest for p in wanted)]


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def fetch_worldsense(
    dest: str | Path | None = None,
    *,
    base_url: str | None = None,
    only: Iterable[str] | None = None,
    on_event: Callable[[FetchEvent], None] | None = None,
    timeout: float = 60.0,
) -> FetchSummary:
    """Download (or complete) the WorldSense files into ``dest``; returns what was downloaded and skipped."""
    manifest = load_manifest()
    root = Path(dest) if dest is not None else default_dest()
    base = base_url or default_base_url(manifest)
    if not base.endswith("/"):
        base += "/"
    if urllib.parse.urlparse(base).scheme not in ("http", "https"):
        raise BenchlabError(f"the base URL must start with http:// or https:// (got {base!r})")
    report = on_event or (lambda event: None)
    downloaded: list[Path] = []
    skipped: list[Path] = []
    for entry in select_files(manifest, only):
        target = root / entry.dest
        if target.exists() and target.stat().st_size == entry.size and sha256_of(target) == entry.sha256:
            report(FetchEvent("skip", entry, entry.size, "already downloaded and verified"))
            skipped.append(target)
            continue
        url = urllib.parse.urljoin(base, urllib.parse.quote(entry.source))
        _download(url, target, entry, report, timeout)
        downloaded.append(target)
    return FetchSummary(downloaded=downloaded, skipped=skipped, dest=root)


def _download(url: str, target: Path, entry: ManifestFile, report: Callable[[FetchEvent], None],
              timeout: float) -> None:
    part = target.with_name(target.name + ".part")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchlabError(f"cannot create the download folder ({exc.strerror or exc})", target.parent) from exc
    for attempt in (1, 2):
        have = part.stat().st_size if part.exists() else 0
        if have > entry.size:
            part.unlink()
            have = 0
        if have == entry.size:
            pass  # complete but unverified (killed before the rename): just verify below
        else:
            _transfer(url, part, entry, have, report, timeout)
        if sha256_of(part) == entry.sha256:
            os.replace(part, target)
            fsync_dir(target.parent)
            report(FetchEvent("done", entry, entry.size))
            return
        part.unlink(missing_ok=True)
        if attempt == 1:
            report(FetchEvent("retry", entry, 0, "checksum mismatch; downloading again from the start"))
    raise BenchlabError(
        f"the downloaded file does not match its published SHA-256 ({url}); nothing was kept. "
        "Is the base URL pointing at the right commit?",
        target,
    )


def _transfer(url: str, part: Path, entry: ManifestFile, have: int, report: Callable[[FetchEvent], None],
              timeout: float) -> None:
    request = urllib.request.Request(url, headers={"User-Agent": "benchlab-fetch"})
    if have:
        request.add_header("Range", f"bytes={have}-")
    try:
        response = urllib.request.urlopen(request, timeout=timeout)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and have:  # range not satisfiable: start over
            part.unlink(missing_ok=True)
            return _transfer(url, part, entry, 0, report, timeout)
        raise BenchlabError(f"download failed: HTTP {exc.code} {exc.reason} for {url}", part.with_suffix("")) from exc
    except (urllib.error.URLError, OSError, ValueError) as exc:
        reason = getattr(exc, "reason", exc)
        raise BenchlabError(f"cannot download {url}: {reason}", part.with_suffix("")) from exc
    with response:
        status = getattr(response, "status", 200)
        if have and status == 206:
            mode = "ab"
            report(FetchEvent("resume", entry, have, f"resuming at byte {have}"))
        else:
            mode, have = "wb", 0
            report(FetchEvent("start", entry, 0))
        length = response.headers.get("Content-Length")
        announced = int(length) + have if length is not None and length.isdigit() else None
        if announced is not None and announced != entry.size:
            part.unlink(missing_ok=True)
            raise BenchlabError(
                f"the server's file is {announced} bytes, the published one {entry.size} bytes ({url}); nothing "
                "was kept. Is the base URL pointing at the right commit?",
                part.with_suffix(""),
            )
        done = have
        try:
            with open(part, mode) as handle:
                while True:
                    block = response.read(CHUNK)
                    if not block:
                        break
                    handle.write(block)
                    done += len(block)
                    report(FetchEvent("progress", entry, done))
                handle.flush()
                os.fsync(handle.fileno())
        except (OSError, http.client.HTTPException) as exc:
            raise BenchlabError(
                f"download interrupted after {done} of {entry.size} bytes ({exc}); run the command again to resume",
                part.with_suffix(""),
            ) from exc
    if done < entry.size:
        raise BenchlabError(
            f"download interrupted after {done} of {entry.size} bytes; run the command again to resume",
            part.with_suffix(""),
        )
    return None
