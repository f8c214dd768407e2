"""`{{name}}` and `{{secret:NAME}}`: the placeholders a command's values may hold. Workflows fill them in,
redaction keeps values made only of them, code generators turn them into parameters and environment variables."""

from __future__ import annotations

import re

PLACEHOLDER = re.compile(r"\{\{\s*(secret:)?([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}")
