"""What the benchmarks give: schemas, loaders, results formats and scoring.

Nothing here imports Textual, so every loader and scorer works from a notebook or a script.
"""

from benchlab.data.version import __version__

__all__ = ["__version__"]
