"""Three broken plug-ins installed the way ``tests/plugin_helpers.py`` installs the example: a temporary folder with
each package and its ``.dist-info`` (METADATA, entry_points.txt), put on ``sys.path`` / ``PYTHONPATH``.

- ``benchlab-oddword``: ``oddword = oddword_pkg.task:TASK`` whose ``task.py`` has a syntax error;
- ``benchlab-oddname``: a task named ``odd_word`` (a name with ``_``);
- ``benchlab-oddsort``: a task named ``sort``, the name of a built-in.
"""

from __future__ import annotations

from pathlib import Path

_DECLARATION = '''
class Declared:
    name = {name!r}
    title = "Odd"
    description = "A benchmark that only declares itself."
    commands = ()


TASK = Declared()
'''

PLUGINS: dict[str, tuple[str, str, str]] = {
    # package: (entry name, module, task.py source)
    "benchlab-oddword": ("oddword", "oddword_pkg", "TASK = (\n"),
    "benchlab-oddname": ("odd_word", "oddname_pkg", _DECLARATION.format(name="odd_word")),
    "benchlab-oddsort": ("sort", "oddsort_pkg", _DECLARATION.format(name="sort")),
}


def install_broken(folder: Path) -> Path:
    """Write the three packages and their dist-infos into ``folder``; returns ``folder``."""
    for package, (entry, module, source) in PLUGINS.items():
        (folder / module).mkdir()
        (folder / module / "__init__.py").write_text("", encoding="utf-8")
        (folder / module / "task.py").write_text(source, encoding="utf-8")
        info = folder / f"{package.replace('-', '_')}-0.1.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n", encoding="utf-8")
        (info / "entry_points.txt").write_text(f"[benchlab.tasks]\n{entry} = {module}.task:TASK\n",
                                               encoding="utf-8")
    return folder
