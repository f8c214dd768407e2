"""pyflakes over generated code: undefined names, unused imports and syntax errors, as `python -m pyflakes`."""

from __future__ import annotations

import io

from pyflakes.api import check
from pyflakes.reporter import Reporter


def undefined_or_unused(code: str, filename: str) -> str:
    """What pyflakes says about `code`; empty when clean."""
    out, err = io.StringIO(), io.StringIO()
    check(code, filename, Reporter(out, err))
    return out.getvalue() + err.getvalue()
