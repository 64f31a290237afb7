"""``benchlab report DIR``: the study report as HTML, Markdown and a LaTeX methods paragraph (docs/report.md)."""

from __future__ import annotations

from pathlib import Path

from benchlab.annotations.cards import help_of
from benchlab.annotations.command_options import CorrectionOptions
from benchlab.annotations.core_cards import CARDS
from benchlab.annotations.options import option
from benchlab.annotations.task import Command
from benchlab.data.errors import BenchlabError


class ReportOptions(CorrectionOptions):
    paths: tuple[Path, ...] = option(label="Study or results folders", argument=True,
                                     help="A study folder (study.toml), or sessions' output / results folders.")
    out: Path | None = option(None, label="Output folder", short="-o", widget="folder",
                              help="Folder for report.html, report.md and methods.tex (default: DIR/report).")
    exclude: tuple[str, ...] = option((), label="Exploratory exclusion rules", flag="--exclude", metavar="RULE",
                                      help="An extra rule chosen after the data, e.g. rt_floor:ms=200 "
                                      "(repeatable; labelled exploratory in the report).")


def write_report(opts: ReportOptions) -> str:
    # deferred: pandas, scipy and every task's session code load only when a report is built
    from benchlab.annotations.exclusions.dataset import load_data
    from benchlab.annotations.exclusions.rules import parse_cli_rule
    from benchlab.annotations.report.build import build_report
    from benchlab.annotations.report.render import to_html, to_markdown
    from benchlab.data.atomic import atomic_write_text

    extra = [parse_cli_rule(t) for t in opts.exclude]
    data = load_data(list(opts.paths))
    base = data.study.folder if data.study is not None else data.outs[0]
    out = opts.out or base / "report"
    inputs = {p.resolve() for p in ([*data.results, base / "sessions"])}
    if out.resolve() in inputs:
        raise BenchlabError("the report would be written into its own input folder; choose another --out", out)
    report = build_report(data, extra, opts.correction)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BenchlabError(f"cannot create the report folder ({exc.strerror or exc})", out) from exc
    written = [(out / "report.html", to_html(report)), (out / "report.md", to_markdown(report)),
               (out / "methods.tex", report.methods_latex)]
    for path, text in written:
        atomic_write_text(path, text)
    log = report.exclusion_log
    if log:
        lines = ["participant,rule,figure,threshold,status"]
        lines += [",".join(_csv(v) for v in (e.participant, e.rule, e.figure, e.threshold,
                                              "declared" if e.declared else "exploratory")) for e in log]
        atomic_write_text(out / "exclusions.csv", "\n".join(lines) + "\n")
        written.append((out / "exclusions.csv", ""))
    return "\n".join(f"wrote {p}" for p, _t in written)


def _csv(value: str) -> str:
    return '"' + value.replace('"', '""') + '"' if any(c in value for c in ',"\n') else value


REPORT = Command("tool", help_of(CARDS, "report"), ReportOptions, write_report, name="report")
