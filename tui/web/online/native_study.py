"""``benchlab serve --study DIR`` on the native participant page: the online routes joined to the in-process
session server through its hooks (:mod:`benchlab.tui.web.hooks`).

What each side does here:

* ``/join`` (the online routes) records the person's arm and registers their private session token with the
  server (:class:`~benchlab.tui.web.online.routes.SessionHooks`); the session opens in this process with the arm's
  options (``study.arm_values``).
* The gate, before consent and before anything is written: a session that already ended (or passed its time
  limit) gets its completion page again; a phone or tablet on a study with ``require_computer`` gets the "please
  use a computer" page with the ``screened_out`` code (nothing recorded, no place taken: places count consented
  sessions only).
* ``on_end``, after the end record is fsynced: the completion is decided from the files, stored (a
  ``completion`` event), then shown; deciding it again gives the stored one, so a session reopened after a restart
  gets the same code (the gate gives it, as ``on_end`` runs only in the server run where the session ended).
* ``/withdraw/<session token>``: the end page's "withdraw my data" link: the withdrawal code, and on confirming the
  report slice's :func:`~benchlab.annotations.withdraw.withdraw_participant` (after the session ended; the ended
  session is closed here first, so its lock is free) and the ``withdrew`` outcome's code.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
from collections.abc import Sequence
from datetime import UTC, datetime
from html import escape

from aiohttp import web

from benchlab.annotations.online import places
from benchlab.annotations.online.completion import complete, redirect_for
from benchlab.annotations.online.joins import joined
from benchlab.annotations.online.private import COMPLETIONS_FILE, append_record
from benchlab.annotations.session.opening import Opening, session_options
from benchlab.annotations.study import Study
from benchlab.annotations.withdraw import withdraw_participant, withdrawal_code
from benchlab.data.errors import BenchlabError
from benchlab.tui.web import native_page
from benchlab.tui.web.app_process import AppSpec
from benchlab.tui.web.hooks import EndOutcome, Joiner, Refusal, ServerHooks, SessionEnd
from benchlab.tui.web.native import DeviceRule, NativeSessions
from benchlab.tui.web.online import pages
from benchlab.tui.web.online.routes import SessionHooks, end_code, gate_refusal, mount_online
from benchlab.tui.web.page_socket import close_socket, send_json
from benchlab.tui.web.participants import Participant, ensure_tokens
from benchlab.tui.web.server import SessionServer
from benchlab.tui.web.web_runner import web_opening
from benchlab.tui.web.web_trials import has_web_trial

log = logging.getLogger("benchlab.serve")


class NativeStudy:
    """One online study served on the native page: who joined with which arm and token, and the hooks."""

    def __init__(self, study: Study) -> None:
        self.study = study
        self.arms: dict[str, str] = {}
        self.tokens: dict[str, str] = {}
        online = study.spec.online
        self.rule = DeviceRule(require_computer=bool(online is not None and online.require_computer))
        self.server = SessionServer(participants={}, tokens={}, app_spec=_no_app, title=study.spec.title)
        self.native = NativeSessions(opener=self.opening, kind=study.task.trial_kind,
                                     title=study.spec.title, hooks=ServerHooks(gate=self.gate, on_end=self.on_end))
        self.server.native = self.native

    # -- the session server's side -----------------------------------------------------------------------------

    def opening(self, pid: str) -> Opening:
        """The participant's session with their arm's options (runs in a worker thread)."""
        study = self.study
        if pid not in self.arms:  # a private link: the arm by the study's rule, when the session starts
            assignment = study.assign(pid, "1")
            study.record(assignment, source="link")
            self.arms[pid] = assignment.arm
        values = {**study.arm_values(self.arms[pid]), "participant": pid}
        session, plan = session_options(study.task, values)
        return web_opening(study.task, session, plan)

    async def gate(self, joiner: Joiner) -> Refusal | None:
        refused = await gate_refusal(self.study, joiner.participant)
        if refused is not None:
            return Refusal(refused[0], html=f"<h1>{escape(refused[0])}</h1>{refused[1]}")
        why = self.rule.refusal(joiner.device)
        if why is None:
            return None
        log.info("%s refused by the device check (%s)", joiner.participant, why)
        if joiner.participant in self.tokens:  # a crowd joiner: their join no longer holds a place
            await asyncio.to_thread(places.screen_out, self.study, joiner.participant)
        return Refusal("Please use a computer", html=native_page.device_html(why, self.rule) + self._screened_out())

    def _screened_out(self) -> str:
        """The ``screened_out`` outcome's code and link, shown as text (nothing is stored: the person may come back
        on a computer and take part)."""
        online = self.study.spec.online
        spec = online.completion.get("screened_out") if online is not None else None
        if spec is None:
            return ""
        html = ""
        if spec.code:
            html += f'<p>Your completion code: <code id="code">{escape(spec.code)}</code></p>'
        if spec.redirect:
            url = spec.redirect.replace("{code}", spec.code or "")
            if "{id}" not in url:
                html += f'<p><a id="continue" href="{escape(url)}">Continue to the recruitment site</a></p>'
        return html

    async def on_end(self, end: SessionEnd) -> EndOutcome | None:
        if end.reason == "declined":
            return await self._declined(end.participant)
        got = await end_code(self.study, end.participant)
        if got is None:
            return None
        token = self.tokens.get(end.participant)
        withdraw = f"/withdraw/{token}" if token and end.reason != "declined" else None
        return EndOutcome(message=got[0], code=got[1], redirect=got[2], withdraw=withdraw)

    async def _declined(self, pid: str) -> EndOutcome | None:
        """A declined consent on the native page leaves no session file at all (nothing recorded), so its code comes
        from the study file; it is stored in the study's private completions log only (as the online routes do)."""
        online = self.study.spec.online
        spec = online.completion.get("declined") if online is not None else None
        if spec is None or pid not in self.tokens:
            return None
        redirect = spec.redirect.replace("{code}", spec.code or "") if spec.redirect else None
        if redirect is not None and "{id}" in redirect:
            redirect = None
        # the private completions log frees the join's place and gives the same page on a repeat visit
        await asyncio.to_thread(append_record, self.study.folder, COMPLETIONS_FILE, {
            "participant": pid, "outcome": "declined", "code": spec.code, "redirect": redirect, "attention": "",
            "timestamp": datetime.now(UTC).isoformat()})
        return EndOutcome(message="You did not consent, so nothing of yours was recorded.", code=spec.code,
                          redirect=redirect)

    # -- what the online routes need (SessionHooks) -----------------------------------------------------------

    def register(self, participant: str, token: str, arm: str) -> str:
        self.arms[participant] = arm
        self.tokens[participant] = token
        self.server.add({participant: Participant(participant)}, {participant: token})
        return f"/s/{token}"

    def stop(self, participant: str) -> None:
        """The time limit: the live page gets the timed-out page and code, the session is closed here."""
        asyncio.get_running_loop().create_task(self._stop(participant))

    async def _stop(self, pid: str) -> None:
        done = await asyncio.to_thread(complete, self.study, pid)  # stored (a completion event) before shown
        async with self.native.lock(pid):
            ws = self.native.sockets.pop(pid, None)
            live = self.native.sessions.pop(pid, None)
            if ws is not None:
                if done is not None:
                    title, body = pages.completion_body(done.outcome, done.code, redirect_for(self.study, done))
                    await send_json(ws, ["page", f"<h1>{escape(title)}</h1>{body}"])
                await close_socket(ws, 1000, b"time limit")
            if live is not None:
                with contextlib.suppress(Exception):
                    await self.native.close_runner(live)

    def live(self) -> set[str]:
        return set(self.native.sockets)

    def hooks(self) -> SessionHooks:
        return SessionHooks(self.register, self.stop, self.live)

    # -- withdrawal from the end page -------------------------------------------------------------------------

    async def _owner(self, request: web.Request) -> str | None:
        token = request.match_info["token"]
        return next((p for p, r in (await asyncio.to_thread(joined, self.study)).items()
                     if hmac.compare_digest(str(r.get("token", "")), token)), None)

    async def withdraw_page(self, request: web.Request) -> web.Response:
        pid = await self._owner(request)
        if pid is None:
            return _html(pages.bad_link("this page belongs to no session"), 404)
        code = await asyncio.to_thread(withdrawal_code, self.study.folder, pid)
        body = ("<p>You may withdraw: everything you answered in this study is then "
                "deleted. Keep this withdrawal code; with it you can also ask the researcher later:</p>"
                f'<p><code id="withdrawal-code">{escape(code)}</code></p>'
                f'<form method="post" action="/withdraw/{escape(request.match_info["token"])}">'
                '<button id="confirm-withdraw" type="submit">Withdraw my data</button></form>')
        return _html(pages.page("Withdraw your data", body))

    async def withdraw_post(self, request: web.Request) -> web.Response:
        pid = await self._owner(request)
        if pid is None:
            return _html(pages.bad_link("this page belongs to no session"), 404)
        origin = request.headers.get("Origin")
        if origin not in (None, "null") and origin.split("://", 1)[-1] != request.host:
            return _html(pages.bad_link("this form must be sent from this site"), 403)
        async with self.native.lock(pid):  # an ended session is closed first (its lock released)
            live = self.native.sessions.get(pid)
            if live is not None and not live.ended:
                return _html(pages.bad_link("your session is still running: finish it first, then withdraw"), 409)
            if live is not None:
                ws = self.native.sockets.pop(pid, None)
                if ws is not None:
                    await close_socket(ws, 1000, b"withdrawn")
                del self.native.sessions[pid]
                await asyncio.to_thread(live.runner.close)
            try:
                await asyncio.to_thread(withdraw_participant, self.study.folder, pid)
            except BenchlabError as exc:
                log.warning("withdrawal of %s refused: %s", pid, exc)
                return _html(pages.bad_link("your data cannot be withdrawn right now; please use your withdrawal "
                                            "code with the researcher"), 409)
        log.info("%s withdrew their data", pid)
        online = self.study.spec.online
        spec = online.completion.get("withdrew") if online is not None else None
        title, body = pages.completion_body("withdrew", spec.code if spec else None,
                                            spec.redirect.replace("{code}", spec.code or "")
                                            if spec is not None and spec.redirect and "{id}" not in spec.redirect
                                            else None)
        return _html(pages.page(title, f"<p>Your data have been deleted.</p>{body}"))

    def mount_withdraw(self, app: web.Application) -> None:
        app.router.add_get("/withdraw/{token:[A-Za-z0-9_-]{16,64}}", self.withdraw_page)
        app.router.add_post("/withdraw/{token:[A-Za-z0-9_-]{16,64}}", self.withdraw_post)


def _no_app(participant: Participant) -> AppSpec:
    raise BenchlabError("the native study server starts no app processes")


def _html(text: str, status: int = 200) -> web.Response:
    return web.Response(text=text, status=status, content_type="text/html",
                        headers={"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
                                 "Referrer-Policy": "no-referrer", "X-Frame-Options": "DENY"})


def native_study_server(study: Study, *, admin: bool = False, private: Sequence[str] = ()
                        ) -> tuple[web.Application, SessionServer, str] | None:
    """The aiohttp application serving ``study`` on the native page, its server and the study link's path;
    ``None`` when the study's trial kind has no web renderer (then the terminal page serves it)."""
    if not has_web_trial(study.task.trial_kind):
        return None
    glue = NativeStudy(study)
    for pid, record in joined(study).items():  # everyone who joined before a restart keeps their link
        glue.register(pid, record["token"], record.get("arm", study.spec.arms[0].name))
    if private:
        tokens = ensure_tokens(study.out, private)
        glue.server.add({pid: Participant(pid) for pid in private}, {pid: tokens[pid] for pid in private})
    app = glue.server.make_app()
    glue.mount_withdraw(app)
    link = mount_online(app, study, glue.hooks(), admin=admin)
    return app, glue.server, link

