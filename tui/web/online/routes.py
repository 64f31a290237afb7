"""The online study's routes, mounted onto the ``benchlab serve`` aiohttp application by one call:

- ``GET /join/<study token>?PROLIFIC_PID=...``: checks the token and the platform id, then starts or resumes the
  person's one session (303 to the session page), or answers with the full / paused / already-taken-part page;
- ``GET /done/<session token>``: the completion page, only once the session's end record is on disk (else a
  "saving" page that refreshes by itself);
- the dashboard (:mod:`benchlab.tui.web.online.admin`) when asked for.

The session page itself belongs to the server the routes are mounted on: :class:`SessionHooks` is the whole
interface (register a participant's token and return the page's URL; stop a participant's session).
"""

from __future__ import annotations

import asyncio
import hmac
import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

from aiohttp import web

from benchlab.annotations.online.completion import complete, past_time_limit, redirect_for
from benchlab.annotations.online.joins import Join, join, joined
from benchlab.annotations.online.platform_ids import PlatformIdError, platform_id
from benchlab.annotations.online.private import study_secret
from benchlab.annotations.online.session_files import on_disk
from benchlab.data.errors import BenchlabError
from benchlab.tui.web.online import pages

if TYPE_CHECKING:  # the study module is imported by the caller that builds the study
    from benchlab.annotations.study import Study

log = logging.getLogger("benchlab.serve")
STUDY_TOKEN_RE = r"[A-Za-z0-9_-]{16,64}"
WATCH = web.AppKey("online_watch", asyncio.Task[None])


@dataclass
class SessionHooks:
    """What the online routes need from the server that runs sessions.

    ``register(participant, token, arm)``: make ``token`` open ``participant``'s session (arm already recorded in
    the study) and return the session page's path; ``stop(participant)``: end a running session (time limit);
    ``live()``: participants with a page connected now.
    """

    register: Callable[[str, str, str], str]
    stop: Callable[[str], None] = lambda participant: None
    live: Callable[[], set[str]] = set


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html",
                        headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
                                 "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"})


async def join_page(study: Study, hooks: SessionHooks, request: web.Request) -> web.StreamResponse:
    token = request.match_info["token"]
    if not hmac.compare_digest(token, study_secret(study.folder)["study_token"]):
        return _html(pages.bad_link("this study link is not valid (check that it was copied whole)"), 404)
    online = study.spec.online
    assert online is not None
    try:
        who = platform_id(online.platform, request.query)
    except PlatformIdError as exc:
        return _html(pages.bad_link(str(exc)), 400)
    try:
        result: Join = await asyncio.to_thread(join, study, who)
    except BenchlabError as exc:
        log.error("join refused: %s", exc)
        return _html(pages.bad_link("the study cannot start right now; please try again later"), 503)
    if result.kind == "full":
        return _html(pages.full(result.reason), 200)
    if result.kind == "paused":
        return _html(pages.paused(), 200)
    if result.kind == "already":
        done = await asyncio.to_thread(complete, study, result.participant)
        if done is None:
            return _html(pages.completion("completed", None, None, already=True))
        return _html(pages.completion(done.outcome, done.code, redirect_for(study, done), already=True))
    assert result.token is not None and result.arm is not None
    if result.flagged:
        log.info("%s came back after their place was freed (abandoned); resuming", result.participant)
    location = hooks.register(result.participant, result.token, result.arm)
    raise web.HTTPSeeOther(location)


async def done_page(study: Study, hooks: SessionHooks, request: web.Request) -> web.StreamResponse:
    token = request.match_info["token"]
    pid = next((p for p, r in (await asyncio.to_thread(joined, study)).items()
                if hmac.compare_digest(r["token"], token)), None)
    if pid is None:
        return _html(pages.bad_link("this page belongs to no session"), 404)
    done = await asyncio.to_thread(complete, study, pid)
    if done is None:
        return _html(pages.saving())
    if done.outcome == "timed_out":
        hooks.stop(pid)
    return _html(pages.completion(done.outcome, done.code, redirect_for(study, done)))


async def watch_time_limits(study: Study, hooks: SessionHooks, every_s: float = 5.0) -> None:
    """Stop live sessions past the study's time limit (their completion then says timed out)."""
    online = study.spec.online
    if online is None or online.time_limit_s is None:
        return
    while True:
        await asyncio.sleep(every_s)
        for pid in list(hooks.live()):
            disk = await asyncio.to_thread(on_disk, study.out, pid)
            if past_time_limit(study, disk):
                await asyncio.to_thread(complete, study, pid)
                hooks.stop(pid)


def mount_online(app: web.Application, study: Study, hooks: SessionHooks, *, admin: bool = False) -> str:
    """Add the online routes to ``app`` (before it starts); returns the study link's path ``/join/<token>``."""
    if study.spec.online is None:
        raise BenchlabError("the study file has no [online] section (benchlab study init --online shows one)",
                            study.path)
    token = study_secret(study.folder)["study_token"]
    app.router.add_get(f"/join/{{token:{STUDY_TOKEN_RE}}}", partial(join_page, study, hooks))
    app.router.add_get("/done/{token:[A-Za-z0-9_-]{16,64}}", partial(done_page, study, hooks))
    if admin:
        # deferred: the dashboard's module is only needed with --admin
        from benchlab.tui.web.online.admin import mount_admin

        mount_admin(app, study, hooks)

    async def start_watch(app: web.Application) -> None:
        app[WATCH] = asyncio.get_running_loop().create_task(watch_time_limits(study, hooks))

    async def stop_watch(app: web.Application) -> None:
        app[WATCH].cancel()

    app.on_startup.append(start_watch)
    app.on_cleanup.append(stop_watch)
    return f"/join/{token}"


# --- for a server with a pre-consent gate and an end-of-session callback (the native page's hooks) -------------

async def gate_refusal(study: Study, participant: str) -> tuple[str, str] | None:
    """Before a joined participant's session opens: ``None`` to let it open, else (title, HTML page body) of the
    page to show instead: their completion when the session already ended (one session per person), the timed-out
    page when the time limit has passed. Nothing is written for a refusal but the completion record itself."""
    if participant not in await asyncio.to_thread(joined, study):
        return None  # a private per-person link of the same server: not the online study's to decide
    disk = await asyncio.to_thread(on_disk, study.out, participant)
    from_disk = await asyncio.to_thread(complete, study, participant)
    if from_disk is None and not past_time_limit(study, disk):
        return None
    if from_disk is None:
        return pages.completion_body("timed_out", None, None)
    return pages.completion_body(from_disk.outcome, from_disk.code, redirect_for(study, from_disk), already=True)


async def end_code(study: Study, participant: str) -> tuple[str, str | None, str | None] | None:
    """After the end record is fsynced: (message, code, redirect) for the end page, stored in the end record first
    (a ``completion`` event); ``None`` for a participant who did not join through the study link."""
    if participant not in await asyncio.to_thread(joined, study):
        return None
    done = await asyncio.to_thread(complete, study, participant)
    if done is None:
        return None
    message = {"completed": "Thank you: you have finished.", "timed_out": "The time allowed has passed.",
               "failed_attention": "The session has ended."}.get(done.outcome, "The session has ended.")
    return message, done.code, redirect_for(study, done)
