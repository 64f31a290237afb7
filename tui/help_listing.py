"""``benchlab GROUP --help`` without building the CLI: the command listing, recorded from a live build and rendered
by click at the current width, until a file that build loaded changes.

A group's help page (``benchlab --help``, ``benchlab score --help``) is its usage line, its help text, its own
options (only ``--help``/``--version`` for the groups recorded here) and one line per command: the name and the
shortened help. All of that comes from the declarations, and reading them means importing every declaration
module with its pydantic options (~0.25 CPU-seconds). The help cache (:mod:`benchlab.tui.help_cache`) replays a
finished text, but any change of the environment, the width, or of any benchlab source invalidates it.

The listing index here is what the help page is made of, not the page: recorded after a live build (never while a
plug-in is broken: its warning must come from a live load), and valid while

* every file of every module the build imported (benchlab's, the plug-ins', click's, pydantic's ...) has the same
  path, size and modification time (a file the CLI build never imports, such as a Textual screen, cannot change a
  listing),
* the ``benchlab.*`` entry points, the installed distributions and ``.pth`` files, the interpreter and
  ``sys.path`` are the same.

Environment variables and the terminal width are not part of it: a group's listing does not depend on them, and
the page is laid out by click's own formatter each time. A group whose own options are declared (``run``,
``serve``: defaults may come from the environment) and every command's own page (``score NAME --help``) are never
rendered from here; they go through the live CLI. Nothing here imports pydantic or a declaration module.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import click

#: Bump when what is stored changes shape.
INDEX_VERSION = "1"


def _key() -> str:
    """The ``benchlab.*`` entry points, the installed distributions, the interpreter and ``sys.path``, hashed (the
    environment's ``BENCHLAB_*`` variables are left out: see the module docstring)."""
    digest = hashlib.sha256(f"listing v{INDEX_VERSION}\0{sys.version}\0{sys.executable}\0{sys.path}\n".encode())
    # deferred: importlib.metadata loads only when a help page is looked up, not for every command
    from importlib import metadata

    scan = metadata.entry_points()
    for group in sorted(g for g in scan.groups if g.startswith("benchlab")):
        for ep in sorted(scan.select(group=group), key=lambda e: (e.name, e.value)):
            dist = ep.dist
            where = f"{dist.name} {dist.version}" if dist is not None else "?"
            digest.update(f"ep {group}\0{ep.name}\0{ep.value}\0{where}\n".encode())
    for entry in sys.path:
        try:
            names = sorted(n for n in os.listdir(entry or ".") if n.endswith((".dist-info", ".egg-info", ".pth")))
        except OSError:
            continue
        digest.update(f"path {entry}\0{names}\n".encode())
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


def _path() -> Path:
    # deferred: the settings module loads only when a help page is looked up (a plain command never needs it)
    from benchlab.data.settings import get_settings

    return get_settings().cache_dir / "help" / f"listing-v{INDEX_VERSION}.json"


def _context(cmd: click.Command, name: str, parent: click.Context | None) -> click.Context:
    """The context click makes for ``cmd`` when it runs under ``parent`` (settings merged as in ``make_context``)."""
    return cmd.context_class(cmd, info_name=name, parent=parent, **cmd.context_settings)


def _static(cmd: click.Command, ctx: click.Context) -> bool:
    """Whether the page's options are only ``--help`` and ``--version`` (nothing that a setting could change)."""
    import click  # deferred: only a live build records, and it has click loaded already

    help_option = cmd.get_help_option(ctx)
    helps = {help_option.name} if help_option is not None else set()

    def plain(param: click.Parameter) -> bool:
        return (isinstance(param, click.Option) and param.name in {*helps, "version"} and param.is_eager
                and not param.expose_value)

    return all(plain(p) for p in cmd.get_params(ctx))


def _node(group: click.Group, ctx: click.Context) -> dict[str, Any]:
    children = []
    for name in group.list_commands(ctx):
        child = group.get_command(ctx, name)
        if child is None:
            continue
        children.append({"name": name, "help": child.help, "short_help": child.short_help,
                         "deprecated": child.deprecated, "hidden": child.hidden})
    return {"command_path": ctx.command_path, "help": group.help, "short_help": group.short_help,
            "epilog": group.epilog, "deprecated": group.deprecated, "usage": group.collect_usage_pieces(ctx),
            "records": [list(r) for p in group.get_params(ctx) if (r := p.get_help_record(ctx)) is not None],
            "children": children}


def listing_nodes(root: click.Group, prog_name: str = "benchlab") -> dict[str, dict[str, Any]]:
    """Every group of ``root`` whose page this module can render, by command path (``""`` for the root)."""
    import click  # deferred: see _static

    nodes: dict[str, dict[str, Any]] = {}

    def walk(group: click.Group, ctx: click.Context, path: str) -> None:
        if _static(group, ctx):
            nodes[path] = _node(group, ctx)
        for name in group.list_commands(ctx):
            child = group.get_command(ctx, name)
            if isinstance(child, click.Group):
                walk(child, _context(child, name, ctx), f"{path} {name}".strip())

    walk(root, _context(root, prog_name, None), "")
    return nodes


def record_listing(root: click.Group) -> None:
    """Store the listing of ``root`` (a CLI that just printed a help page with no plug-in warning), stamped with the
    files loaded so far; a cache that cannot be written is skipped."""
    try:
        data = {"key": _key(), "nodes": listing_nodes(root), "files": _loaded_files()}
        path = _path()
    except Exception:  # deliberately broad: the index must never stand between a user and the help text
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):  # the folder itself may be unusable
            tmp.unlink()


def _stand_in(node: dict[str, Any], name: str) -> click.Group:
    """A click group that lays out ``node`` exactly as the recorded group laid out its own page."""
    import click  # deferred: click loads only when a page is rendered

    class Listed(click.Group):
        def collect_usage_pieces(self, ctx: click.Context) -> list[str]:
            return list(node["usage"])

        def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
            records = [tuple(r) for r in node["records"]]
            if records:
                with formatter.section("Options"):
                    formatter.write_dl(records)
            self.format_commands(ctx, formatter)

    group = Listed(name, help=node["help"], short_help=node["short_help"], epilog=node["epilog"],
                   deprecated=node["deprecated"], add_help_option=False)
    for child in node["children"]:
        group.add_command(click.Command(child["name"], help=child["help"], short_help=child["short_help"],
                                        deprecated=child["deprecated"], hidden=child["hidden"],
                                        add_help_option=False))
    return group


def listed_help(argv: Sequence[str]) -> str | None:
    """The help page of the group ``argv`` names (``[WORD ...] --help``) from a valid index, else ``None``."""
    try:
        data = json.loads(_path().read_text(encoding="utf-8"))
        path = " ".join(argv[:-1])
        node = data["nodes"].get(path)
        if node is None or not _unchanged(data["files"]) or data["key"] != _key():
            return None
        group = _stand_in(node, argv[-2] if len(argv) > 1 else "benchlab")
        return _context(group, node["command_path"], None).get_help() + "\n"
    except Exception:  # deliberately broad: a missing or damaged index means "ask the real CLI"
        return None
