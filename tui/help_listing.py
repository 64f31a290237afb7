"""``benchlab ... --help`` without building the CLI: each page's parts, recorded from a live build and laid out
by click at the current width, until a file that build loaded, a setting it read or an installed plug-in changes.

A help page is a usage line, a help text, the options' rows (flag and help with its default) and, for a group, one
line per command (name and shortened help). All of that comes from the declarations, and reading them means
importing every declaration module with its pydantic options (~0.25 CPU-seconds). The help cache
(:mod:`benchlab.tui.help_cache`) replays a finished text, but any change of the environment, the terminal width or
of any benchlab source invalidates it. The index here keeps what each page is made of (the parts click computes
from the declarations, none of which depends on the width), recorded after a live build that printed a help page
(never while a plug-in is broken: its warning must come from a live load), and is valid while

* every file of every module the build imported (benchlab's, the plug-ins', click's, pydantic's ...) has the same
  path, size and modification time: a file the CLI build never imports (a Textual screen, the web server, the
  analysis code) cannot change a page,
* every setting the build read (``$BENCHLAB_<NAME>`` through :func:`benchlab.data.settings.env`, which records
  each read) and the ``XDG_*`` folders have the same values: other variables cannot change a page,
* the ``benchlab.*`` entry points, the installed distributions and ``.pth`` files, the interpreter and
  ``sys.path`` are the same.

With a plug-in installed, only the group listings below the root are recorded (see :func:`listing_nodes`). The
record also names, for a group's declared commands, the module that declares each one: the ``benchlab`` script
runs such a command from that module alone (:mod:`benchlab.tui.command_routes`). It is written after a live help
page, and before a command that the record knew of runs through the whole CLI because the record was stale.
Nothing here imports pydantic or a declaration module.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from benchlab.data.command_replay import store_json
from benchlab.tui.help_cache import entry_point_lines, installed, plugin_packages

if TYPE_CHECKING:
    import click

#: Bump when what is stored changes shape.
INDEX_VERSION = "1"


def _key() -> str:
    """The ``benchlab.*`` entry points, the installed distributions, the interpreter and ``sys.path``, hashed."""
    digest = hashlib.sha256(f"listing v{INDEX_VERSION}\0{sys.version}\0{sys.executable}\0{sys.path}\n".encode())
    digest.update("".join(entry_point_lines()).encode())
    digest.update("".join(installed()).encode())
    return digest.hexdigest()


def _loaded_files() -> list[list[Any]]:
    """Path, size and modification time of the file of every module imported so far."""
    stamps: dict[str, list[Any]] = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if not isinstance(path, str) or path in stamps:
            continue
        try:
            st = os.stat(path)
        except OSError:
            continue
        stamps[path] = [path, st.st_size, st.st_mtime_ns]
    return sorted(stamps.values())


def _unchanged(files: list[list[Any]]) -> bool:
    for path, size, mtime in files:
        try:
            st = os.stat(path)
        except OSError:
            return False
        if st.st_size != size or st.st_mtime_ns != mtime:
            return False
    return True


def _environment() -> dict[str, str]:
    """The ``XDG_*`` variables (the default folders come from them, read by platformdirs, not by benchlab)."""
    return {k: v for k, v in os.environ.items() if k.startswith("XDG_")}


def _same_settings(data: dict[str, Any]) -> bool:
    """Whether every setting the recording process read has the same value now, and the ``XDG_*`` folders too."""
    # deferred: the settings module loads only when a help page is looked up
    from benchlab.data.settings import env

    return data["settings"] == _environment() and all(env(name) == value for name, value in data["read"].items())


def _path() -> Path:
    # deferred: the settings module loads only when a help page is looked up (a plain command never needs it)
    from benchlab.data.settings import get_settings

    return get_settings().cache_dir / "help" / f"listing-v{INDEX_VERSION}.json"


def _context(cmd: click.Command, name: str, parent: click.Context | None) -> click.Context:
    """The context click makes for ``cmd`` when it runs under ``parent`` (settings merged as in ``make_context``)."""
    return cmd.context_class(cmd, info_name=name, parent=parent, **cmd.context_settings)


def _plain(cmd: click.Command, ctx: click.Context) -> bool:
    """Whether the page's only options are ``--help`` and ``--version`` (no declared option, so no default)."""
    import click  # deferred: only a live build records, and it has click loaded already

    help_option = cmd.get_help_option(ctx)
    names = {"version", *([help_option.name] if help_option is not None else [])}
    return all(isinstance(p, click.Option) and p.name in names and p.is_eager and not p.expose_value
               for p in cmd.get_params(ctx))


