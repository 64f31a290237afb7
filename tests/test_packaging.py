"""The package layout the design card fixes, and the import direction tui -> annotations -> data."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TOP = {"tui": "benchlab.tui", "annotations": "benchlab.annotations", "data": "benchlab.data"}


def _packages_on_disk() -> set[str]:
    found = set()
    for folder, dotted in TOP.items():
        for init in (REPO / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(REPO / folder)
            found.add(".".join([dotted, *rel.parts]) if rel.parts else dotted)
    return found


def test_every_package_folder_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    assert _packages_on_disk() == listed


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def test_data_and_annotations_never_import_textual_and_imports_point_one_way() -> None:
    forbidden = {
        "data": ("textual", "benchlab.tui", "benchlab.annotations", "textual_plotext"),
        "annotations": ("textual", "benchlab.tui", "textual_plotext"),
    }
    problems = []
    for folder, bad in forbidden.items():
        for path in (REPO / folder).rglob("*.py"):
            for name in _imports(path):
                if any(name == b or name.startswith(b + ".") for b in bad):
                    problems.append(f"{path.relative_to(REPO)} imports {name}")
    assert problems == []


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    command = readme.split("<!-- test-command -->", 1)[1].split("```bash", 1)[1].split("```", 1)[0].strip()
    assert command and "pytest" in command
    assert "<!-- test-command -->" in ci or command in ci
