"""Imports stay honest: no cycle among benchlab's modules (deferred imports counted), and every function-level
import says why it is deferred, so a newcomer can tell a start-up saving from a leftover."""

from __future__ import annotations

import ast
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LAYERS = {"tui": "benchlab.tui", "annotations": "benchlab.annotations", "data": "benchlab.data"}
IMPORTS = (ast.Import, ast.ImportFrom)


def modules() -> dict[str, Path]:
    """Dotted name -> file of every product module (a package by its ``__init__.py``)."""
    found = {}
    for folder, package in LAYERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join([package, *parts])] = path
    return found


def _type_checking_only(tree: ast.Module) -> set[int]:
    """Ids of the nodes under ``if TYPE_CHECKING:`` (never run, so no edge)."""
    return {id(n) for node in ast.walk(tree)
            if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}


def import_edges(known: dict[str, Path]) -> dict[str, set[str]]:
    """Module -> the benchlab modules it imports, at the top or inside a function."""
    edges: dict[str, set[str]] = {}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        skip = _type_checking_only(tree)
        targets = set()
        for node in ast.walk(tree):
            if id(node) in skip or not isinstance(node, IMPORTS):
                continue
            if isinstance(node, ast.Import):
                dotted = [alias.name for alias in node.names]
            elif node.module and node.level == 0:
                dotted = [node.module] + [f"{node.module}.{alias.name}" for alias in node.names]
            else:
                dotted = []
            for target in dotted:
                while target and target not in known:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    targets.add(target)
        edges[name] = targets
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def function_imports(path: Path) -> Iterator[tuple[ast.FunctionDef | ast.AsyncFunctionDef, ast.stmt]]:
    """Every import statement inside a function of ``path``, with its function (each statement once)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    seen: set[int] = set()
    for function in ast.walk(tree):
        if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(function):
                if isinstance(node, IMPORTS) and id(node) not in seen:
                    seen.add(id(node))
                    yield function, node


def has_reason(lines: list[str], function: ast.stmt, node: ast.stmt) -> bool:
    """A ``deferred:`` comment on the import's own lines, or above it through the imports, blank lines and
    comments of the same block (one comment may explain a group of imports)."""
    end = node.end_lineno or node.lineno
    if any("deferred:" in lines[i - 1].lower() for i in range(node.lineno, end + 1)):
        return True
    line = node.lineno - 1
    while line > function.lineno:
        text = lines[line - 1].strip()
        if "deferred:" in text.lower():
            return True
        if not (text == "" or text.startswith(("#", "from ", "import ", ")")) or text.endswith(",")):
            return False
        line -= 1
    return False


def test_no_import_cycle_counting_deferred_imports() -> None:
    known = modules()
    assert len(known) > 100  # the walk found the product code
    assert cycles(import_edges(known)) == []


def test_the_cycle_finder_sees_a_cycle_closed_by_a_deferred_import() -> None:
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(edges) == [["a", "b", "c"]]


def test_every_function_level_import_says_why_it_is_deferred() -> None:
    missing = []
    for path in modules().values():
        lines = path.read_text(encoding="utf-8").splitlines()
        for function, node in function_imports(path):
            if not has_reason(lines, function, node):
                missing.append(f"{path.relative_to(ROOT)}:{node.lineno}: {lines[node.lineno - 1].strip()}")
    assert missing == [], "a function-level import without a '# deferred: why' comment:\n" + "\n".join(missing)


def test_the_reason_finder_wants_the_comment_in_the_same_block() -> None:
    source = ("def f():\n    # deferred: pandas, only when f runs\n    import pandas\n\n    import json\n"
              "    x = 1\n    import csv\n")
    tree = ast.parse(source)
    function = tree.body[0]
    lines = source.splitlines()
    verdicts = [has_reason(lines, function, node) for node in ast.walk(function) if isinstance(node, IMPORTS)]
    assert verdicts == [True, True, False]


def _loaded_by(argument: str) -> list[str]:
    probe = ("import sys; from benchlab.tui.cli import main\n"
             f"sys.argv = ['benchlab', {argument!r}]\n"
             "try:\n    main()\nexcept SystemExit:\n    pass\n"
             "print(sorted(m for m in ('pandas', 'scipy', 'matplotlib', 'textual', 'aiohttp') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120)
    return ast.literal_eval(out.stdout.strip().splitlines()[-1])


def test_benchlab_version_loads_no_data_stack_textual_or_server() -> None:
    """``benchlab --version`` builds the whole command line: it must not pay for pandas, scipy, matplotlib,
    Textual or aiohttp (each command loads what it needs when it runs)."""
    assert _loaded_by("--version") == []


def test_benchlab_help_loads_no_data_stack_textual_or_server() -> None:
    """``benchlab --help`` warns about broken plug-ins by loading only the plug-ins' entries: with none installed it
    loads none of pandas, scipy, matplotlib, Textual or aiohttp (benchlab's own trial screens stay unloaded)."""
    assert _loaded_by("--help") == []