def _node(cmd: click.Command, ctx: click.Context) -> dict[str, Any]:
    """What ``cmd``'s page is made of, each part as click itself makes it (nothing that depends on the width)."""
    import click  # deferred: see _plain

    params = cmd.get_params(ctx)
    arguments = [p for p in params if isinstance(p, click.Argument)]
    help_option = cmd.get_help_option(ctx)
    node: dict[str, Any] = {
        "help_words": list(help_option.opts) if help_option is not None else [],  # `-h` may be another option's
        "command_path": ctx.command_path, "help": cmd.help, "short_help": cmd.short_help, "epilog": cmd.epilog,
        "deprecated": cmd.deprecated, "usage": cmd.collect_usage_pieces(ctx),
        "records": [list(r) for p in params if not isinstance(p, click.Argument)
                    and (r := p.get_help_record(ctx)) is not None],
        "arguments": ([list(a.get_help_record(ctx) or ("", "")) for a in arguments]
                      if any(getattr(a, "help", None) is not None for a in arguments) else []),
    }
    if isinstance(cmd, click.Group):
        node["children"] = []
        for name in cmd.list_commands(ctx):
            child = cmd.get_command(ctx, name)
            if child is not None:
                node["children"].append({"name": name, "help": child.help, "short_help": child.short_help,
                                         "deprecated": child.deprecated, "hidden": child.hidden})
    return node


def listing_nodes(root: click.Group, prog_name: str = "benchlab") -> dict[str, dict[str, Any]]:
    """The pages of ``root`` that can be laid out again from a record, by command path (``""`` for the root).

    When no plug-in is installed, every page is recorded: benchlab's own code reads the environment only through
    :func:`benchlab.data.settings.env` (whose reads the index checks). A plug-in may read it directly, in its
    options' defaults or when it loads (and fail: ``benchlab --help`` then ends with the warning), so with one
    installed only the group listings below the root are recorded (no option defaults, no warning line)."""
    import click  # deferred: see _plain

    nodes: dict[str, dict[str, Any]] = {}
    pages = not plugin_packages()

    # deferred: only a live build records, and it has the groups loaded already
    from benchlab.tui.command_routes import origin
    from benchlab.tui.commands.groups import PluginAwareGroup

    def walk(cmd: click.Command, ctx: click.Context, path: str) -> None:
        if pages or (path and _plain(cmd, ctx)):
            nodes[path] = _node(cmd, ctx)
            if pages and len(path.split()) == 1 and isinstance(cmd, PluginAwareGroup) and _plain(cmd, ctx):
                routes = {name: origin(cmd, name) for name in cmd.list_commands(ctx)}
                nodes[path]["origins"] = {name: where for name, where in routes.items() if where is not None}
        if isinstance(cmd, click.Group):
            for name in cmd.list_commands(ctx):
                child = cmd.get_command(ctx, name)
                if child is not None:
                    walk(child, _context(child, name, ctx), f"{path} {name}".strip())

    walk(root, _context(root, prog_name, None), "")
    return nodes


