"""``benchlab report``: everything a reviewer asks of a human baseline, read from a study's files into one
:class:`~benchlab.annotations.report.model.Report` (rendered by :mod:`.render`).

The statistics are the comparison's own: the task's comparison builder (the one ``compare`` and the Results screen
use) run once with the exclusions and once without (robustness). The human-vs-model tests are the comparison's own
family (:mod:`benchlab.data.analysis.family`): its declared primary contrast corrected by the chosen correction (Holm
by default, ``--correction`` as on ``compare``), every other test exploratory. Benchmark-specific tables (SORT's
reading times, seen share and delays) come from the comparison's ``extra_tables``, so this module names no benchmark.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from benchlab.annotations.exclusions.applied import exclusion_notes, forced_exclusions
from benchlab.annotations.exclusions.dataset import StudyData
from benchlab.annotations.exclusions.evaluate import ExclusionLog
from benchlab.annotations.exclusions.rules import Rule
from benchlab.annotations.registry import registry
from benchlab.annotations.report.checklist import checklist_grid, unknown_items
from benchlab.annotations.report.flow import Flow, flow_svg, participant_flow
from benchlab.annotations.report.model import TBC, Figure, Grid, Report, Section
from benchlab.annotations.report.paradata import integrity_files, paradata, quartiles, sha256_of, versions
from benchlab.annotations.report.timing import last_timing_path
from benchlab.data.errors import BenchlabError

if TYPE_CHECKING:
    from benchlab.data.analysis.compare import Comparison
    from benchlab.data.analysis.family import Correction

TIMING_FILE = "timing-check.txt"


def _comparison(data: StudyData, log: ExclusionLog | None, correction: Correction) -> Comparison | None:
    task = registry().tasks.get(data.benchmark)
    source = task.comparison if task is not None else None
    if source is None or not data.results:
        return None
    # deferred: scipy/numpy load only when a report is built
    from benchlab.data.analysis.stats import AttentionCriterion

    with forced_exclusions(log):
        comp: Comparison = source.build(data.testset, data.results[0], AttentionCriterion())
    return comp.with_correction(correction)


def _table_grid(table: Any) -> Grid:
    frame = table.frame.reset_index()
    return Grid(table.title, [str(c) for c in frame.columns],
                [["" if v is None else str(v) for v in row] for row in frame.itertuples(index=False)])


def _pct(x: float) -> str:
    return "n/a" if x != x else f"{100 * x:.1f}"


def build_report(data: StudyData, extra_rules: Sequence[Rule] = (), correction: Correction = "holm") -> Report:
    log = data.exclusions(extra_rules)
    trials = data.trials()
    simulated = {str(p) for p, s in zip(trials["participant"], trials["simulated"], strict=False)
                 if isinstance(s, str) and s}
    simulated |= {str(r["participant"]) for r in data.assignments() if r.get("simulated")}
    flow = participant_flow(data, log, simulated)
    comp = _comparison(data, log, correction)
    bare = _comparison(data, None, correction) if log.entries else comp
    spec = data.study.spec if data.study is not None else None
    title = spec.title if spec is not None else f"{data.benchmark} sessions"
    answers: dict[str, str] = {}
    sections = [
        _flow_section(flow),
        _design_section(data, trials, answers),
        _timing_section(data, trials),
        _paradata_section(data, simulated, answers),
        _exclusion_section(log, answers, data),
        _results_section(comp, answers),
        _robustness_section(comp, bare, log, answers),
        _precision_section(data, comp, answers),
        _integrity_section(data),
    ]
    _file_answers(data, flow, trials, simulated, answers)
    researcher = spec.checklist if spec is not None else {}
    grid, left = checklist_grid(answers, researcher)
    checklist = Section("Reporting checklist", "checklist", [
        f"{len(grid.rows) - left} of {len(grid.rows)} items answered; {left} {TBC} (write them in the study "
        "file's [checklist] table, then run benchlab report again).", grid])
    unknown = unknown_items(researcher)
    if unknown:
        checklist.add(f"Not checklist items, left unused (check the numbers): {', '.join(unknown)}.")
    sections.append(checklist)
    subtitle = (f"{data.benchmark}; generated {datetime.now(UTC).isoformat(timespec='seconds')} from "
                f"{', '.join(str(o) for o in data.outs)}")
    tables = {name: numeric.frame.reset_index() for name, (_f, numeric) in comp.extra_tables.items()} if comp else {}
    return Report(title, subtitle, sections, _methods_latex(data, flow, log, comp), list(log.entries), tables)


def _flow_section(flow: Flow) -> Section:
    rows = [["invited (serve links)", str(flow.invited)]] if flow.invited else []
    rows += [["joined (assigned or connected)", str(flow.joined)], ["consented", str(flow.consented)],
            ["started", str(flow.started)], ["finished", str(flow.finished)],
            ["declined consent", str(flow.declined)], ["abandoned (did not finish)", str(flow.abandoned)],
            ["live now", str(flow.live)], ["withdrawn (data removed)", str(flow.withdrawn)]]
    rows += [[f"excluded by {rule}", str(n)] for rule, n in flow.excluded_by_rule.items()]
    rows += [[f"online: {label}", str(n)] for label, n in flow.online.items()]
    rows += [["analysed", str(flow.analysed)], ["simulated pilots (never counted)", str(flow.pilots)]]
    return Section("Participant flow", "flow", [
        Figure("Participant flow", flow_svg(flow), "; ".join(f"{a}: {b}" for a, b in rows)),
        Grid("Participant flow (people)", ["step", "people"], rows)])


def _plans(data: StudyData) -> list[dict[str, Any]]:
    out = []
    for path in data.plans:
        try:
            out.append(json.loads(path.read_text(encoding="utf-8")))
        except json.JSONDecodeError as exc:
            raise BenchlabError(f"damaged session plan ({exc.msg})", path, exc.lineno) from None
        except (OSError, ValueError) as exc:
            raise BenchlabError(f"damaged session plan ({exc})", path) from None
    return out


def _design_section(data: StudyData, trials: Any, answers: dict[str, str]) -> Section:
    section = Section("Design", "design")
    plans = _plans(data)
    scored = [sum(len(b) for b in p.get("blocks", [])) for p in plans]
    practice = [len(p.get("practice", [])) for p in plans]
    blocks = [len(p.get("blocks", [])) for p in plans]
    items = trials[trials["practice"] == False]["item"].dropna().nunique()  # noqa: E712
    if data.study is not None:
        spec = data.study.spec
        counts: dict[str, set[str]] = {}
        for r in data.assignments():
            if not r.get("simulated"):
                counts.setdefault(str(r["arm"]), set()).add(str(r["participant"]))
        section.add(Grid("Arms", ["arm", "options", "people"], [
            [a.name, ", ".join(f"{k}={v}" for k, v in a.options.items()) or "shared options only",
             str(len(counts.get(a.name, set())))] for a in spec.arms]))
        shared = ", ".join(f"{k}={v}" for k, v in spec.options.items()) or "defaults"
        section.add(f"Shared options: {shared}. Assignment to arms: {spec.assignment.rule}.")
        consent = spec.options.get("consent_file")
        instructions = spec.options.get("instructions_file")
        section.add(f"Consent text: {consent or 'none shown'}; instructions: "
                    f"{instructions or ('none' if spec.options.get('no_instructions') else 'the task default')}.")
        answers["5.1.2"] = f"Yes: {instructions or 'the task default instructions'} (in the release bundle)"
    if plans:
        section.add(f"Sessions: {len(plans)}; scored trials per session {min(scored)}-{max(scored)}, practice "
                    f"{min(practice)}-{max(practice)}, blocks {min(blocks)}-{max(blocks)}; {items} distinct scored "
                    "items. Each session's order is drawn from its own seed and saved in its plan before the first "
                    "trial (randomised per person, replayed exactly on resume).")
        answers["3.1"] = f"{min(scored)}-{max(scored)} scored items per session (+{max(practice)} practice)"
        answers["3.1.1"] = "Yes: per-session seeded order, saved in each plan"
        answers["1.2"] = f"{items} distinct items answered by people"
        answers["1.4"] = f"{min(scored)}-{max(scored)}"
        answers["2.6"] = "Yes: practice trials with feedback" if max(practice) else "No practice trials"
    return section


def _timing_section(data: StudyData, trials: Any) -> Section:
    section = Section("Timing validation", "timing")
    folder = data.study.folder if data.study is not None else data.outs[0]
    saved = folder / TIMING_FILE
    machine = last_timing_path()
    found = saved if saved.is_file() else machine if machine.is_file() else None
    if found is not None:
        stamp = datetime.fromtimestamp(found.stat().st_mtime, UTC).isoformat(timespec="seconds")
        where = "saved with the study" if found == saved else "the last one on this machine"
        section.add(f"Timing check ({where}, {found}, {stamp}):",
                    "\n".join(found.read_text(encoding="utf-8").splitlines()[:24]))
    else:
        section.add("No timing check on this machine: run `benchlab timing-check` on the lab machine (it keeps its "
                    f"figures for the report; or save them as {saved}) and build the report again.")
    if "client_rt_ms" in trials.columns:
        web = trials["client_rt_ms"].notna().sum()
        section.add(f"Web sessions: {web} trials timed page-side (performance.now() at the key event, onset in a "
                    "requestAnimationFrame after the stimulus is in the page).")
    sources = trials["onset_source"].dropna().astype(str)
    sources = sources[sources != ""]
    if len(sources):
        counts = sources.value_counts()
        section.add("Onset stamps: " + ", ".join(f"{k} {v}" for k, v in counts.items()) + ".")
    return section


def _paradata_section(data: StudyData, simulated: set[str], answers: dict[str, str]) -> Section:
    p = paradata(data, simulated)
    section = Section("Paradata", "paradata")
    if p.completion_min:
        med, q1, q3 = quartiles(p.completion_min)
        text = (f"Time to completion (start to last trial): median {_minutes(med)}, IQR {_minutes(q1)}-"
                f"{_minutes(q3)} ({len(p.completion_min)} finished sessions).")
        answers["5.1.3"] = f"Yes: median {_minutes(med)} (IQR {_minutes(q1)}-{_minutes(q3)})"
    else:
        text = "No finished session by a person: no time to completion."
    section.add(text)
    pauses = f", median {statistics.median(p.break_s):.0f} s" if p.break_s else ""
    section.add(f"Breaks taken: {p.breaks}{pauses}.")
    if p.dropouts:
        section.add(Grid("Where unfinished sessions stopped", ["participant", "session", "where"],
                         [list(d) for d in p.dropouts]))
    else:
        section.add("No session stopped before its end.")
    return section


def _minutes(value: float) -> str:
    return f"{value:.1f} min" if value >= 1 else f"{60 * value:.1f} s"


def _exclusion_section(log: ExclusionLog, answers: dict[str, str], data: StudyData) -> Section:
    section = Section("Exclusions", "exclusions")
    if not log.rules:
        section.add("No exclusion rules were declared in the study file: everyone who started is analysed.")
        answers["3.2"] = "No"
        return section
    by_rule = log.by_rule()
    section.add(Grid("Rules (each names its data, never the scored outcome)", ["rule", "data", "status", "excluded"],
                     [[r.describe(), r.data, r.label, str(len(by_rule.get(r.kind, [])))] for r in log.rules]))
    section.add(Grid("Exclusion log (per person)", ["participant", "rule", "figure", "threshold", "status"],
                     [[e.participant, e.rule, e.figure, e.threshold, "declared" if e.declared else "exploratory"]
                      for e in log.entries]) if log.entries else "Nobody met an exclusion rule.")
    if log.exploratory:
        section.add("Rules given on the command line were chosen after the data: they are exploratory.")
    changed = data.study.changed_since_start() if data.study is not None else None
    if changed is not None:
        section.add("The study file changed after sessions started (its SHA-256 differs from the one recorded at "
                    "their start), so its rules may have been written after data existed: compare the versions "
                    "before calling them declared in advance.")
    elif data.study is not None and any(r.declared for r in log.rules):
        section.add("The declared rules were in the study file when every session started (the study file's "
                    "SHA-256 recorded at each start matches the file read now).")
    answers["3.2"] = "Yes"
    answers["3.2.1"] = "; ".join(r.describe() for r in log.rules)
    answers["3.2.2"] = f"{len({e.participant for e in log.entries})} of {len(log.participants)} people"
    return section


_CORRECTION_NAMES = {"holm": "Holm", "bonferroni": "Bonferroni", "none": "uncorrected"}


def _results_section(comp: Comparison | None, answers: dict[str, str]) -> Section:
    # deferred: the comparison module loads pandas
    from benchlab.data.analysis.compare import POOLED
    from benchlab.data.analysis.family import PRIMARY, describe

    section = Section("Results", "results")
    if comp is None:
        section.add("No comparison: this task declares no comparison, or no results were recorded.")
        return section
    section.add(_table_grid(comp.accuracy_table()))
    tests = [t for t in comp.tests if t.family == PRIMARY]
    extra = [t for t in comp.tests if t.who == POOLED and t.family != PRIMARY]
    columns = ["condition", "model", "humans %", "model %", "difference [95% CI]", "test", "p"]
    name = _CORRECTION_NAMES[comp.correction]
    if tests:
        section.add(Grid(f"Primary family: pooled humans vs each model on {', '.join(comp.primary)} ({name})",
                         [*columns, f"p ({comp.correction})"],
                         [[*_test_cells(t), _p(t.p_adjusted)] for t in tests]))
        section.add(f"Multiplicity: {describe(comp.correction, len(tests))}")
        answers["4.1"] = "Yes"
        answers["4.1.1"] = f"{tests[0].result.method}; {name} across {len(tests)} tests"
    else:
        section.add(comp.no_tests_reason() or "No human-vs-model tests (no model results).")
        answers["4.1"] = "No (no model results beside the people's)"
    if extra:
        section.add(Grid("Exploratory: pooled humans vs each model in other conditions and bins (uncorrected)",
                         columns, [_test_cells(t) for t in extra]))
    for formatted, _numeric in comp.extra_tables.values():  # the benchmark's own tables (SORT: reading, delays)
        section.add(_table_grid(formatted))
    section.add("Notes: " + " ".join(comp.notes))
    answers["4.2"] = "Yes: 95% intervals on every figure"
    answers["4.2.1"] = "Interval estimate"
    if comp.models:
        answers["4.3"] = answers["4.4"] = answers["4.5"] = "Yes: one scoring code for people and models"
        answers["0.10"] = "1 answer per item and model (one results file per model)"
    return section


def _p(p: float) -> str:
    return "n/a" if p != p else f"{p:.3g}"


def _test_cells(t: Any) -> list[str]:
    r = t.result
    interval = "n/a" if r.ci_low != r.ci_low else f"{100 * r.ci_low:+.1f}, {100 * r.ci_high:+.1f}"
    return [t.condition, t.model, _pct(t.humans), _pct(t.model_same_units),
            f"{100 * r.estimate:+.1f} [{interval}]", r.method, _p(r.p_value)]


def _overall(comp: Comparison | None) -> tuple[str, float, float, float, int] | None:
    """(condition, value, low, high, people) of the pooled humans' first condition (the overall where there is one)."""
    if comp is None:
        return None
    from benchlab.data.analysis.compare import POOLED  # deferred: the comparison module loads pandas

    for c in comp.conditions:
        cell = comp.cell(POOLED, c)
        if cell is not None:
            return c, cell.value, cell.ci_low, cell.ci_high, cell.n_participants
    return None


