"""The installed benchlab version, recorded in every response line so results can be traced to the code."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("benchlab")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