def _stamped(nodes: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``nodes`` with what they depend on: the files loaded so far, the settings read, the installed entry points."""
    # deferred: the settings module is loaded by now (the CLI reads its settings through it)
    from benchlab.data.settings import READ, env

    return {"key": _key(), "nodes": nodes, "files": _loaded_files(), "settings": _environment(),
            "read": {name: env(name) for name in sorted(READ)}}


def record_listing(root: click.Group) -> None:
    """Store the listing of ``root`` (a CLI that just printed a help page with no plug-in warning), stamped with the
    files loaded so far; a cache that cannot be written is skipped."""
    try:
        data, path = _stamped(listing_nodes(root)), _path()
    except Exception:  # deliberately broad: the index must never stand between a user and the help text
        return
    store_json(path, data)


def _page_path(words: Sequence[str]) -> Path:
    digest = hashlib.sha256("\0".join(words).encode()).hexdigest()[:32]
    return _path().parent / f"page-v{INDEX_VERSION}-{digest}.json"


def record_page(root: click.Group, words: Sequence[str]) -> None:
    """Store the page of the command ``words`` of ``root`` (a root made for that one command, which just printed its
    page: :mod:`benchlab.tui.help_cards`), stamped with the files this process loaded. Unlike the listing it stays
    valid while an edit touches only files that page did not load (``tui/cli.py``, another benchmark's commands).
    Nothing is stored while a plug-in is installed (see :func:`listing_nodes`)."""
    import click  # deferred: see _plain

    if plugin_packages():
        return
    try:
        ctx = _context(root, "benchlab", None)
        cmd: click.Command = root
        for word in words:
            assert isinstance(cmd, click.Group)
            found = cmd.get_command(ctx, word)
            assert found is not None
            cmd, ctx = found, _context(found, word, ctx)
        data, path = _stamped({" ".join(words): _node(cmd, ctx)}), _page_path(words)
    except Exception:  # deliberately broad: see record_listing
        return
    store_json(path, data)


def recorded_page(argv: Sequence[str]) -> str | None:
    """The page :func:`record_page` stored for ``argv`` (``WORD ... --help``) while nothing it depends on changed."""
    try:
        data = json.loads(_page_path(argv[:-1]).read_text(encoding="utf-8"))
    except Exception:  # deliberately broad: no record, or a damaged one, means "lay the page out afresh"
        return None
    return _laid_out(data, argv) if isinstance(data, dict) and still_valid(data) else None


def _stand_in(node: dict[str, Any]) -> click.Command:
    """A click command (a group when ``node`` lists commands) that lays out ``node`` as the recorded one did."""
    import click  # deferred: click loads only when a page is rendered

    class Recorded(click.Command):
        def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
            return list(node["usage"])

        def format_arguments(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
            if node["arguments"]:
                with formatter.section("Positional arguments"):
                    formatter.write_dl([tuple(r) for r in node["arguments"]])

        def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
            if node["records"]:
                with formatter.section("Options"):
                    formatter.write_dl([tuple(r) for r in node["records"]])

    class RecordedGroup(Recorded, click.Group):
        def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
            Recorded.format_options(self, ctx, formatter)
            self.format_commands(ctx, formatter)

    kwargs = {"help": node["help"], "short_help": node["short_help"], "epilog": node["epilog"],
              "deprecated": node["deprecated"], "add_help_option": False}
    if "children" not in node:
        return Recorded(None, **kwargs)
    group = RecordedGroup(None, **kwargs)
    for child in node["children"]:
        group.add_command(click.Command(child["name"], help=child["help"], short_help=child["short_help"],
                                        deprecated=child["deprecated"], hidden=child["hidden"],
                                        add_help_option=False))
    return group


def recorded_listing() -> dict[str, Any] | None:
    """The recorded listing as stored (not checked: see :func:`still_valid`), ``None`` when there is none."""
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else None
    except Exception:  # deliberately broad: a missing or damaged index means "ask the real CLI"
        return None


def still_valid(data: dict[str, Any]) -> bool:
    """Whether nothing the recorded listing ``data`` depends on changed (see the module docstring)."""
    try:
        return _unchanged(data["files"]) and _same_settings(data) and data["key"] == _key()
    except Exception:  # deliberately broad: a damaged index means "ask the real CLI"
        return False


def valid_listing() -> dict[str, Any] | None:
    """The recorded listing while nothing it depends on changed, else ``None``."""
    data = recorded_listing()
    return data if data is not None and still_valid(data) else None


def listed_help(argv: Sequence[str]) -> str | None:
    """The help page of the command ``argv`` names (``[WORD ...] --help``) from a valid index, else ``None``."""
    data = valid_listing()
    return _laid_out(data, argv) if data is not None else None


def _laid_out(data: dict[str, Any], argv: Sequence[str]) -> str | None:
    """The page ``argv`` asks for, laid out from the nodes of ``data`` (a listing or a page record), if it holds it."""
    try:
        node = data["nodes"].get(" ".join(argv[:-1]))
        if node is None or argv[-1] not in node["help_words"]:
            return None
        return _context(_stand_in(node), node["command_path"], None).get_help() + "\n"
    except Exception:  # deliberately broad: a damaged index means "ask the real CLI"
        return None
