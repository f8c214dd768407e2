"""A process with no OS keyring in reach, as on a server: keyring's own `fail` backend."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.headless import no_os_keyring


@pytest.fixture
def no_keyring() -> Iterator[None]:
    with no_os_keyring():
        yield
