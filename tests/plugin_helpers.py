"""Register the example plug-in (examples/benchlab-example-task) without pip, the way an installed package is.

``importlib.metadata`` discovers entry points from ``<name>.dist-info/entry_points.txt`` in any ``sys.path``
folder; a temporary folder holding the package and such a dist-info is therefore an installed plug-in to benchlab.
The entry point lines, every group the example declares (its tasks and its trial screen), are read from the
example's own ``pyproject.toml``, so the tests check the declaration a user copies.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "benchlab-example-task"
PACKAGE = "benchlab_example_task"


def install_example(folder: Path) -> tuple[Path, dict[str, str]]:
    """Copy the package into ``folder`` with a minimal dist-info; returns (folder, the declared tasks)."""
    project = tomllib.loads((EXAMPLE / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    groups: dict[str, dict[str, str]] = project["entry-points"]
    shutil.copytree(EXAMPLE / PACKAGE, folder / PACKAGE)
    info = folder / f"{PACKAGE}-{project['version']}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n", encoding="utf-8")
    text = "".join(f"[{group}]\n" + "".join(f"{name} = {target}\n" for name, target in entries.items()) + "\n"
                   for group, entries in groups.items())
    (info / "entry_points.txt").write_text(text, encoding="utf-8")
    return folder, groups["benchlab.tasks"]


#: ``benchlab`` as a subprocess of this interpreter (so it sees the plug-in folder put on ``PYTHONPATH``).
CLI = [sys.executable, "-m", "benchlab.tui.cli"]


def example_env(folder: Path) -> dict[str, str]:
    """The environment of a ``benchlab`` subprocess that finds the example plug-in installed in ``folder``."""
    install_example(folder)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(folder), *filter(None, [os.environ.get("PYTHONPATH")])])
    return env


def run_benchlab(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``benchlab ARGS`` in ``cwd`` with ``env`` (see :func:`example_env`); its output captured, bounded in time."""
    return subprocess.run([*CLI, *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=300)


def forget_loaded_plugins() -> None:
    """Make the next use load every entry-point group afresh (tasks, tools, trial screens): a test that changes
    what is installed, or fakes the entry points, calls this before and after so no other test sees its state."""
    from benchlab.annotations.plugins import forget_scan
    from benchlab.annotations.registry import registry
    from benchlab.tui import trial_screens
    from benchlab.tui.tools import tool_report

    forget_scan()
    registry.cache_clear()
    tool_report.cache_clear()
    trial_screens._loaded.cache_clear()
