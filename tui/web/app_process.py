"""One participant's app process: started from an argument list (no shell), in its own process group, tied to the
server's life, spoken to in Textual's web-driver packets.

Why each piece: the process group lets one signal reach everything the app started; the parent-death signal
(``PR_SET_PDEATHSIG``) ends the app when the server is SIGKILLed, so no orphan keeps the results lock; the packet
framing (``D``/``M`` + 4-byte big-endian length) is what ``textual.drivers.web_driver`` reads and writes.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import json
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

GANGLION = b"__GANGLION__\n"
#: The web driver class the app uses (see the web protocol notes; Textual's ``module:Class`` syntax).
WEB_DRIVER = "benchlab.tui.web.driver:WebSessionDriver"
_PR_SET_PDEATHSIG = 1


def packet(kind: bytes, payload: bytes) -> bytes:
    """One packet for the app's stdin (``D`` key bytes or ``M`` JSON meta)."""
    return kind + len(payload).to_bytes(4, "big") + payload


def meta(data: Mapping[str, object]) -> bytes:
    return packet(b"M", json.dumps(data).encode("utf-8"))


class PacketReader:
    """Splits the app's stdout into ``(kind, payload)`` packets, after the ``__GANGLION__`` line.

    Anything the app prints before that line (a warning, an error) is kept as ``preamble`` for the server log.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self.started = False
        self.preamble = bytearray()

    def feed(self, data: bytes) -> list[tuple[bytes, bytes]]:
        self._buf += data
        out: list[tuple[bytes, bytes]] = []
        if not self.started:
            at = self._buf.find(GANGLION)
            if at < 0:
                keep = len(GANGLION) - 1
                if len(self._buf) > keep:
                    self.preamble += self._buf[:-keep]
                    del self._buf[:-keep]
                return out
            self.preamble += self._buf[:at]
            del self._buf[: at + len(GANGLION)]
            self.started = True
        while len(self._buf) >= 5:
            size = int.from_bytes(self._buf[1:5], "big")
            if len(self._buf) < 5 + size:
                break
            out.append((bytes(self._buf[:1]), bytes(self._buf[5 : 5 + size])))
            del self._buf[: 5 + size]
        return out


def _die_with_parent() -> None:  # pragma: no cover - runs in the child between fork and exec
    """In the child: get SIGKILL when the server dies (Linux), even by SIGKILL."""
    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() == 1:  # the server died before prctl: do not outlive it
            os._exit(1)


@dataclass
class AppSpec:
    """How to start one participant's app: the argument list and the environment additions."""

    argv: Sequence[str]
    env: Mapping[str, str]


def app_argv(task: str, plan_args: Sequence[str], participant: str, out: str, python: str | None = None) -> list[str]:
    """The app's argument list, as the web protocol fixes it (``python``: the interpreter, default this one)."""
    return [python or sys.executable, "-m", "benchlab.tui", "run", task, *plan_args, "--participant", participant,
            "--out", out, "--web-session"]


async def start_app(spec: AppSpec, columns: int, lines: int) -> asyncio.subprocess.Process:
    env = dict(os.environ)
    env.update(spec.env)
    env.setdefault("TEXTUAL_DRIVER", WEB_DRIVER)
    env.update({"COLUMNS": str(columns), "LINES": str(lines), "ROWS": str(lines)})
    preexec: Callable[[], None] | None = _die_with_parent if sys.platform.startswith("linux") else None
    return await asyncio.create_subprocess_exec(
        *spec.argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE, env=env, start_new_session=True, preexec_fn=preexec,
    )


def signal_group(pid: int, sig: int) -> bool:
    """Send ``sig`` to the process group ``pid`` leads; ``False`` when it is gone."""
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def group_alive(pid: int) -> bool:
    return signal_group(pid, 0)


async def stop_app(proc: asyncio.subprocess.Process, grace_s: float = 1.0) -> None:
    """Close stdin, SIGTERM the group, SIGKILL it ``grace_s`` later if anything is left; wait for the app."""
    if proc.stdin is not None and not proc.stdin.is_closing():
        with contextlib.suppress(Exception):
            proc.stdin.close()
    signal_group(proc.pid, signal.SIGTERM)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + grace_s
    while loop.time() < deadline:
        if proc.returncode is not None and not group_alive(proc.pid):
            return
        await asyncio.sleep(0.05)
    signal_group(proc.pid, signal.SIGKILL)
    with contextlib.suppress(Exception):
        await asyncio.wait_for(proc.wait(), 1.0)
