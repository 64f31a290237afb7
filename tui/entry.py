"""The ``benchlab`` console script: ``--help`` from the help cache when nothing changed, a command replayed
(:mod:`benchlab.data.command_replay`) when none of its inputs changed, everything else (and a
help text not yet cached) through the real CLI, :func:`benchlab.tui.cli.main`.

Kept apart from ``tui/cli.py`` so that printing a cached help text imports neither click nor any task
declaration (see :mod:`benchlab.tui.help_cache`); ``python -m benchlab.tui.cli`` still runs the CLI directly.
"""

from __future__ import annotations

import atexit
import io
import os
import sys
from collections.abc import Sequence
from contextlib import redirect_stderr, redirect_stdout
from functools import partial

from benchlab.data.command_replay import begin, printed_pure_output, replayed
from benchlab.tui.command_routes import route_of, routed
from benchlab.tui.help_cache import cached_help, is_help_request, safe_fingerprint, store_help
from benchlab.tui.help_listing import listed_help, record_listing, recorded_listing, recorded_page, still_valid


def _help_through_cli(argv: Sequence[str], before: str | None) -> int:
    """Print the help the real CLI prints, and store it (and the CLI's listing) when it is safe to replay (exit 0,
    nothing on stderr, no broken plug-in: the warning line must come from a live load)."""
    # deferred: the whole CLI (every declaration) loads only when the help text is not cached
    from benchlab.tui import cli
    from benchlab.tui.plugin_report import warning_line

    out, err = io.StringIO(), io.StringIO()
    code: int | str | None = 0
    root = cli.build_cli()
    with redirect_stdout(out), redirect_stderr(err):
        try:
            cli.main(list(argv), command=root)
        except SystemExit as exc:
            code = exc.code
    sys.stdout.write(out.getvalue())
    sys.stderr.write(err.getvalue())
    # stored only when nothing changed while the CLI was built (store_help checks the fingerprint again)
    if code in (0, None) and not err.getvalue() and warning_line() is None and store_help(argv, out.getvalue(),
                                                                                             before):
        record_listing(root)
    return code if isinstance(code, int) else (0 if code is None else 1)


def _print(out: str, err: str = "") -> None:
    """Write a stored text as the CLI would have; a reader that stopped early (``| head``) ends it quietly, as the
    CLI does (exit 0, no traceback)."""
    try:
        sys.stderr.write(err)
        sys.stdout.write(out)
        sys.stdout.flush()
    except BrokenPipeError:
        # the interpreter flushes stdout again at exit: point it at /dev/null so that flush cannot fail
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``benchlab`` command."""
    args = list(sys.argv[1:] if argv is None else argv)
    if is_help_request(args):
        now = safe_fingerprint()
        text = cached_help(args, now) if now is not None else None
        if text is None:
            text = listed_help(args)  # a group's page from the listing of the last live build, if still valid
        if text is None:
            text = recorded_page(args)  # a command's page as laid out last, while the files it loaded are unchanged
        if text is None:
            # deferred: the cards load only for a help page that nothing stored (a plain command never needs them)
            from benchlab.tui.help_cards import carded_help

            text = carded_help(args)  # from the command cards (a command's page: its one declaration)
            if text is not None and now is not None:
                store_help(args, text, now)
        if text is not None:
            _print(text)
            return
        code = _help_through_cli(args, now)
        if code:
            sys.exit(code)
        return
    hit = replayed(args)  # a command whose inputs did not change since it printed (data/command_replay.py)
    if hit is not None:
        _print(hit[0], hit[1])
        return
    begin(args)
    record = recorded_listing()
    if route_of(args, record) is not None:  # a declared command the help listing knows the declaration of
        assert record is not None
        if still_valid(record):
            # deferred: click loads only for a command that runs (a cached help or a replay never needs it)
            from benchlab.tui.cli_guard import run_guarded

            run_guarded(args, partial(routed, args, record))  # made inside the guard, like the whole CLI
            return
        _run_and_record(args)  # stale: the whole CLI, and a new listing so that the next run is routed
        return
    if record is None or not still_valid(record):
        # the whole CLI is built anyway: record its listing, so that the next help or declared command needs none
        _run_and_record(args)
        return
    # deferred: the CLI loads only for a command that is neither a cached help text nor a replay
    from benchlab.tui.cli import main as cli_main

    cli_main(args)


def console() -> None:
    """The ``benchlab`` console script: :func:`main` in a process of its own, which ends without the interpreter's
    teardown after a command whose printed output is a pure function of its inputs.

    Why: freeing every module and object one by one when the interpreter exits (pandas, numpy, the comparison's
    frames) costs a computed comparison ~4% of its instructions, ~0.05-0.1 s of CPU, and frees nothing the
    operating system would not free at once. Only a command that offered its output for replay
    (:func:`benchlab.data.command_replay.remember`: it reads named files, prints, and writes nothing but atomic
    cache entries) leaves early, and only once it returned normally (exit status 0), every other exit handler has
    run (they were registered after this one, so they run before it) and stdout and stderr are flushed. Any other
    command, an error, a crash and an interruption end as before; so does ``main`` called from Python.
    """
    atexit.register(_leave_without_teardown)
    main()
    global _LEAVE_EARLY
    _LEAVE_EARLY = printed_pure_output()


#: Set by :func:`console` once a pure command returned normally.
_LEAVE_EARLY = False


def _leave_without_teardown() -> None:
    """The last exit handler of the console script: see :func:`console`."""
    if not _LEAVE_EARLY:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed or broken stream: the interpreter's own exit deals with it, as before
        return
    os._exit(0)


def _run_and_record(args: Sequence[str]) -> None:
    """Build the whole CLI, record its listing (when no source changed while it was built and no plug-in is
    broken), then run ``args`` through it."""
    before = safe_fingerprint()
    # deferred: the whole CLI loads only for a command that the help listing cannot route
    from benchlab.tui import cli
    from benchlab.tui.cli_guard import run_guarded
    from benchlab.tui.plugin_report import warning_line

    def build_and_record() -> cli.groups.RootGroup:
        root = cli.build_cli()
        if before is not None and safe_fingerprint() == before and warning_line() is None:
            record_listing(root)
        return root

    run_guarded(args, build_and_record)


if __name__ == "__main__":
    console()
