"""The benchmark commands generated from their declarations: every declared option reaches ``--help``, and a wrong
value is reported naming the flag the user typed, in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from benchlab.annotations.fastbook.commands import COMMANDS as FASTBOOK
from benchlab.annotations.options import option_infos
from benchlab.annotations.sort.commands import COMMANDS as SORT
from benchlab.annotations.task import Command
from benchlab.annotations.worldsense.commands import COMMANDS as WORLDSENSE
from benchlab.data.samples import sample_path
from benchlab.tui.cli import main
from benchlab.tui.sort.screen_bench_command import SCREEN_BENCH

ALL = [*WORLDSENSE, *SORT, *FASTBOOK, SCREEN_BENCH]


def run_cli(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as info:
        main([*args])
        raise SystemExit(0)
    out = capsys.readouterr()
    return int(info.value.code or 0), out.out, out.err


def _flat(text: str) -> str:
    """Text without click's wrapping (which may also break after a hyphen)."""
    return " ".join(text.split()).replace("- ", "-")


def _words(cmd: Command) -> list[str]:
    return [cmd.tool.name if cmd.group == "tool" and cmd.tool else cmd.group, str(cmd.name)]


@pytest.mark.parametrize("cmd", ALL, ids=lambda c: " ".join(_words(c)))
def test_help_of_a_generated_command_lists_every_declared_option(cmd: Command,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    code, text, _ = run_cli([*_words(cmd), "--help"], capsys)
    assert code == 0
    flat = _flat(text)
    usage = flat.split(" Options: ")[0]
    for info in option_infos(cmd.options):
        if info.argument:
            assert info.name.upper() in usage, f"argument {info.name} missing from the usage line"
            continue
        for flag in (info.negate or info.flag, info.short, *info.aliases):
            if flag:
                assert f"{flag} " in flat or f"{flag}," in flat, f"{flag} missing from --help"
        assert _flat(info.help) in flat, f"help of {info.flag} missing"
        if info.default not in (None, (), "", False) and info.kind != "bool":
            shown = ", ".join(map(str, info.default)) if info.multiple else str(info.default)
            assert f"default: {shown}" in flat, f"default of {info.flag} missing"
    assert _flat(" ".join(cmd.help.split()[:4])) in flat


def test_every_benchmark_command_of_the_readme_is_generated(capsys: pytest.CaptureFixture[str]) -> None:
    documented = {("score", "worldsense"), ("score", "sort"), ("score", "fastbook"), ("compare", "worldsense"),
                  ("compare", "sort"), ("compare", "fastbook"), ("fetch", "worldsense"), ("bench", "worldsense"),
                  ("bench", "compare"), ("bench", "booksort"), ("bench", "sort-screen"), ("bench", "fastbook"),
                  ("booksort", "make"), ("booksort", "info"), ("booksort", "check"), ("fastbook", "audit"),
                  ("fastbook", "baseline"), ("fastbook", "oracle"), ("fastbook", "chunks"),
                  ("fastbook", "import-run"), ("fastbook", "chapters"), ("fastbook", "assign")}
    assert {tuple(_words(c)) for c in ALL} == documented


@pytest.mark.parametrize(("args", "message"), [
    (["compare", "worldsense", "--boot", "100"], "--boot must be at least 200"),
    (["compare", "sort", "x", "--max-fast-share", "1.5"], "--max-fast-share must be at most 1"),
    (["score", "fastbook", "run.jsonl", "--k", "0"], "--k must be at least 1"),
    (["bench", "worldsense", "--repeat", "21"], "--repeat must be at most 20"),
    (["bench", "sort-screen", "--words", "50"], "--words must be at least 100"),
])
def test_a_wrong_value_is_one_line_naming_the_flag(args: list[str], message: str,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(args, capsys)
    assert code == 2 and out == ""
    assert err == f"benchlab: error: {message}\n"


def test_a_missing_folder_is_named_with_its_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "no-such-checkout"
    code, out, err = run_cli(["bench", "worldsense", "--original", str(missing)], capsys)
    assert code == 2 and out == ""
    assert err.startswith("benchlab: error: --original ") and str(missing) in err and "does not exist" in err
    code, _, err = run_cli(["bench", "worldsense", "-t", str(missing)], capsys)
    assert code == 2 and err.startswith("benchlab: error: --testset ") and "does not exist" in err


def test_shared_options_read_the_same_in_every_comparison(capsys: pytest.CaptureFixture[str]) -> None:
    """--boot/--seed/--only/--format/--plot and the attention criterion are one declaration, so their help and
    defaults cannot drift apart between benchmarks."""
    helps = []
    for name in ("worldsense", "sort"):
        _, text, _ = run_cli(["compare", name, "--help"], capsys)
        helps.append(text[text.index("--min-control-acc"):])
    assert helps[0] == helps[1]


def test_tables_print_exactly_once_with_their_own_newline(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["booksort", "info", str(sample_path("booksort")), "--format", "csv"], capsys)
    assert code == 0 and out.startswith("# BookSORT trials in ") and out.endswith("\n") and not out.endswith("\n\n")
