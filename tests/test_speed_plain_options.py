"""A command's options checked without pydantic when the command line's typed values need nothing of it
(annotations/plain_options.py), a participant's file read without it (data/worldsense/results.py:result_answers),
and a routed ``compare worldsense`` that loads no pydantic at all: the same options, the same errors, the same
output."""

from __future__ import annotations

import copy
import json
import os
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from benchlab.annotations.options import OptionError, Options, option, parse_options
from benchlab.annotations.plain_options import PlainOptions
from benchlab.annotations.worldsense.commands import CompareOptions
from benchlab.data.errors import BenchlabError
from benchlab.data.worldsense.results import read_results, result_answers
from benchlab.tui.commands.declared import model_from_click, reworded
from tests.compare_fixtures import make_testset, write_results, write_two_people, wrong
from tests.test_option_models import _Base, _declared_models


def _plain(options: object) -> bool:
    return isinstance(options, PlainOptions)


def _typed_defaults(model: type) -> dict[str, Any]:
    """Every field with a default, given as the command line would give it (click has typed it already)."""
    return {name: field.get_default() for name, field in model.model_fields.items() if not field.is_required()}


def test_every_declared_command_gets_the_same_options_with_or_without_pydantic() -> None:
    checked = 0
    for model in _declared_models():
        values = _typed_defaults(model)
        if any(f.is_required() for f in model.model_fields.values()):
            continue  # a required argument: covered below with a real value
        made = parse_options(model, values, typed=True)
        reference = parse_options(model, values)
        assert made == reference and reference == made, model
        assert made.model_dump() == reference.model_dump(), model
        assert isinstance(made, model)
        checked += _plain(made)
    assert checked > 10  # most commands' options need nothing of pydantic


def test_plain_options_behave_as_the_model_instance(tmp_path: Path) -> None:
    values = {"results": (tmp_path,), "testset": tmp_path / "t", "n_boot": 200, "fmt": "csv", "fast_ms": 150.0}
    made = model_from_click(CompareOptions, values)
    reference = CompareOptions.model_validate(values)
    assert _plain(made) and not _plain(reference)
    assert (made.n_boot, made.fmt, made.results, made.testset) == (200, "csv", (tmp_path,), tmp_path / "t")
    assert made.criterion() == reference.criterion() and made.tables_needed() == reference.tables_needed()
    assert made.model_fields_set == reference.model_fields_set == set(values)
    assert made.model_copy(update={"n_boot": 5}).n_boot == 5
    assert repr(made) == repr(reference)
    for again in (pickle.loads(pickle.dumps(made)), copy.deepcopy(made), copy.copy(made)):
        assert again == made and hash(again) == hash(made)
    with pytest.raises(TypeError, match="frozen"):
        made.n_boot = 3  # type: ignore[misc]


@pytest.mark.parametrize(("values", "flag"), [({"n_boot": 5}, "--boot"), ({"fmt": "html"}, "--format"),
                                              ({"max_fast_share": float("nan")}, "--max-fast-share")],
                         ids=["below its bound", "not a choice", "nan"])
def test_a_wrong_value_gets_pydantic_s_error_naming_its_flag(values: dict[str, Any], flag: str) -> None:
    with pytest.raises(BenchlabError) as typed:
        model_from_click(CompareOptions, values)
    with pytest.raises(OptionError) as checked:
        parse_options(CompareOptions, values)  # pydantic's check, as before the plain one
    assert str(typed.value) == str(reworded(checked.value, CompareOptions)) and flag in str(typed.value)


class _Loose(Options):
    count: int = option(3, label="Count", ge=1, help="How many.")
    names: tuple[str, ...] = option((), label="Names", help="Who.")


