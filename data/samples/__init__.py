"""Small bundled samples of the real benchmarks (with licences), so benchlab runs offline on a fresh machine."""

from pathlib import Path

SAMPLES_DIR = Path(__file__).resolve().parent


def sample_path(*parts: str) -> Path:
    """Path of a bundled sample file or folder, e.g. ``sample_path("worldsense")``."""
    return SAMPLES_DIR.joinpath(*parts)
