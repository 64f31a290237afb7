"""A stand-in for the web server in tests: starts ``python -m benchlab.tui run ... --web-session`` and speaks
Textual's web packet protocol over its stdin/stdout (``D``/``M`` + 4-byte big-endian length + payload), as
``benchlab serve`` does, without a browser."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

ONSET = re.compile(r"\x1b\]7717;onset;([^\x07]*)\x07")


class WebApp:
    """One app process and what it has written (terminal output of the ``D`` packets, ``M`` metas)."""

    def __init__(self, args: list[str], *, cwd: Path, size: tuple[int, int] = (110, 36)) -> None:
        env = {**os.environ, "COLUMNS": str(size[0]), "ROWS": str(size[1]), "LINES": str(size[1])}
        env.pop("TEXTUAL_DRIVER", None)
        self.proc = subprocess.Popen([sys.executable, "-m", "benchlab.tui", "run", *args, "--web-session"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     cwd=cwd, env=env, start_new_session=True)
        self.output = ""
        self.metas: list[dict[str, object]] = []
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.send_meta({"type": "resize", "width": size[0], "height": size[1]})

    def _read(self) -> None:
        stream = self.proc.stdout
        assert stream is not None
        if stream.readline() != b"__GANGLION__\n":
            return
        while True:
            head = stream.read(5)
            if len(head) < 5:
                return
            payload = stream.read(int.from_bytes(head[1:], "big"))
            with self._lock:
                if head[:1] == b"D":
                    self.output += payload.decode("utf-8", "replace")
                elif head[:1] == b"M":
                    self.metas.append(json.loads(payload))

    def _send(self, kind: bytes, payload: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(kind + len(payload).to_bytes(4, "big") + payload)
        self.proc.stdin.flush()

    def send_meta(self, meta: dict[str, object]) -> None:
        self._send(b"M", json.dumps(meta).encode())

    def send_keys(self, data: str) -> None:
        self._send(b"D", data.encode())

    def press(self, key: str, page_ms: float, data: str | None = None) -> None:
        """A keydown as the page sends it: the stamp first, then the key's bytes."""
        self.send_meta({"type": "benchlab_key", "key": key, "page_ms": page_ms})
        self.send_keys(key if data is None else data)

    def mark(self) -> int:
        """Where the output is now (wait for text written after it)."""
        with self._lock:
            return len(self.output)

    def wait_for(self, pattern: str, *, since: int = 0, timeout: float = 20.0) -> re.Match[str]:
        """The first match of ``pattern`` in the output written after ``since``."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                found = re.compile(pattern).search(self.output, since)
            if found:
                return found
            if self.proc.poll() is not None and not self._reader.is_alive():
                break
            time.sleep(0.02)
        tail = self.output[-2000:]
        stderr = self.proc.stderr.read().decode() if self.proc.poll() is not None and self.proc.stderr else ""
        raise AssertionError(f"{pattern!r} not written within {timeout} s; output tail: {tail!r}; stderr: {stderr}")

    def next_onset(self, since: int = 0, timeout: float = 20.0) -> tuple[str, int]:
        """The next onset marker written after ``since``: (mark, output position after it)."""
        found = self.wait_for(ONSET.pattern, since=since, timeout=timeout)
        return found.group(1), found.end()

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
        self.proc.wait(5)
