"""Every ``BENCHLAB_*`` environment variable and every folder benchlab reads or writes by default, in one object.

Why one object: the variables used to be read wherever they were needed (and two modules guessed the datasets
folder from where the package was installed, which is wrong for an installed copy). Now they are read once, here,
typed and documented in the README's "Settings" table; every reader calls :func:`get_settings`.

User folders come from ``platformdirs`` (XDG on Linux) unless a variable overrides them. The shared datasets
folder is ``$BENCHLAB_SHARED_DATASETS`` or ``../shared/datasets`` seen from the current directory (a lab's
checkout beside its data), never a path derived from the installed package.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from platformdirs import user_cache_dir, user_config_dir, user_data_dir, user_log_dir
from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

APP_NAME = "benchlab"


def _user_dir(kind: str) -> Path:
    finders = {"cache": user_cache_dir, "config": user_config_dir, "data": user_data_dir, "log": user_log_dir}
    return Path(finders[kind](APP_NAME, appauthor=False))


class Settings(BaseSettings):
    """benchlab's settings: field ``x`` is read from ``$BENCHLAB_X`` (see the README's "Settings" table)."""

    model_config = SettingsConfigDict(env_prefix="BENCHLAB_", env_ignore_empty=True, extra="ignore",
                                      frozen=True)

    shared_datasets: Path = Field(default_factory=lambda: Path.cwd().parent / "shared" / "datasets",
                                  description="The full datasets (read-only); default ../shared/datasets.")
    fastbook_benchmark: Path | None = Field(None, description="The fastbook-benchmark JSON opened by default.")
    curator: str | None = Field(None, description="Name written in the fastbook change log (default: login name).")
    worldsense_base_url: str | None = Field(None, description="Where `benchlab fetch worldsense` downloads from.")
    require_full_data: bool = Field(False, description="Tests needing the full datasets fail instead of skipping.")
    cache_dir: Path = Field(default_factory=lambda: _user_dir("cache"), description="Caches (safe to delete).")
    config_dir: Path = Field(default_factory=lambda: _user_dir("config"), description="User configuration.")
    data_dir: Path = Field(default_factory=lambda: _user_dir("data"), description="Downloaded data.")
    crash_dir: Path = Field(default_factory=lambda: _user_dir("log") / "crash", description="Crash reports.")

    @property
    def fastbook_dataset_dir(self) -> Path:
        """The full fastbook-benchmark folder under the shared datasets."""
        return self.shared_datasets / "fastbook-benchmark"

    @property
    def booksort_texts_dir(self) -> Path:
        """The nine Gutenberg books of BookSORT under the shared datasets."""
        return self.shared_datasets / "booksort" / "pg_full_text"


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings, read from the environment on first use."""
    return Settings()


def reset_settings() -> None:
    """Forget the settings read so far (tests that change the environment call this)."""
    get_settings.cache_clear()
