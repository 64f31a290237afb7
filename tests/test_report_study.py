"""benchlab report on a study run through the real engine: flow right, exclusions logged, checklist filled, one
self-contained HTML file, the same content as Markdown, a LaTeX paragraph; bad input is one line."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchlab.tui.cli import main
from tests.report_helpers import RT_FLOOR, add_model, add_reading, run_person, write_study


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    try:
        main(list(args))
        code = 0
    except SystemExit as exc:
        code = int(exc.code or 0)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = write_study(tmp_path_factory.mktemp("s") / "study", RT_FLOOR.format(ms=1500))
    for who in ("P01", "P02", "P03"):
        run_person(folder, who, "oracle")
    run_person(folder, "P04", "random", median_rt_s=0.5)  # too fast: the declared RT floor excludes P04
    run_person(folder, "P05", "random", stop_after=3)  # abandoned after 3 scored trials
    add_model(folder, "ModelA")
    add_model(folder, "ModelB", wrong_every=2)
    add_reading(folder)
    return folder


def test_report_gives_flow_exclusions_results_and_checklist(study: Path, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli(capsys, "report", str(study), "--out", str(tmp_path / "r"))
    assert code == 0, out
    md = (tmp_path / "r" / "report.md").read_text()
    html = (tmp_path / "r" / "report.html").read_text()
    rows = dict(re.findall(r"^\| ([a-z_ ()]+) \| (\d+) \|$", md, re.M))
    assert rows["started"] == "5" and rows["finished"] == "4" and rows["abandoned (did not finish)"] == "1"
    assert rows["excluded by rt_floor"] == "1" and rows["excluded by incomplete"] == "1" and rows["analysed"] == "3"
    assert "| P04 | rt_floor |" in md and "faster than 1500 ms" in md and "declared" in md
    assert "| P05 | incomplete |" in md and "were in the study file when every session started" in md
    assert "Primary family: pooled humans vs each model on" in md and "p (holm)" in html
    assert "with exclusions" in md and "without exclusions" in md
    # SORT's reading phase per person and pooled, reached through the comparison's extra tables
    assert "SORT: reading time, seen share and delay per person and pooled" in md
    assert re.search(r"^\| all people \| STM \|", md, re.M) and re.search(r"^\| P01 \| STM \|", md, re.M)
    assert re.search(r"\| study file \| .*study.toml \| [0-9a-f]{64} \|", md)
    assert "to be completed by the researcher" in md and "| 1.9 | Ethics review |" in md
    assert "| 5.1.3 | Time to completion reported | Yes: median" in md
    # self-contained: inline SVG, no external assets, print CSS
    assert "<svg" in html and "@media print" in html
    assert not re.search(r"""(src|href)=["'](https?:|//)""", html) and "<link" not in html
    log = (tmp_path / "r" / "exclusions.csv").read_text().splitlines()
    assert log[0] == "participant,rule,figure,threshold,status" and len(log) == 3
    assert re.fullmatch(r"P04,rt_floor,\d+% of 8 responses faster than 1500 ms,at most 20%,declared", log[1])
    assert log[2] == "P05,incomplete,session 1 unfinished (3 of 8 scored trials),every planned scored trial,declared"
    # the study's results folder alone gives the same report (the study's declared rules apply there too)
    code, out = cli(capsys, "report", str(study / "results"), "--out", str(tmp_path / "r2"))
    assert code == 0 and "| P04 | rt_floor |" in (tmp_path / "r2" / "report.md").read_text()
    tex = (tmp_path / "r" / "methods.tex").read_text()
    assert "\\paragraph" in tex and "5 started and 4 finished" in tex


