"""The reporting checklist of Wei et al. 2025 ("Recommendations and Reporting Checklist for Rigorous & Transparent
Human Baselines in Model Evaluations", arXiv 2506.13776): its items by number, answered from the files where they
know the answer, else from the study file's ``[checklist]`` table (``"1.9" = "Approved by ..."``), else marked
"to be completed by the researcher". Item titles are the checklist's; the wording of answers is ours."""

from __future__ import annotations

from collections.abc import Mapping

from benchlab.annotations.report.model import TBC, Grid

ITEMS: tuple[tuple[str, str], ...] = (
    ("0.1", "Paper title"), ("0.2", "Paper link"), ("0.3", "Publication year"), ("0.4", "Publication venue"),
    ("0.5", "Type of eval"), ("0.6", "Mode of eval"), ("0.7", "Language of eval"),
    ("0.8", "Evaluation dataset size"), ("0.9", "AI test set size"), ("0.10", "AI samples per item"),
    ("1.1", "Number of baseliners"), ("1.2", "Baseline test set size"), ("1.2.1", "Test set sampling strategy"),
    ("1.3", "Baseline samples per item"), ("1.4", "Items per baseliner"), ("1.5", "Explicit human/AI adjustment"),
    ("1.6", "Iterative design (pilot)"), ("1.7", "Amount of effort"), ("1.8", "Power analysis"),
    ("1.8.1", "Minimum detectable effect size"), ("1.9", "Ethics review"), ("1.10", "Pre-registration"),
    ("2.1", "Population of interest"), ("2.1.1", "Population criteria"), ("2.2", "Baseliner sampling strategy"),
    ("2.3", "Quality control in recruitment"), ("2.3.1", "Recruitment criteria"),
    ("2.3.2", "Recruitment exclusion rate"), ("2.4", "Author baseliners"), ("2.5", "Train/test contamination"),
    ("2.6", "Baseliner training"), ("2.6.1", "Training type"), ("2.6.2", "Training compensation"),
    ("2.7", "Testing compensation"), ("2.7.1", "Compensation amount"), ("2.7.2", "Performance bonus"),
    ("2.7.3", "Compensation structure"),
    ("3.1", "Instrument length (items per sitting)"), ("3.1.1", "Item randomisation"),
    ("3.2", "Quality control in execution"), ("3.2.1", "Execution criteria"), ("3.2.2", "Execution exclusion rate"),
    ("3.3", "UI equivalence"), ("3.3.1", "GUI vs API"), ("3.3.2", "UI equivalence adjustment"),
    ("3.4", "Instruction equivalence"), ("3.4.1", "Instruction equivalence adjustment"),
    ("3.5", "Tool access equivalence"), ("3.5.1", "Tool access enforcement"), ("3.6", "Explanations"),
    ("4.1", "Statistical significance test"), ("4.1.1", "Test used"), ("4.2", "Uncertainty estimate"),
    ("4.2.1", "Estimate type"), ("4.3", "Evaluation metric equivalence"), ("4.4", "Scoring criteria equivalence"),
    ("4.5", "Scoring method equivalence"), ("4.6", "Quality control robustness"),
    ("5.1.1", "Sample demographics"), ("5.1.2", "Baseline instructions reported"),
    ("5.1.3", "Time to completion reported"), ("5.1.4", "AI tool versions"), ("5.1.5", "Completion rate"),
    ("5.2", "Baseline data availability"), ("5.2.1", "Individual-level data"),
    ("5.2.2", "Non-availability justification"), ("5.3", "Materials availability"),
    ("5.4", "Analysis code availability"),
)


def checklist_grid(from_files: Mapping[str, str], from_researcher: Mapping[str, str]) -> tuple[Grid, int]:
    """The checklist table (item, title, answer, source) and how many items are left to the researcher."""
    rows, open_items = [], 0
    for number, title in ITEMS:
        if from_researcher.get(number):
            rows.append([number, title, from_researcher[number], "study file [checklist]"])
        elif from_files.get(number):
            rows.append([number, title, from_files[number], "benchlab files"])
        else:
            rows.append([number, title, TBC, f'add "{number}" = "..." under [checklist]'])
            open_items += 1
    return Grid("Reporting checklist (Wei et al. 2025)", ["item", "topic", "answer", "source"], rows), open_items


def unknown_items(answers: Mapping[str, str]) -> list[str]:
    """Keys of the study file's ``[checklist]`` that are not checklist items (a typo would be silently unused)."""
    known = {n for n, _t in ITEMS}
    return [k for k in answers if k not in known]
