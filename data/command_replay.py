"""A command's printed output replayed by the ``benchlab`` console script before the CLI is built, when nothing it
read has changed.

Why: a command such as scoring whose output is cached by content (``score_cache``) still paid for building the
whole CLI (every task declaration, pydantic) before it looked in its cache: more than the cached work itself. A
command that knows its printed output is a pure function of its command line and of files it can name calls
:func:`remember` with those files; the console script (``tui/entry.py``) calls :func:`replayed` first and prints
the stored output when every condition still holds:

* the same command line, working directory, interpreter, ``sys.path`` and ``BENCHLAB_*``/``XDG_*``/``COLUMNS``
  environment (the entry's name is a hash of them),
* the same benchlab sources (path, size and modification time of every ``.py`` file of its packages: an edit
  makes every entry stale),
* every input file with the same SHA-256 as when the output was made, every watched folder holding the same
  file names (a results file added or removed is seen), and every path that was absent still absent.

Anything missing, damaged or different means "run the command"; the entry is then written again. Nothing here
imports click, pydantic, numpy or a declaration module. Plug-in sources are not in the fingerprint: a command that
depends on a plug-in must not call :func:`remember`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Iterable, Sequence
from importlib.util import find_spec
from pathlib import Path

from benchlab.data.file_digest import file_sha256

#: Bump when what is stored changes shape.
CACHE_VERSION = "1"

_PACKAGES = ("benchlab.tui", "benchlab.annotations", "benchlab.data")
_ENV_PREFIXES = ("BENCHLAB", "XDG_")
_ENV_NAMES = ("COLUMNS", "LINES", "HOME")

#: The command line the console script is running (set by :func:`begin`); ``None`` outside it (library calls,
#: tests calling the CLI in process), where :func:`remember` stores nothing.
_argv: list[str] | None = None
#: Whether the running command offered its output through :func:`remember` (a pure function of named inputs).
_pure = False


def begin(argv: Sequence[str]) -> None:
    """Called by the console script before it runs ``argv`` through the CLI."""
    global _argv
    _argv = list(argv)


def package_dirs(names: Iterable[str]) -> list[Path]:
    """The folders (or single files) of the importable packages ``names``; unknown names are skipped."""
    dirs: list[Path] = []
    for name in names:
        try:
            spec = find_spec(name)
        except (ImportError, ValueError):  # a package that cannot be found: nothing to stamp
            continue
        if spec is None:
            continue
        if spec.submodule_search_locations:
            dirs.extend(Path(p) for p in spec.submodule_search_locations)
        elif spec.origin and spec.origin not in ("built-in", "frozen"):
            dirs.append(Path(spec.origin))
    return dirs


def stamp_sources(digest: hashlib._Hash, roots: Iterable[Path]) -> None:
    """Path, size and modification time of every ``.py`` file under ``roots`` (a root may be one file)."""
    for root in roots:
        if root.is_file():
            st = root.stat()
            digest.update(f"{root}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())
            continue
        for folder, subdirs, names in os.walk(root):
            subdirs[:] = sorted(d for d in subdirs if d != "__pycache__")
            for name in sorted(names):
                if name.endswith(".py"):
                    st = os.stat(os.path.join(folder, name))
                    digest.update(f"{folder}/{name}\0{st.st_size}\0{st.st_mtime_ns}\n".encode())


def environment_digest(label: str) -> hashlib._Hash:
    """A hash started with ``label``, the interpreter, ``sys.path`` and the environment a command's text depends on."""
    digest = hashlib.sha256(f"{label}\0{sys.version}\0{sys.executable}\0{sys.path}\n".encode())
    env = sorted((k, v) for k, v in os.environ.items() if k.startswith(_ENV_PREFIXES) or k in _ENV_NAMES)
    digest.update(json.dumps(env).encode())
    return digest


def _slot(argv: Sequence[str]) -> Path:
    digest = environment_digest(f"replay v{CACHE_VERSION}")
    digest.update(json.dumps([os.getcwd(), *argv]).encode())
    # deferred: the settings module loads only when a replay is looked up or stored
    from benchlab.data.settings import get_settings

    return get_settings().cache_dir / "replay" / f"replay-v{CACHE_VERSION}-{digest.hexdigest()[:40]}.json"


def _code() -> str:
    digest = hashlib.sha256(b"benchlab sources\n")
    stamp_sources(digest, package_dirs(_PACKAGES))
    return digest.hexdigest()


def sources_digest() -> str:
    """A hash of benchlab's sources (path, size and modification time of every ``.py`` file): a cache of derived
    data keyed on it is stale after any edit."""
    return _code()


def printed_pure_output() -> bool:
    """Whether the command the console script ran offered its printed output through :func:`remember`: its output
    is a pure function of files it named, and it wrote nothing but that output and cache entries."""
    return _pure


def _file_sha(path: str) -> str:
    return file_sha256(path)  # the digest of the bytes this process read, when it read them (one hash a file)


def _listing(folder: str) -> list[str]:
    """Every file name under ``folder`` (recursively, relative, sorted): an added or removed input is seen."""
    out: list[str] = []
    for here, subdirs, names in os.walk(folder):
        subdirs.sort()
        rel = os.path.relpath(here, folder)
        out.extend(os.path.normpath(os.path.join(rel, n)) for n in sorted(names))
    return out


def remember(inputs: Sequence[Path], folders: Sequence[Path], stdout: str, stderr: str,
             absent: Sequence[Path] = ()) -> None:
    """Store what the running command printed (``stdout``, ``stderr``: the exact text), valid while ``inputs``
    keep their bytes, ``folders`` their file names and no path of ``absent`` exists (a file whose mere appearance
    would change the output, such as a study file above a results folder). Outside the console script, or when
    anything cannot be read or written, nothing is stored."""
    global _pure
    if _argv is None:
        return
    _pure = True
    try:
        entry = {"code": _code(),
                 "inputs": [[str(p.resolve()), _file_sha(str(p))] for p in inputs],
                 "folders": [[str(f.resolve()), _listing(str(f))] for f in folders],
                 "absent": [str(p.resolve()) for p in absent if not p.exists()],
                 "stdout": stdout, "stderr": stderr}
        path = _slot(_argv)
    except Exception:  # deliberately broad: an input that cannot be read again only means "not stored"
        return
    store_json(path, entry)


def store_json(path: Path, data: object) -> None:
    """Write ``data`` as JSON to the cache file ``path`` through a temporary file (a reader never sees half of it);
    a folder that cannot be written only means "not stored" (a cache, not a record: no fsync)."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):  # the folder itself may be unusable
            tmp.unlink()


def replayed(argv: Sequence[str]) -> tuple[str, str] | None:
    """The stored ``(stdout, stderr)`` of ``argv`` when every condition of the module docstring holds, else
    ``None``."""
    try:
        entry = json.loads(_slot(argv).read_text(encoding="utf-8"))
        if entry["code"] != _code():
            return None
        for folder, names in entry["folders"]:
            if _listing(folder) != names:
                return None
        if any(os.path.exists(path) for path in entry.get("absent", ())):
            return None
        for path, sha in entry["inputs"]:
            if _file_sha(path) != sha:
                return None
        stdout, stderr = entry["stdout"], entry["stderr"]
        return (stdout, stderr) if isinstance(stdout, str) and isinstance(stderr, str) else None
    except Exception:  # deliberately broad: a missing or damaged entry means "run the command"
        return None