def _robustness_section(comp: Comparison | None, bare: Comparison | None, log: ExclusionLog,
                        answers: dict[str, str]) -> Section:
    section = Section("Robustness: with and without exclusions", "robustness")
    rows = []
    for label, c in (("with exclusions", comp), ("without exclusions", bare)):
        o = _overall(c)
        if o is not None:
            rows.append([label, o[0], f"{_pct(o[1])} [{_pct(o[2])}, {_pct(o[3])}]", str(o[4])])
    section.add(Grid("Pooled humans, first condition", ["analysis", "condition", "accuracy % [95% CI]", "people"],
                     rows) if rows else "No pooled humans to compare.")
    if log.entries:
        answers["4.6"] = "Reported: the report shows the pooled result with and without the exclusions"
    section.add(" ".join(exclusion_notes(log)) or "No exclusions: both analyses are the same.")
    return section


def _precision_section(data: StudyData, comp: Comparison | None, answers: dict[str, str]) -> Section:
    section = Section("Achieved precision vs the plan", "precision")
    plan = data.study.spec.plan if data.study is not None else {}
    o = _overall(comp)
    achieved = (o[3] - o[2]) * 100 if o is not None and o[2] == o[2] else None
    if achieved is not None and o is not None:
        section.add(f"Achieved: pooled 95% CI width {achieved:.1f} points with {o[4]} people ({o[0]}).")
    else:
        section.add("Achieved: no pooled interval (fewer than two people or no variation).")
    if plan:
        wanted = plan.get("ci_width")
        section.add(f"Planned ([plan] in the study file, from `benchlab power`): {plan.get('participants', '?')} "
                    f"people, CI width {wanted if wanted is not None else '?'} points, power "
                    f"{plan.get('power', '?')} against {plan.get('model_score', '?')}; command: "
                    f"`{plan.get('command', 'not recorded')}`.")
        answers["1.8"] = "Yes"
        answers["1.8.1"] = f"power {plan.get('power', '?')} against a model at {plan.get('model_score', '?')}"
    else:
        section.add("No plan recorded: run `benchlab power NAME ...` before the study and write its figures under "
                    "[plan] in the study file (participants, ci_width, power, model_score, command).")
    return section


