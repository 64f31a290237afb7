"""Compile a page of C once per machine into the cache folder, for helpers loaded with ctypes.

Why a shared helper: each compiled helper (a benchmark's hot loop) needs the same steps done the same careful way:
a name that changes with the source (an edited source never loads a stale library), an atomic build (two processes
building at once never load a half-written file), and a plain second build for compilers without per-CPU
function versions. Callers decide what a missing compiler means (they always keep a pure-Python path) and check
the library's results at load before they trust it.
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path


def library_path(stem: str, source: str) -> Path:
    """Where the library built from ``source`` lives: ``<cache>/native/<stem>-<digest>.so``."""
    # deferred: the settings (platformdirs) load only when a compiled helper is asked for
    from benchlab.data.settings import get_settings

    digest = hashlib.sha256((source + sys.platform).encode()).hexdigest()[:16]
    return get_settings().cache_dir / "native" / f"{stem}-{digest}.so"


def compile_library(source: str, target: Path, flags: Sequence[str], libraries: Sequence[str] = ()) -> bool:
    """Compile ``source`` into ``target`` atomically; False when there is no compiler or it fails.

    ``flags`` go before the source, ``libraries`` (``-l...``) after it. A build that fails is tried once more with
    ``-DBENCHLAB_PLAIN`` (sources use it to drop ``target_clones``, which some compilers or C libraries lack)."""
    # deferred: subprocess and tempfile load only when a library is built (once per machine), not on every load
    import subprocess
    import tempfile

    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc") or shutil.which("clang")
    if not compiler:
        return False
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(dir=target.parent) as tmp:
            src = Path(tmp) / f"{target.stem.rsplit('-', 1)[0].replace('-', '_')}.c"
            src.write_text(source)
            built = Path(tmp) / target.name
            command = [compiler, *flags, "-shared", "-fPIC", "-o", str(built), str(src), *libraries]
            done = subprocess.run(command, capture_output=True, timeout=120, check=False)
            if done.returncode != 0 or not built.exists():
                done = subprocess.run([*command, "-DBENCHLAB_PLAIN"], capture_output=True, timeout=120, check=False)
            if done.returncode != 0 or not built.exists():
                return False
            os.replace(built, target)
        return True
    except (OSError, subprocess.SubprocessError):
        return False


def open_library(target: Path, build: Callable[[Path], bool]) -> ctypes.CDLL | None:
    """The library at ``target``, built first when missing; a file that will not load (damaged, or another
    machine's) is built again, once. ``None`` when it cannot be built or loaded."""
    try:
        if not target.exists() and not build(target):
            return None
        try:
            return ctypes.CDLL(str(target))
        except OSError:  # a damaged or foreign file in the cache: build it again, once
            if not build(target):
                return None
            return ctypes.CDLL(str(target))
    except OSError:
        return None
