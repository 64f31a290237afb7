"""WorldSense's own settings (README "Settings"): where ``benchlab fetch worldsense`` downloads from.

Read with the core rule (:func:`benchlab.data.settings.env`: ``$BENCHLAB_<NAME>``, an empty value counts as
unset), once, until :func:`benchlab.data.settings.reset_settings`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from benchlab.data.settings import env, settings_reader


@dataclass(frozen=True)
class WorldSenseSettings:
    """Field ``x`` is read from ``$BENCHLAB_<X>`` as named in its comment."""

    #: ``$BENCHLAB_WORLDSENSE_BASE_URL``: where ``benchlab fetch worldsense`` downloads from.
    base_url: str | None = field(default_factory=lambda: env("worldsense_base_url"))


@settings_reader
def worldsense_settings() -> WorldSenseSettings:
    """WorldSense's settings, read from the environment on first use."""
    return WorldSenseSettings()
