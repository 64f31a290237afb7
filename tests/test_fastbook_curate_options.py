"""``benchlab curate fastbook`` and the launcher's Curate form come from one options model (``CurateOptions``):
the same fields, defaults and help in both. They used to be declared twice and their help texts had drifted."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from textual.app import App
from textual.widgets import Input, Static

from benchlab.annotations.fastbook.curate_options import CurateOptions
from benchlab.annotations.options import option_infos
from benchlab.tui.cli import main
from benchlab.tui.fastbook.curate_command import CURATE_COMMAND
from benchlab.tui.fastbook.curate_open import CurateOpenScreen
from benchlab.tui.widgets.option_form import OptionForm

CLI_ONLY = ("k", "review", "out")  # the cut-off and a review of two copies: the form opens one file for editing


def cli_options() -> dict[str, click.Option]:
    return {p.name: p for p in CURATE_COMMAND.params if isinstance(p, click.Option) and p.name}


def test_every_flag_of_curate_fastbook_is_declared_in_the_options_model() -> None:
    declared = {i.name: i for i in option_infos(CurateOptions)}
    options = cli_options()
    assert list(options) == list(declared)  # no flag declared beside the model, none of the model left out
    for name, param in options.items():
        info = declared[name]
        assert param.help == info.help and param.opts[0] == info.flag
        assert param.default == (None if info.multiple and info.default == () else info.default)
    assert isinstance(options["benchmark"].type, click.Path) and not options["benchmark"].type.dir_okay
    assert isinstance(options["chapters"].type, click.Path) and not options["chapters"].type.file_okay
    assert options["review"].nargs == 2 and options["runs"].multiple


class _FormApp(App[None]):
    def on_mount(self) -> None:
        self.push_screen(CurateOpenScreen())


async def test_the_launchers_curate_form_shows_the_commands_options_with_their_help(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("BENCHLAB_DATA_DIR", str(tmp_path / "user-data"))  # no remembered values
    options = cli_options()
    app = _FormApp()
    async with app.run_test(size=(120, 48)) as pilot:
        await pilot.pause()
        form = app.screen.query_one(OptionForm)
        fields = [str(w.id).removeprefix("field-") for w in form.query(".form-field")]
        assert fields == [name for name in options if name not in CLI_ONLY]
        for name in fields:
            widget = form.query_one(f"#f-{name}", Input)
            assert widget.value == "" and options[name].default in (None, ())  # empty box = no flag
            shown = str(form.query_one(f"#field-{name} .field-help", Static).render())
            assert shown.startswith(str(options[name].help))  # the form may add "(comma separated)"


@pytest.mark.parametrize(("args", "message"), [
    (["--k", "0"], "benchlab: error: --k must be at least 1"),
    (["--out", "merged.json"], "--out names the merged file of a --review"),
    (["--benchmark", "."], "is a directory"),
    (["--review", "a.json"], "'--review' requires 2 arguments"),
])
def test_wrong_curate_options_end_with_one_line_and_exit_2(args: list[str], message: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["curate", "fastbook", *args])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
