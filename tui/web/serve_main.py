"""Running ``benchlab serve``: links, the listening socket, re-reading the participants file, the live table.

One serving process per output folder (a lock file says so), so ``benchlab serve ... --add P07`` beside a running
server only adds the participant (file + token) and prints the link; the running server notices the file change
(or a SIGHUP) and serves the new link without a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import csv
import errno
import fcntl
import logging
import os
import re
import signal
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from aiohttp import web

from benchlab.annotations.session.opening import Opening, plan_ahead, session_options
from benchlab.annotations.session.plan import SessionPlan
from benchlab.annotations.session.status import StatusCache, read_statuses
from benchlab.annotations.task import Preloads, Task
from benchlab.data.errors import BenchlabError
from benchlab.tui.web import status_table
from benchlab.tui.web.app_process import AppSpec, app_argv
from benchlab.tui.web.bad_requests import BadRequestLines
from benchlab.tui.web.hooks import ServerHooks
from benchlab.tui.web.native import DeviceRule, NativeSessions
from benchlab.tui.web.participants import (
    LINKS_FILE,
    Participant,
    append_participants,
    ensure_tokens,
    link,
    read_participants,
    write_links,
)
from benchlab.tui.web.plan_ahead import PlanAhead
from benchlab.tui.web.serve_options import column_names, participant_args
from benchlab.tui.web.server import Limits, SessionServer
from benchlab.tui.web.web_runner import web_opening
from benchlab.tui.web.web_trials import has_web_trial

SERVE_LOCK = ".serve.lock"
LOG_FILE = "serve.log"


@dataclass
class ServeConfig:
    """What ``benchlab serve NAME`` was asked (plan options already turned into ``benchlab run`` flags)."""

    task: Task
    plan_args: list[str]
    out: Path
    participants_file: Path | None
    host: str = "127.0.0.1"
    port: int = 8000
    public_url: str | None = None
    max_starts: int = 2
    extra_env: dict[str, str] = field(default_factory=dict)
    #: The interpreter running the apps (default: this one, or ``BENCHLAB_SERVE_APP_PYTHON``: another environment
    #: with the same benchlab, e.g. a development checkout).
    python: str | None = field(default_factory=lambda: os.environ.get("BENCHLAB_SERVE_APP_PYTHON") or None)
    #: The typed option values typed on the command line (the native page opens sessions in-process from them).
    values: dict[str, Any] = field(default_factory=dict)
    #: The tab title participants see (the study's, never the benchmark's name).
    title: str = "Research study"
    device: DeviceRule = field(default_factory=DeviceRule)
    #: ``False``: every participant gets the terminal-in-browser page even when the trial kind has a web renderer.
    native: bool = True
    #: One of several servers sharing ``out`` behind a proxy (``--node NAME``): no folder-wide serving lock; each
    #: session's own lock keeps it live on one node at a time.
    node: str | None = None
    hooks: ServerHooks | None = None

    def base_url(self, port: int | None = None) -> str:
        if self.public_url:
            return self.public_url.rstrip("/")
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{port or self.port}"

    def spec(self, participant: Participant) -> AppSpec:
        args = [*self.plan_args, *participant_args(self.task, participant.options)]
        return AppSpec(app_argv(self.task.name, args, participant.id, str(self.out), self.python), self.extra_env)


#: The server's GIL switch interval while it serves the native page (see :func:`native_sessions`).
SWITCH_INTERVAL_S = 0.0005


def native_sessions(config: ServeConfig, participants: Mapping[str, Participant]) -> NativeSessions | None:
    """The in-process sessions of the native page, when the task's trial kind has a web renderer (else ``None``:
    the terminal-in-browser page, one app process per participant)."""
    if not config.native or not has_web_trial(config.task.trial_kind):
        return None

    def values_of(pid: str) -> dict[str, Any]:
        return {**config.values, **participants[pid].options, "participant": pid, "out": str(config.out)}

    def build(pid: str) -> SessionPlan | None:
        return plan_ahead(config.task, *session_options(config.task, values_of(pid)))

    ahead = PlanAhead(build, lambda pid: repr(sorted(values_of(pid).items(), key=lambda kv: kv[0])))

    def opening(pid: str) -> Opening:
        session, plan = session_options(config.task, values_of(pid))
        return web_opening(config.task, session, plan, planned=lambda: ahead.take(pid))

    if isinstance(config.task, Preloads):  # the shared data (WorldSense: the test set's index) once, now
        session, _ = session_options(config.task, {**config.values, "participant": "preload", "out": str(config.out)})
        config.task.preload(session)
    # Plans are built in pure Python beside the event loop: each time the loop gives up the GIL (every socket send
    # or poll) it waits up to the switch interval to get it back from a thread building a plan; 5 ms by default
    # makes every view sent during a burst of new sessions slower by several such waits.
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    ahead.start(list(participants))
    return NativeSessions(opener=opening, kind=config.task.trial_kind, title=config.title,
                          hooks=config.hooks, device=config.device)


def load_participants(config: ServeConfig) -> dict[str, Participant]:
    if config.participants_file is None:
        return {}
    return {p.id: p for p in read_participants(config.participants_file, column_names(config.task))}


@contextlib.contextmanager
def serving_lock(out: Path, node: str | None = None) -> Iterator[bool]:
    """``True`` while this process is the one serving ``out`` (``node``: the one serving it as that node of
    several); ``False`` when another server holds it."""
    out.mkdir(parents=True, exist_ok=True)
    name = SERVE_LOCK if node is None else f".serve-node-{node}.lock"
    with open(out / name, "a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            yield False
            return
        try:
            yield True
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def add_and_report(config: ServeConfig, ids: Sequence[str]) -> bool:
    """Add ``ids`` to the participants file and make their links; ``True`` when a running server will serve them
    (this process then stops), ``False`` when this process should serve."""
    if config.participants_file is None:
        raise BenchlabError("--add needs --participants FILE (the file the participants are added to)")
    added = append_participants(config.participants_file, ids, column_names(config.task))
    participants = load_participants(config)
    tokens = ensure_tokens(config.out, participants)
    with serving_lock(config.out) as mine:
        # Beside a running server, its links.csv (and its base URL) stay its own; it rewrites the file itself.
        base = config.base_url() if mine or config.public_url else (_served_base(config.out) or config.base_url())
        for pid in ids:
            note = "added" if pid in added else "already listed"
            print(f"{pid} ({note}): {link(base, tokens[pid])}")
        if not mine:
            print("the running server serves them (it re-reads the participants file)")
            return True
    return False


def _served_base(out: Path) -> str | None:
    """The base URL of the links a running server wrote (``None`` when it wrote none yet)."""
    try:
        with open(out / LINKS_FILE, encoding="utf-8") as handle:
            rows = list(csv.DictReader(handle))
    except OSError:
        return None
    url = rows[0].get("url", "") if rows else ""
    return url.rsplit("/s/", 1)[0] if "/s/" in url else None


def run_server(config: ServeConfig) -> None:
    """Serve until SIGINT/SIGTERM; the apps are stopped (process groups gone) before returning."""
    if config.node is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", config.node):
        raise BenchlabError(f"--node: {config.node!r} is not a node name (letters, digits, '-', '_'; up to 32)")
    with serving_lock(config.out, config.node) as mine:
        if not mine:
            if config.node is not None:
                raise BenchlabError(f"node {config.node} already serves this folder", config.out)
            raise BenchlabError("another benchlab serve is already serving this folder; use --add to add "
                                "participants to it", config.out)
        participants = load_participants(config)
        tokens = ensure_tokens(config.out, participants)
        log_name = LOG_FILE if config.node is None else f"serve-{config.node}.log"
        handler = logging.FileHandler(config.out / log_name, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        handler.addFilter(BadRequestLines())  # a URL over 8 KB is one line, not a traceback
        loggers = [logging.getLogger(name) for name in ("benchlab.serve", "aiohttp", "asyncio")]
        for logger in loggers:  # the console shows the table; errors (never a traceback there) go to the log
            logger.addHandler(handler)
            logger.setLevel(logging.INFO if logger.name == "benchlab.serve" else logging.WARNING)
            logger.propagate = False
        server = SessionServer(participants=participants, tokens=tokens, app_spec=config.spec,
                               title=config.title, limits=Limits(max_starts=config.max_starts))
        server.native = native_sessions(config, server.participants)
        if config.hooks is not None:
            server.hooks = config.hooks
        try:
            asyncio.run(_serve(config, server, sys.stdout))
        finally:
            for logger in loggers:
                logger.removeHandler(handler)
            handler.close()


async def _serve(config: ServeConfig, server: SessionServer, console: IO[str]) -> None:
    runner = web.AppRunner(server.make_app(), handle_signals=False, access_log=None, shutdown_timeout=3.0)
    await runner.setup()
    site = web.TCPSite(runner, config.host, config.port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        if exc.errno == errno.EADDRINUSE:
            raise BenchlabError(f"port {config.port} on {config.host} is already in use (another server?); "
                                "choose another with --port") from None
        raise BenchlabError(f"cannot listen on {config.host}:{config.port}: {exc.strerror or exc}") from None
    port = _bound_port(site) or config.port
    tokens = ensure_tokens(config.out, server.participants)
    links = write_links(config.out, list(server.participants.values()), tokens, config.base_url(port))
    print(f"benchlab serve: {config.task.name} on http://{config.host}:{port} (results in {config.out})",
          file=console)
    for p in server.participants.values():
        print(f"  {p.id}: {link(config.base_url(port), tokens[p.id])}", file=console)
    print(f"links written to {links}; Ctrl+C stops the server (sessions resume on the same links)", file=console,
          flush=True)

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    reload = asyncio.Event()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    loop.add_signal_handler(signal.SIGHUP, reload.set)
    stamp = _stamp(config.participants_file)
    shown: object = None
    statuses_cache: StatusCache = {}
    try:
        while not stop.is_set():
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(stop.wait(), 2.0)
            if stop.is_set():
                break
            now = _stamp(config.participants_file)
            if reload.is_set() or now != stamp:
                reload.clear()
                stamp = now
                _reload(config, server, port, console)
            # Read in a thread, and only the sessions whose files changed: at hundreds of participants a pass over
            # every session's files on the event loop stalled every page for ~0.4 s every 2 s.
            rows = await table_rows(server, config.out, statuses_cache)
            # A terminal is redrawn in place (the "ago" column moves); a log gets a table when a state changes.
            key: object = status_table.render(rows) if console.isatty() else [(r.participant, r.state) for r in rows]
            if key != shown:
                shown = key
                _show_table(status_table.render(rows), console)
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            loop.remove_signal_handler(sig)
        await server.stop_apps()  # first: the apps' process groups go within about a second
        await runner.cleanup()
        print("benchlab serve: stopped (every session can resume on its link)", file=console, flush=True)


def _reload(config: ServeConfig, server: SessionServer, port: int, console: IO[str]) -> None:
    try:
        participants = load_participants(config)
        tokens = ensure_tokens(config.out, participants)
    except BenchlabError as exc:  # keep serving the people already known
        print(f"benchlab serve: warning: participants file not re-read: {exc}", file=console, flush=True)
        return
    new = server.update(participants, tokens)
    write_links(config.out, list(server.participants.values()), tokens, config.base_url(port))
    for pid in new:
        print(f"  added {pid}: {link(config.base_url(port), tokens[pid])}", file=console, flush=True)


def server_rows(server: SessionServer) -> list[status_table.StatusRow]:
    """The table rows from what the server knows (connections); the files tell more once read."""
    return [status_table.StatusRow(pid, seen.state, last_activity=seen.last_activity)
            for pid, seen in server.seen.items()]


async def table_rows(server: SessionServer, out: Path, cache: StatusCache | None = None
                     ) -> list[status_table.StatusRow]:
    """Every participant's state from the output folder's files (consent, practice, trial k of n, break ...,
    practice accuracy) with the server's connections laid over it; the server's own view when the files cannot
    be read (a status read never stops the server). The files are read in a thread (off the event loop)."""
    expected = list(server.participants)
    try:
        statuses = await asyncio.get_running_loop().run_in_executor(None, read_statuses, out, expected, cache)
    except Exception:
        logging.getLogger("benchlab.serve").exception("cannot read the session states")
        return server_rows(server)
    live = {pid: "waiting to start" if server.seen[pid].state == "waiting to start" else "connected"
            for pid in server.live}
    return status_table.with_connections(statuses, live)


def _show_table(table: str, console: IO[str]) -> None:
    if console.isatty():
        console.write("\x1b[s\x1b[J" + table + "\x1b[u")  # redraw in place below the links
    else:
        console.write(table)
    console.flush()


def _stamp(path: Path | None) -> tuple[float, int] | None:
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_mtime, st.st_size)


def _bound_port(site: web.TCPSite) -> int | None:
    server: Any = site._server
    with contextlib.suppress(Exception):
        return int(server.sockets[0].getsockname()[1])
    return None
