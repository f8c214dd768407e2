"""State a command module keeps per engine, beside it rather than in it (so the module stays its own)."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def per_engine(make: Callable[[Any], T]) -> Callable[[Any], T]:
    """`get(engine)`: that engine's `make(engine)`, made on first use and dropped with the engine."""
    found: weakref.WeakKeyDictionary[Any, T] = weakref.WeakKeyDictionary()

    def get(engine: Any) -> T:
        value = found.get(engine)
        if value is None:
            value = found[engine] = make(engine)
        return value

    return get
