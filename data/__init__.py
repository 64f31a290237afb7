"""What the benchmarks give: schemas, loaders, results formats and scoring.

Nothing here imports Textual, so every loader and scorer works from a notebook or a script::

    import benchlab.data as bd
    tables = bd.score_worldsense(bd.sample_path("worldsense"), bd.sample_path("worldsense", "results"))

The names below are imported on first use (PEP 562), so ``import benchlab.data`` stays fast (no pandas, no
scipy) and ``benchlab --help`` does not pay for the scorers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from benchlab.data.lazy_api import lazy_attributes

#: public name -> (module, attribute): the notebook API of the data layer.
_LAZY: dict[str, tuple[str, str]] = {
    # shared (the version too: reading it loads importlib.metadata, ~30 ms, which scoring does without)
    "__version__": ("benchlab.data.version", "__version__"),
    "BenchlabError": ("benchlab.data.errors", "BenchlabError"),
    "Table": ("benchlab.data.tables", "Table"),
    "render": ("benchlab.data.tables", "render"),
    "sample_path": ("benchlab.data.samples", "sample_path"),
    "AttentionCriterion": ("benchlab.data.analysis.stats.response_times", "AttentionCriterion"),
    "Comparison": ("benchlab.data.analysis.compare", "Comparison"),
    "wilson_ci": ("benchlab.data.analysis.stats.proportions", "wilson_ci"),
    "save_comparison_plot": ("benchlab.data.analysis.plots", "save_comparison_plot"),
    # WorldSense
    "load_trials": ("benchlab.data.worldsense.loader", "load_trials"),
    "load_testset": ("benchlab.data.worldsense.loader", "load_testset"),
    "read_worldsense_results": ("benchlab.data.worldsense.results", "read_results"),
    "score_worldsense": ("benchlab.data.worldsense.scoring", "score_worldsense"),
    "compare_worldsense": ("benchlab.data.worldsense.compare", "compare_worldsense"),
    # SORT / BookSORT
    "load_records": ("benchlab.data.sort.loaders", "load_records"),
    "load_sort_frame": ("benchlab.data.sort.loaders", "load_frame"),
    "read_sort_results": ("benchlab.data.sort.results", "read_many"),
    "score_sort": ("benchlab.data.sort.scoring", "score_paths"),
    "compare_sort": ("benchlab.data.sort.compare", "compare_sort"),
    # fastbook-benchmark
    "load_fastbook_benchmark": ("benchlab.data.fastbook.benchmark", "load_benchmark"),
    "score_fastbook_run": ("benchlab.data.fastbook.scoring", "score_run"),
    # choice tasks (plug-ins made with benchlab.annotations.make_choice_task)
    "load_choice_items": ("benchlab.data.choice.items", "load_choice_items"),
    "read_choice_results": ("benchlab.data.choice.results", "read_choice_results"),
    "score_choice": ("benchlab.data.choice.results", "score_choice"),
    "compare_choice": ("benchlab.data.choice.compare", "compare_choice"),
}

__all__ = [  # a literal list, so linters and IDEs read it; a test checks it matches _LAZY
    "AttentionCriterion",
    "BenchlabError",
    "Comparison",
    "Table",
    "__version__",
    "compare_choice",
    "compare_sort",
    "compare_worldsense",
    "load_choice_items",
    "load_fastbook_benchmark",
    "load_records",
    "load_sort_frame",
    "load_testset",
    "load_trials",
    "read_choice_results",
    "read_sort_results",
    "read_worldsense_results",
    "render",
    "sample_path",
    "save_comparison_plot",
    "score_choice",
    "score_fastbook_run",
    "score_sort",
    "score_worldsense",
    "wilson_ci",
]


__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)


if TYPE_CHECKING:  # what type checkers and IDEs see; at run time the names load on first use
    from benchlab.data.analysis.compare import Comparison
    from benchlab.data.analysis.plots import save_comparison_plot
    from benchlab.data.analysis.stats.proportions import wilson_ci
    from benchlab.data.analysis.stats.response_times import AttentionCriterion
    from benchlab.data.choice.compare import compare_choice
    from benchlab.data.choice.items import load_choice_items
    from benchlab.data.choice.results import read_choice_results, score_choice
    from benchlab.data.errors import BenchlabError
    from benchlab.data.fastbook.benchmark import load_benchmark as load_fastbook_benchmark
    from benchlab.data.fastbook.scoring import score_run as score_fastbook_run
    from benchlab.data.samples import sample_path
    from benchlab.data.sort.compare import compare_sort
    from benchlab.data.sort.loaders import load_frame as load_sort_frame
    from benchlab.data.sort.loaders import load_records
    from benchlab.data.sort.results import read_many as read_sort_results
    from benchlab.data.sort.scoring import score_paths as score_sort
    from benchlab.data.tables import Table, render
    from benchlab.data.version import __version__
    from benchlab.data.worldsense.compare import compare_worldsense
    from benchlab.data.worldsense.loader import load_testset, load_trials
    from benchlab.data.worldsense.results import read_results as read_worldsense_results
    from benchlab.data.worldsense.scoring import score_worldsense
