"""The experimenter dashboard (``serve --study DIR --admin``): a password login (salted scrypt hash set with
``benchlab study set-password``), rate-limited per client address, a session cookie (HttpOnly, SameSite=Strict)
and a CSRF token in every form checked with the request's Origin; the live sessions table, places per arm against
the quotas, pause and resume recruitment, and the results as a zip without the private folder (key file, secrets,
tokens, password hash)."""

from __future__ import annotations

import asyncio
import hmac
import io
import secrets
import time
import zipfile
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from aiohttp import web

from benchlab.annotations.online import places
from benchlab.annotations.online.password import check_password, has_password
from benchlab.annotations.online.private import PRIVATE_DIR, read_state, write_state
from benchlab.annotations.online.sessions_table import OnlineRow, online_rows
from benchlab.tui.web.online import pages

if TYPE_CHECKING:  # the caller builds the study
    from benchlab.annotations.study import Study
    from benchlab.tui.web.online.routes import SessionHooks

COOKIE = "benchlab_admin"
#: Failed logins allowed per client address within WINDOW_S before logins are refused for the rest of it.
MAX_FAILURES = 5
WINDOW_S = 900.0
SESSION_S = 8 * 3600.0
#: Files never in the download (besides the private folder): tokens, links, locks, the server's log.
NEVER_DOWNLOADED = ("serve-tokens.json", "links.csv", ".serve.lock", "serve.log")


@dataclass
class AdminState:
    """Logins (cookie -> (csrf token, expiry)), failures per client address, login-form tokens."""

    sessions: dict[str, tuple[str, float]] = field(default_factory=dict)
    failures: dict[str, list[float]] = field(default_factory=dict)
    login_forms: dict[str, float] = field(default_factory=dict)


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html",
                        headers={"Cache-Control": "no-store", "X-Frame-Options": "DENY",
                                 "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
                                 "form-action 'self'; frame-ancestors 'none'", "Referrer-Policy": "same-origin"})


def _client(request: web.Request) -> str:
    return request.remote or "?"


def _csrf_of(state: AdminState, request: web.Request) -> str | None:
    cookie = request.cookies.get(COOKIE, "")
    entry = state.sessions.get(cookie)
    if entry is None or entry[1] < time.time():
        state.sessions.pop(cookie, None)
        return None
    return entry[0]


def _same_origin(request: web.Request) -> bool:
    origin = request.headers.get("Origin")
    return origin is None or origin == f"{request.scheme}://{request.host}"


async def _form(request: web.Request) -> dict[str, str]:
    data = await request.post()
    return {k: str(v) for k, v in data.items() if isinstance(v, str)}


def _login_page(state: AdminState, note: str = "", status: int = 200) -> web.Response:
    form = secrets.token_urlsafe(16)
    state.login_forms[form] = time.time() + 600
    body = (f"<p>{escape(note)}</p>" if note else "") + (
        '<form method="post" action="/admin/login">'
        f'<input type="hidden" name="form" value="{form}">'
        '<label>Password <input type="password" name="password" autocomplete="current-password"></label>'
        '<button type="submit">Log in</button></form>')
    return _html(pages.page("Study dashboard", body), status)


async def dashboard(study: Study, hooks: SessionHooks, state: AdminState, request: web.Request) -> web.Response:
    csrf = _csrf_of(state, request)
    if csrf is None:
        note = "" if has_password(study.folder) else "No password is set: run benchlab study set-password first."
        return _login_page(state, note)
    body = await asyncio.to_thread(_dashboard_body, study, hooks, csrf)
    return _html(pages.page(f"{study.spec.title}: dashboard", body, refresh="10"))


def _dashboard_body(study: Study, hooks: SessionHooks, csrf: str) -> str:
    online = study.spec.online
    assert online is not None
    held = places.places(study)
    counts = Counter(p.arm for p in held if p.on_quota)  # the study link's places: what the quotas count
    invited = sum(1 for p in held if p.counts and not p.on_quota)
    is_paused = bool(read_state(study.folder).get("paused"))
    arms = "".join(f"<tr><td>{escape(a.name)}</td><td>{counts[a.name]}</td>"
                   f"<td>{online.arm_quotas.get(a.name, '') or '-'}</td></tr>" for a in study.spec.arms)
    total = f"{sum(counts.values())} of {online.quota}" if online.quota else str(sum(counts.values()))
    if invited:
        total += f" + {invited} invited (outside the quotas)"
    rows = "".join(_row(study, hooks, status_row) for status_row in online_rows(study))
    action = "resume" if is_paused else "pause"
    return (f"<p>Recruitment: <b id=recruitment>{'paused' if is_paused else 'open'}</b>; places held: "
            f"<b id=total>{total}</b></p>"
            f'<form method="post" action="/admin/{action}"><input type="hidden" name="csrf" value="{csrf}">'
            f'<button id="{action}" type="submit">{action.capitalize()} recruitment</button></form>'
            f"<h2>Arms</h2><table id=arms><tr><th>arm</th><th>places held</th><th>quota</th></tr>{arms}</table>"
            "<h2>Sessions</h2><table id=sessions><tr><th>participant</th><th>status</th><th>arm</th>"
            "<th>progress</th><th>last activity</th><th>attention</th><th>device</th><th>outcome</th></tr>"
            f"{rows}</table>"
            f'<p><a id="download" href="/admin/download.zip">Download the results (zip)</a></p>'
            f'<form method="post" action="/admin/logout"><input type="hidden" name="csrf" value="{csrf}">'
            '<button type="submit">Log out</button></form>')


