"""The workflow runner's pure parts: telling a login wall from an ordinary redirect."""

from __future__ import annotations

import pytest

from tabpilot.engine.workflows.runner import login_redirect


@pytest.mark.parametrize(
    ("requested", "final"),
    [
        ("https://a.test/protected", "https://a.test/login?next=/protected"),
        ("https://a.test/protected", "https://a.test/login"),
        ("https://a.test/reports/q1", "https://a.test/signin?return=%2Freports%2Fq1"),
        ("https://a.test/dash", "https://sso.corp.test/?return=https%3A%2F%2Fa.test%2Fdash"),
        ("https://a.test/dash", "https://login.microsoftonline.com/common/oauth2/authorize?client_id=x"),
        ("https://a.test/dash", "https://accounts.google.com/v3/signin/identifier?continue=x"),
        ("https://a.test/admin", "https://a.test/account/login"),
        ("https://a.test/admin", "https://a.test/auth/realms/x/protocol/openid-connect/auth"),
        ("https://a.test/admin", "https://a.test/saml/redirect"),
        ("https://a.test/admin", "https://a.test/sign-in"),
        ("https://a.test/admin", "https://a.test/session/new"),
        ("https://a.test/orders", "https://a.test/welcome?from=/orders"),
        ("https://a.test/authors", "https://a.test/login?next=/authors"),  # a hint in the request, but a comeback
    ],
)
def test_login_walls(requested: str, final: str) -> None:
    assert login_redirect(requested, final)


@pytest.mark.parametrize(
    ("requested", "final"),
    [
        ("https://a.test/", "https://a.test/home"),
        ("https://a.test/", "https://a.test/"),
        ("https://a.test/list", "https://a.test/list"),
        ("https://a.test/list", "https://a.test/list/"),
        ("https://a.test/list", "https://a.test/list?page=1#top"),
        ("http://a.test/list", "https://a.test/list"),
        ("https://a.test/old", "https://a.test/new"),
        ("https://a.test/dash", "https://a.test/"),
        ("https://a.test/a", "https://a.test/b"),
        ("https://a.test/", "https://www.a.test/"),
        # a workflow that opens the login page on purpose is not stopped by where it lands
        ("https://a.test/login", "https://a.test/login"),
        ("https://a.test/login", "https://a.test/auth/login"),
        ("https://a.test/login", "https://sso.a.test/signin"),
        ("https://a.test/oauth/docs", "https://a.test/oauth/docs/intro"),
        ("https://a.test/authors", "https://a.test/authors/list"),
        # a come-back address must be the requested one, not merely start like it
        ("https://a.test/a", "https://a.test/welcome?next=/abc"),
    ],
)
def test_ordinary_redirects(requested: str, final: str) -> None:
    assert not login_redirect(requested, final)
