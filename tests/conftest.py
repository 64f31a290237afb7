"""Shared fixtures: where the full datasets are, and the rule for tests that need them.

Tests that need ``../shared/datasets`` skip with the reason shown when it is absent (a user's fresh clone);
CI sets ``BENCHLAB_REQUIRE_FULL_DATA=1`` so that such a test fails instead of skipping.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from benchlab.data.settings import get_settings, reset_settings

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATASETS = get_settings().shared_datasets


def full_data(*parts: str) -> Path:
    """Path under ``../shared/datasets``; skips (or fails in CI) when it is not there."""
    path = SHARED_DATASETS.joinpath(*parts)
    if not path.exists():
        reason = f"full dataset not found at {path} (put ../shared/datasets beside the repo to run this test)"
        if get_settings().require_full_data:
            pytest.fail(reason)
        pytest.skip(reason)
    return path


@pytest.fixture
def shared_datasets() -> Path:
    return full_data()


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path_factory: pytest.TempPathFactory,
                        monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Keep user config, logs and caches of the developer's machine out of the tests."""
    home = tmp_path_factory.mktemp("xdg")
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME"):
        monkeypatch.setenv(var, str(home / var.lower()))
    reset_settings()  # the settings are read once: read them again from this test's environment
    yield
    reset_settings()


@pytest.fixture(autouse=True)
def _no_plugin_outlives_its_test() -> Iterator[None]:
    """A test that put a plug-in on ``sys.path`` (the example, a broken one) leaves the groups it loaded cached for
    the rest of the process; forget them, so a later test sees only what is installed (benchlab's built-ins)."""
    yield
    from benchlab.annotations.plugins import reports
    from tests.plugin_helpers import forget_loaded_plugins

    if any(report.broken or any(not entry.builtin for entry, _ in report.loaded) for report in reports()):
        forget_loaded_plugins()
