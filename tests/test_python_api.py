"""The notebook API: the example of docs/python-api.md runs as written, and the lazy exports stay lazy."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import benchlab.annotations
import benchlab.data
import benchlab.data.analysis.stats

README = Path(__file__).resolve().parents[1] / "docs" / "python-api.md"


def readme_example() -> str:
    text = README.read_text(encoding="utf-8")
    match = re.search(r"<!-- python-api -->\n```python\n(.*?)\n```", text, re.S)
    assert match, "docs/python-api.md lost its example (marked <!-- python-api -->)"
    return match.group(1)


def test_the_readme_python_example_runs_and_compares_the_pilot_with_the_models(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    namespace: dict[str, object] = {"__name__": "readme_example"}
    exec(compile(readme_example(), str(README), "exec"), namespace)
    shown = capsys.readouterr().out
    assert "GPT4" in shown and "72.2 (8.1)" in shown  # the sample's published score, as `benchlab score` prints it
    # issue 11: an all-correct pilot is not certain (Wilson with Kish's n, not a zero-width bootstrap)
    assert "| PILOT (simulated oracle) | 100.0 [90.4, 100.0] |" in shown
    frame = namespace["frame"]
    who = set(frame.index.get_level_values("who"))  # type: ignore[attr-defined]
    assert {"PILOT", "humans (pooled)", "GPT3.5", "GPT4", "Llama2-chat", "Llama2-FT+1M"} <= who


@pytest.mark.parametrize("module", [benchlab.data, benchlab.annotations, benchlab.data.analysis.stats],
                         ids=lambda m: m.__name__)
def test_every_exported_name_resolves(module: object) -> None:
    names = module.__all__  # type: ignore[attr-defined]
    assert set(names) == set(module._LAZY) | ({"__version__"} if module is benchlab.data else set())  # type: ignore[attr-defined]
    for name in names:
        assert getattr(module, name) is not None, name
    assert set(names) <= set(dir(module))
    with pytest.raises(AttributeError):
        _ = module.no_such_name
    # a name equal to a submodule's would be rebound to the submodule the moment anything imports it
    folder = Path(module.__file__).parent  # type: ignore[attr-defined]
    submodules = {p.stem for p in folder.glob("*.py")} | {p.name for p in folder.iterdir() if p.is_dir()}
    guarded = {"agreement"} if module is benchlab.data.analysis.stats else set()  # see the test below
    assert not set(names) & submodules - guarded


def test_stats_agreement_stays_the_function_after_its_submodule_loads() -> None:
    """``stats.agreement`` is the function, though ``stats/agreement.py`` loads lazily (by another name, or
    imported directly by another module) and the import system binds a submodule on its package."""
    import benchlab.data.analysis.stats.agreement  # the import itself is the point

    agreement = benchlab.data.analysis.stats.agreement
    assert callable(agreement)
    assert agreement([["a", "a"], ["b", "b"]] * 6).percent == 1.0


def test_importing_the_api_loads_no_scientific_stack_and_no_textual() -> None:
    code = ("import sys, benchlab.data, benchlab.annotations; "
            "print(sorted(m for m in ('pandas', 'scipy', 'numpy', 'textual', 'statsmodels') if m in sys.modules))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