def _integrity_section(data: StudyData) -> Section:
    files = integrity_files(data)
    rows = [[kind, str(p), sha256_of(p)] for kind, p in files]
    return Section("Integrity", "integrity", [
        Grid("SHA-256 of every input", ["kind", "file", "sha256"], rows),
        Grid("Software", ["package", "version"], [list(v) for v in versions()])])


def _file_answers(data: StudyData, flow: Flow, trials: Any, simulated: set[str], answers: dict[str, str]) -> None:
    people = trials[~trials["participant"].astype(str).isin(simulated)]
    scored = people[people["practice"] == False]  # noqa: E712
    answers["1.1"] = f"{flow.started} started, {flow.finished} finished, {flow.analysed} analysed"
    if len(scored):
        per_item = scored.groupby("item")["participant"].nunique()
        median = per_item.median()
        answers["1.3"] = f"median {median:g} {'person' if median == 1 else 'people'} per item"
    answers["1.6"] = f"Yes: {flow.pilots} simulated pilot participant(s)" if flow.pilots else ""
    answers["5.1.5"] = (f"Yes: {flow.started - flow.finished} of {flow.started} did not finish; "
                        f"{flow.withdrawn} withdrew")
    answers["3.6"] = "No"
    answers["0.6"] = "Text"
    answers["0.7"] = ""
    answers["5.4"] = "Yes: benchlab (open source); the release bundle lists the commands that rebuild every table"


