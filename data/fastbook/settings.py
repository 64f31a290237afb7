"""fastbook-benchmark's own settings (README "Settings"): where the benchmark file is and who curates.

Read with the core rule (:func:`benchlab.data.settings.env`: ``$BENCHLAB_<NAME>``, an empty value counts as
unset), once, until :func:`benchlab.data.settings.reset_settings`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from benchlab.data.settings import env, env_path, get_settings, settings_reader


@dataclass(frozen=True)
class FastbookSettings:
    """Field ``x`` is read from ``$BENCHLAB_<X>`` as named in its comment."""

    #: ``$BENCHLAB_FASTBOOK_BENCHMARK``: the fastbook-benchmark JSON opened by default.
    benchmark: Path | None = field(default_factory=lambda: env_path("fastbook_benchmark"))
    #: ``$BENCHLAB_CURATOR``: name written in the fastbook change log (default: the login name).
    curator: str | None = field(default_factory=lambda: env("curator"))

    @property
    def dataset_dir(self) -> Path:
        """The full fastbook-benchmark folder under the shared datasets."""
        return get_settings().shared_datasets / "fastbook-benchmark"


@settings_reader
def fastbook_settings() -> FastbookSettings:
    """fastbook's settings, read from the environment on first use."""
    return FastbookSettings()
