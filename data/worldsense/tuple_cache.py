"""A large results file's tuple scores kept per content, so that a comparison does not score the published models
again each time a person joins.

Why: a computed comparison (``benchlab compare worldsense`` after a new person's file appeared) scored all four
model runs of the test set again (~87k answers each reduced to tuple scores, tens of milliseconds), though neither
the models' files nor the test set had changed; only the people's tuples had. The scores of one file against one
test set are a pure function of the two files' bytes and of benchlab's scoring code, so they are kept in the
read-once cache (:func:`benchlab.data.file_cache.computed_once`) under:

* the test set's content (the SHA-256 of its trials file) and the file's path as it names it in warnings: one
  entry per model file and test set, replaced when the file changes;
* the file's content (SHA-256), its prompting and model names and the test set's name, with benchlab's sources
  (any edit of the scoring code): the entry is used only while all of these are the same.

Its warnings (incomplete tuples, answers that are not options) are kept with it and given again in order. Only
columns that carry the digest of what they were read from are kept (the large files
:func:`~benchlab.data.worldsense.result_columns.read_result_columns` caches by content, and a test set read by
:func:`~benchlab.data.worldsense.columns.read_trial_columns`); a person's small file, results given as records or
anything read with ``--no-cache`` is scored every time.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from benchlab.data.file_cache import computed_once
from benchlab.data.worldsense.columns import ResultColumns, TrialColumns

T = TypeVar("T")

#: Bump when what is stored changes shape.
CACHE_VERSION = "1"


def kept_file_scores(table: TrialColumns, f: ResultColumns, score: Callable[[Callable[[str], None]], T],
                     warn: Callable[[str], None]) -> T:
    """``score(warn)`` (the tuple scores of ``f`` against ``table``), from the cache while both files' contents,
    the names the warnings give and benchlab's sources are unchanged; the warnings are given either way, in
    order."""
    if table.content_sha256 is None or f.content_sha256 is None:
        return score(warn)
    return computed_once(f"worldsense-tuple-scores v{CACHE_VERSION}", f"{table.content_sha256}\0{f.label}",
                         f"{f.content_sha256}\0{f.prompting}\0{f.modelname}\0{table.name}", score, warn)