def test_researcher_answers_from_the_study_file_fill_the_checklist(study: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    text = (study / "study.toml").read_text()
    (study / "study.toml").write_text(text + '\n[checklist]\n"1.9" = "Approved by the ethics board (ref 42)"\n')
    try:
        code, out = cli(capsys, "report", str(study), "--out", str(tmp_path / "r"), "--exclude", "rt_ceiling:ms=60000")
        assert code == 0, out
        md = (tmp_path / "r" / "report.md").read_text()
        assert "| 1.9 | Ethics review | Approved by the ethics board (ref 42) | study file [checklist] |" in md
        assert "exploratory (chosen after the data)" in md
    finally:
        (study / "study.toml").write_text(text)


@pytest.mark.parametrize(("change", "message", "line"), [
    ('rule = "incomplete"', "unknown exclusion rule 'incomplet'", None),
    ('rule = "incomplete"', "selects on the scored outcome", None),
])
def test_bad_exclusion_rule_is_one_line_naming_file_and_line(tmp_path: Path, change: str, message: str,
                                                             line: int | None,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    bad = "incomplet" if "unknown" in message else "accuracy"
    folder = write_study(tmp_path / "s", RT_FLOOR.format(ms=200).replace(change, f'rule = "{bad}"'))
    number = next(n for n, text in enumerate((folder / "study.toml").read_text().splitlines(), 1)
                  if f'"{bad}"' in text)
    before = sorted(p.name for p in folder.rglob("*"))
    code, out = cli(capsys, "report", str(folder))
    assert code == 2 and message in out and f"study.toml:{number}:" in out and "Traceback" not in out
    assert sorted(p.name for p in folder.rglob("*")) == before  # nothing written


def test_missing_study_and_mixed_designs_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out = cli(capsys, "report", str(tmp_path / "nowhere"))
    assert code == 2 and "no such folder" in out
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "study.toml").write_text('title = "x"\nbenchmark = "sort"\n[options\n')
    code, out = cli(capsys, "report", str(tmp_path / "d"))
    assert code == 2 and "study.toml:3:" in out and "not valid TOML" in out
    mixed = tmp_path / "m" / "sessions"
    mixed.mkdir(parents=True)
    (tmp_path / "m" / "results").mkdir()
    for i, task in enumerate(("sort", "worldsense")):
        (mixed / f"p{i}.plan.json").write_text(f'{{"task": "{task}", "dataset": ""}}')
    code, out = cli(capsys, "report", str(tmp_path / "m"))
    assert code == 2 and "mixed designs" in out and "p1.plan.json" in out


def _primary_rows(md: str, correction: str) -> list[list[str]]:
    head = md.index(f"p ({correction})")
    rows = []
    for line in md[head:].splitlines()[2:]:
        if not line.startswith("|"):
            break
        rows.append([c.strip() for c in line.strip("|").split("|")])
    return rows


@pytest.mark.parametrize("correction", ["holm", "bonferroni", "none"])
def test_report_uses_the_comparisons_own_family_and_correction(study: Path, tmp_path: Path, correction: str,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """One implementation of the correction: the report prints the primary family and adjusted p values that
    ``compare --correction`` computes (data/analysis/family.py), and names the correction chosen."""
    from benchlab.annotations.exclusions.dataset import load_data
    from benchlab.annotations.report.build import _comparison

    code, out = cli(capsys, "report", str(study), "--out", str(tmp_path / "r"), "--correction", correction)
    assert code == 0, out
    md = (tmp_path / "r" / "report.md").read_text()
    data = load_data([study])
    comp = _comparison(data, data.exclusions(), correction)  # type: ignore[arg-type]
    assert comp is not None and comp.correction == correction
    primary = [t for t in comp.tests if t.family == "primary"]
    assert len(primary) == 2  # pooled people vs ModelA and vs ModelB on the primary condition
    rows = _primary_rows(md, correction)
    assert [(r[1], r[-1]) for r in rows] == [(t.model, f"{t.p_adjusted:.3g}") for t in primary]
    if correction == "none":
        assert [r[-1] for r in rows] == [r[-2] for r in rows] and "no correction" in md
    else:
        assert any(float(r[-1]) > float(r[-2]) for r in rows if r[-2] != "1")
    tex = (tmp_path / "r" / "methods.tex").read_text()
    assert {"holm": "Holm's method", "bonferroni": "Bonferroni's method",
            "none": "not corrected for multiplicity"}[correction] in tex


def test_damaged_plan_or_assignments_is_one_line_and_nothing_is_written(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_study(tmp_path / "s")
    run_person(folder, "P01", "oracle")
    run_person(folder, "P02", "oracle")
    plan = next((folder / "sessions").glob("*P02*.plan.json"))
    good = plan.read_text()
    plan.write_text(good[:40])
    code, out = cli(capsys, "report", str(folder))
    assert code == 2 and plan.name in out and "damaged session plan" in out and "Traceback" not in out
    assert not (folder / "report").exists()
    plan.write_text(good)
    assignments = folder / "assignments.jsonl"
    lines = assignments.read_text().splitlines(keepends=True)
    assignments.write_text("{not json\n" + "".join(lines))
    for args in (("report", str(folder)), ("withdraw", str(folder), "--participant", "P01"),
                 ("release", str(folder), "--out", str(tmp_path / "b"))):
        code, out = cli(capsys, *args)
        assert code == 2 and "assignments.jsonl:1:" in out, (args, out)
    assert not (folder / "report").exists() and not (tmp_path / "b").exists()
    assert len(list((folder / "results").glob("*P01*"))) == 1


def test_the_last_timing_check_on_this_machine_is_in_the_report(study: Path, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    from benchlab.annotations.report.timing import last_timing_path, save_last_timing_check

    save_last_timing_check("RT error: median +1.2 ms (60 scripted presses)")
    try:
        code, out = cli(capsys, "report", str(study), "--out", str(tmp_path / "r"))
        assert code == 0, out
        md = (tmp_path / "r" / "report.md").read_text()
        assert "the last one on this machine" in md and "RT error: median +1.2 ms" in md
    finally:
        last_timing_path().unlink()


def test_rules_added_after_sessions_started_are_said_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = write_study(tmp_path / "s")
    run_person(folder, "P01", "oracle")
    (folder / "study.toml").write_text((folder / "study.toml").read_text() + RT_FLOOR.format(ms=200))
    code, out = cli(capsys, "report", str(folder), "--out", str(tmp_path / "r"))
    assert code == 0, out
    assert "may have been written after data existed" in (tmp_path / "r" / "report.md").read_text()
