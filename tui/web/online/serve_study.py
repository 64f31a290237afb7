"""``benchlab serve --study DIR``: today's session server with the online routes mounted on it.

Each participant who joins through the study link is added to the :class:`~benchlab.tui.web.server.SessionServer`
under their pseudonymous id and a private session token (kept in the study's joins ledger, so a restarted server
resumes everyone on the same page); their app runs the study's benchmark with their arm's options.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
import sys
from collections.abc import Sequence
from typing import IO

from aiohttp import web

from benchlab.annotations.online.commands import StudyServeOptions
from benchlab.annotations.online.joins import joined
from benchlab.annotations.registry import registry
from benchlab.annotations.study import Study, load_study
from benchlab.data.errors import BenchlabError
from benchlab.tui.web.app_process import AppSpec, app_argv, stop_app
from benchlab.tui.web.online.routes import SessionHooks, mount_online
from benchlab.tui.web.participants import Participant, ensure_tokens, read_participants, write_links
from benchlab.tui.web.serve_main import LOG_FILE, serving_lock
from benchlab.tui.web.serve_options import plan_args
from benchlab.tui.web.server import SessionServer


def study_server(study: Study, *, admin: bool = False, private: Sequence[str] = ()
                 ) -> tuple[web.Application, SessionServer, str]:
    """The aiohttp application serving ``study``'s link (and dashboard), its session server, the link's path;
    ``private``: ids of people given private links (today's ``/s/<token>``) in the same study."""
    arms: dict[str, str] = {}

    def spec(participant: Participant) -> AppSpec:
        if participant.id not in arms:  # a private link: the arm by the study's rule, when the session starts
            assignment = study.assign(participant.id, "1")
            study.record(assignment, source="link")
            arms[participant.id] = assignment.arm
        values = study.arm_values(arms[participant.id])
        return AppSpec(app_argv(study.task.name, plan_args(study.task, values), participant.id, str(study.out)), {})

    server = SessionServer(participants={}, tokens={}, app_spec=spec, title=study.spec.title)

    def register(participant: str, token: str, arm: str) -> str:
        arms[participant] = arm
        server.add({participant: Participant(participant)}, {participant: token})
        return f"/s/{token}"

    def stop(participant: str) -> None:
        proc = server.processes.get(participant)
        if proc is not None:
            asyncio.get_running_loop().create_task(stop_app(proc))

    for pid, record in joined(study).items():  # everyone who joined before a restart keeps their page
        register(pid, record["token"], record.get("arm", study.spec.arms[0].name))
    if private:
        tokens = ensure_tokens(study.out, private)
        server.add({pid: Participant(pid) for pid in private}, {pid: tokens[pid] for pid in private})
    app = server.make_app()
    link = mount_online(app, study, SessionHooks(register, stop, lambda: set(server.live)), admin=admin)
    return app, server, link


def serve_study(opts: StudyServeOptions) -> None:
    """Serve until SIGINT/SIGTERM (sessions resume on their pages after a restart)."""
    assert opts.study is not None
    study = load_study(opts.study, registry())
    if study.spec.online is None:
        raise BenchlabError("the study file has no [online] section (benchlab study init --online writes one)",
                            study.path)
    if opts.host not in ("127.0.0.1", "localhost", "::1") and not opts.public_url:
        print("benchlab serve: warning: listening beyond this machine without --public-url (use a TLS proxy)",
              file=sys.stderr)
    with serving_lock(study.out) as mine:
        if not mine:
            raise BenchlabError("another benchlab serve is already serving this study", study.out)
        handler = logging.FileHandler(study.out / LOG_FILE, encoding="utf-8")
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
        logger = logging.getLogger("benchlab.serve")
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
        logger.propagate = False
        try:
            asyncio.run(_serve(study, opts, sys.stdout))
        finally:
            logger.removeHandler(handler)
            handler.close()


async def _serve(study: Study, opts: StudyServeOptions, console: IO[str]) -> None:
    private = [p.id for p in read_participants(opts.participants, [])] if opts.participants else []
    # deferred: the native page's server (and its trial renderers) loads only when the study has a renderer
    from benchlab.tui.web.online.native_study import native_study_server

    native = None if opts.terminal_page else native_study_server(study, admin=opts.admin, private=private)
    app, server, link = native or study_server(study, admin=opts.admin, private=private)
    runner = web.AppRunner(app, handle_signals=False, access_log=None, shutdown_timeout=3.0)
    await runner.setup()
    site = web.TCPSite(runner, opts.host, opts.port)
    try:
        await site.start()
    except OSError as exc:
        await runner.cleanup()
        if exc.errno == errno.EADDRINUSE:
            raise BenchlabError(f"port {opts.port} on {opts.host} is already in use; choose another with --port") \
                from None
        raise BenchlabError(f"cannot listen on {opts.host}:{opts.port}: {exc.strerror or exc}") from None
    sockets = getattr(site._server, "sockets", None) or []
    port = sockets[0].getsockname()[1] if sockets else opts.port
    base = (opts.public_url or f"http://{opts.host}:{port}").rstrip("/")
    online = study.spec.online
    assert online is not None
    print(f"benchlab serve: {study.spec.title} ({study.task.name}, {online.platform}) on http://{opts.host}:{port}",
          file=console)
    print(f"study link: {base}{link}", file=console)
    if opts.admin:
        print(f"dashboard: {base}/admin", file=console)
    if private:
        tokens = ensure_tokens(study.out, private)
        written = write_links(study.out, [Participant(pid) for pid in private], tokens, base)
        print(f"private links of {len(private)} listed people written to {written}", file=console)
    print("Ctrl+C stops the server (sessions resume on their pages)", file=console, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(Exception):
                loop.remove_signal_handler(sig)
        await server.stop_apps()
        await runner.cleanup()
        print("benchlab serve: stopped", file=console, flush=True)