def test_validators_unknown_names_and_values_to_convert_go_to_pydantic() -> None:
    with pytest.raises(OptionError, match="must not be 13"):
        parse_options(_Base, {"count": 13}, typed=True)  # a declared validator always runs
    assert not _plain(parse_options(_Base, {"count": 2}, typed=True))
    converted = parse_options(_Loose, {"count": "4", "names": ["x"]}, typed=True)  # text and a list: converted
    assert not _plain(converted) and (converted.count, converted.names) == (4, ("x",))
    with pytest.raises(OptionError):
        parse_options(_Loose, {"count": 2, "other": 1}, typed=True)
    plain = parse_options(_Loose, {"count": 2, "names": ("x", "y")}, typed=True)
    assert _plain(plain) and plain == _Loose(count=2, names=("x", "y"))


def test_a_participant_s_file_reads_as_the_validating_reader_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "basic___human-p1___results.jsonl"
    lines = [{"Key": 2**62, "resp": "1", "rt_ms": 812.5, "simulated": ""}, {"Key": -(2**63), "resp": ""},
             {"resp": "TRUE", "Key": 7, "session": "s1"}]
    path.write_text("".join(json.dumps(x) + "\n" for x in lines) + '{"Key": 9, "re')  # a torn last line
    fast = list(result_answers(path, allow_torn_tail=True))
    slow = [(r.Key, r.resp, r.extras) for r in read_results(path, allow_torn_tail=True)]
    assert fast == slow and len(fast) == 3


@pytest.mark.parametrize("bad", ['{"Key": "5", "resp": "1"}', '{"Key": 5.0, "resp": "1"}',
                                 '{"Key": true, "resp": "1"}', f'{{"Key": {2**63}, "resp": "1"}}',
                                 '{"Key": 5, "resp": 1}', '{"resp": "1"}'],
                         ids=["key text", "key float", "key bool", "key too big", "resp number", "no key"])
def test_a_wrong_line_is_the_validating_reader_s_error(tmp_path: Path, bad: str) -> None:
    path = tmp_path / "basic___human-p1___results.jsonl"
    path.write_text('{"Key": 1, "resp": "1"}\n' + bad + "\n")
    with pytest.raises(BenchlabError) as fast:
        list(result_answers(path))
    with pytest.raises(BenchlabError) as slow:
        read_results(path)
    assert str(fast.value) == str(slow.value) and ":2" in str(fast.value)


PROBE = [sys.executable, "-c", "import sys; from benchlab.tui.entry import main\ntry:\n    main()\nfinally:\n    "
         "print('PYDANTIC', 'pydantic' in sys.modules, 'benchlab.tui.cli' in sys.modules, file=sys.stderr)"]


def test_a_routed_worldsense_comparison_loads_no_pydantic(tmp_path: Path) -> None:
    testset = make_testset(tmp_path / "ts")
    write_results(testset / "results" / "basic___model-a___results.jsonl", lambda p, s, t, i, g: g if i else wrong(g))
    people = write_two_people(tmp_path / "lab")
    env = {**os.environ, "BENCHLAB_CACHE_DIR": str(tmp_path / "cache"), "COLUMNS": "100"}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*PROBE, *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)

    args = ["compare", "worldsense", "-t", str(testset), "--results", str(people), "--boot", "200"]
    first = run(*args, "--format", "csv")  # the whole CLI: records the listing that routes the next ones
    assert first.returncode == 0 and "PYDANTIC True True" in first.stderr
    routed = run(*args)
    assert routed.returncode == 0 and "PYDANTIC False False" in routed.stderr, routed.stderr
    live = subprocess.run([sys.executable, "-m", "benchlab.tui.cli", *args], capture_output=True, text=True,
                          env={**env, "BENCHLAB_CACHE_DIR": str(tmp_path / "other")}, cwd=tmp_path, timeout=120)
    assert routed.stdout == live.stdout and "pooled" in routed.stdout.lower()
    refused = run(*args, "--boot", "-4")  # a wrong value still gets pydantic's error, naming the flag
    assert refused.returncode == 2 and "--boot must be" in refused.stderr and "Traceback" not in refused.stderr