def _row(study: Study, hooks: SessionHooks, r: OnlineRow) -> str:
    live = " (connected)" if r.participant in hooks.live() else ""
    when = r.last_activity.astimezone(UTC).strftime("%H:%M:%S") if r.last_activity else ""
    cells = [r.participant, r.status + live, r.arm, r.progress, when, r.attention, r.device, r.outcome]
    return "<tr>" + "".join(f"<td>{escape(c)}</td>" for c in cells) + "</tr>"


async def login(study: Study, state: AdminState, request: web.Request) -> web.Response:
    now = time.time()
    client = _client(request)
    recent = [t for t in state.failures.get(client, []) if now - t < WINDOW_S]
    state.failures[client] = recent
    if len(recent) >= MAX_FAILURES:
        return _html(pages.message("Too many attempts", "Too many wrong passwords from this address; wait 15 "
                                   "minutes."), 429)
    if not _same_origin(request):
        return _html(pages.message("Refused", "This form was sent from another site."), 403)
    form = await _form(request)
    expiry = state.login_forms.pop(form.get("form", ""), 0.0)
    if expiry < now:
        return _login_page(state, "The login form expired; please try again.", 403)
    ok = await asyncio.to_thread(check_password, study.folder, form.get("password", ""))
    if not ok:
        recent.append(now)
        return _login_page(state, "Wrong password.", 403)
    state.failures.pop(client, None)
    cookie, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    state.sessions[cookie] = (csrf, now + SESSION_S)
    response = web.HTTPSeeOther("/admin")
    response.set_cookie(COOKIE, cookie, httponly=True, samesite="Strict", path="/admin", max_age=int(SESSION_S))
    raise response


async def _checked(state: AdminState, request: web.Request) -> bool:
    csrf = _csrf_of(state, request)
    if csrf is None or not _same_origin(request):
        return False
    form = await _form(request)
    return hmac.compare_digest(form.get("csrf", ""), csrf)


async def set_paused(study: Study, state: AdminState, value: bool, request: web.Request) -> web.Response:
    if not await _checked(state, request):
        return _html(pages.message("Refused", "Log in again: this form is not from your dashboard."), 403)
    await asyncio.to_thread(write_state, study.folder, {**read_state(study.folder), "paused": value})
    raise web.HTTPSeeOther("/admin")


async def logout(state: AdminState, request: web.Request) -> web.Response:
    if await _checked(state, request):
        state.sessions.pop(request.cookies.get(COOKIE, ""), None)
    raise web.HTTPSeeOther("/admin")


def download_files(study: Study) -> Iterator[tuple[Path, str]]:
    """(file, name in the zip) of the results download: the study folder's files (study file, texts, assignments)
    and the output folder's plans, results and events; never the private folder (key file, secret, tokens,
    password hash), the server's tokens, links and log, lock files or other hidden files."""
    root = study.folder.resolve()
    bases = [(root, "")] + ([] if _under(study.out, root) else [(study.out, "out/")])
    for base, prefix in bases:
        for path in sorted(base.rglob("*")):
            rel = path.relative_to(base)
            if not path.is_file() or path.is_symlink() or rel.parts[0] == PRIVATE_DIR:
                continue
            if path.name in NEVER_DOWNLOADED or any(part.startswith(".") for part in rel.parts):
                continue
            yield path, f"{prefix}{rel}"


def _under(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder.resolve())
    except ValueError:
        return False
    return True


def _zip(study: Study) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for path, name in download_files(study):
            archive.write(path, name)
    return buffer.getvalue()


async def download(study: Study, state: AdminState, request: web.Request) -> web.Response:
    if _csrf_of(state, request) is None:
        raise web.HTTPSeeOther("/admin")
    body = await asyncio.to_thread(_zip, study)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    return web.Response(body=body, content_type="application/zip", headers={
        "Content-Disposition": f'attachment; filename="study-results-{stamp}.zip"', "Cache-Control": "no-store"})


def mount_admin(app: web.Application, study: Study, hooks: SessionHooks) -> None:
    state = AdminState()
    app.router.add_get("/admin", partial(dashboard, study, hooks, state))
    app.router.add_post("/admin/login", partial(login, study, state))
    app.router.add_post("/admin/logout", partial(logout, state))
    app.router.add_post("/admin/pause", partial(set_paused, study, state, True))
    app.router.add_post("/admin/resume", partial(set_paused, study, state, False))
    app.router.add_get("/admin/download.zip", partial(download, study, state))
