"""Package attributes imported on first use (PEP 562), for the notebook APIs of ``benchlab.data`` and
``benchlab.annotations``: ``import benchlab.data`` stays fast and the CLI does not pay for pandas or scipy."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_attributes(
    namespace: dict[str, Any], table: Mapping[str, tuple[str, str]],
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's ``__getattr__`` and ``__dir__`` for ``table`` (public name -> (module, attribute))."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        try:
            module, attr = table[name]
        except KeyError:
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(import_module(module), attr)
        namespace[name] = value  # the next access is a plain attribute lookup
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__