def _methods_latex(data: StudyData, flow: Flow, log: ExclusionLog, comp: Comparison | None) -> str:
    o = _overall(comp)
    interval = (f"95\\% CI {_pct(o[2])}--{_pct(o[3])}; crossed people $\\times$ items interval"
                if o is not None and o[2] == o[2] else "no interval: too few people or no variation")
    result = (f"Pooled human accuracy was {_pct(o[1])}\\% ({interval}, {o[4]} people). " if o is not None else "")
    rules = "; ".join(r.describe().replace("_", "\\_") for r in log.rules) or "none"
    label = "declared before the analysis" if not log.exploratory else "partly chosen after the data (exploratory)"
    return (f"\\paragraph{{Participants and procedure.}} {flow.joined} people joined the "
            f"{data.benchmark.replace('_', '-')} study; {flow.started} started and {flow.finished} finished "
            f"({flow.abandoned} did not finish, {flow.withdrawn} withdrew). Exclusion rules ({label}): {rules}; "
            f"{flow.excluded} people were excluded and {flow.analysed} analysed. Each session's item order was "
            f"drawn from its own seed and saved before the first trial. {result}"
            f"{_family_sentence(comp)}Data were collected and analysed with benchlab.\n")


def _family_sentence(comp: Comparison | None) -> str:
    if comp is None or not comp.family_size:
        return ""
    how = {"holm": "corrected with Holm's method", "bonferroni": "corrected with Bonferroni's method",
           "none": "not corrected for multiplicity"}[comp.correction]
    return f"The primary human-versus-model tests ({comp.family_size}) were {how}; other tests are exploratory. "
