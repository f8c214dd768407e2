"""Who may talk to the bridge: bearer token, Host (DNS rebinding), web Origins, the extension's Origin."""

from __future__ import annotations

import hmac

import pytest

from tabpilot.bridge import auth

TOKEN = "s3cret-token-value"
PORT = 47615
EXT = "chrome-extension://mlkkpgdajhikmngjhninkfngfhbknalp"


@pytest.mark.parametrize("header", [f"Bearer {TOKEN}", f"bearer {TOKEN}", f"BEARER {TOKEN}", f"Bearer {TOKEN} "])
def test_bearer_accepts_the_token(header: str) -> None:
    assert auth.bearer_ok({"Authorization": header}, TOKEN)


@pytest.mark.parametrize(
    "headers",
    [
        {},
        {"Authorization": ""},
        {"Authorization": "Bearer"},
        {"Authorization": "Bearer "},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": TOKEN},
        {"Authorization": f"Token {TOKEN}"},
        {"Authorization": "Bearer wrong"},
        {"Authorization": f"Bearer {TOKEN[:-1]}"},
        {"Authorization": f"Bearer {TOKEN}x"},
        {"X-Token": TOKEN},
    ],
)
def test_bearer_refuses_anything_else(headers: dict[str, str]) -> None:
    assert not auth.bearer_ok(headers, TOKEN)


def test_no_configured_token_refuses_everyone() -> None:
    assert not auth.bearer_ok({"Authorization": "Bearer "}, "")
    assert not auth.bearer_ok({"Authorization": "Bearer"}, "")


def test_bearer_compares_in_constant_time(monkeypatch: pytest.MonkeyPatch) -> None:
    compared: list[tuple[bytes, bytes]] = []
    real = hmac.compare_digest

    def spy(a: bytes, b: bytes) -> bool:
        compared.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", spy)
    assert auth.bearer_ok({"Authorization": f"Bearer {TOKEN}"}, TOKEN)
    assert not auth.bearer_ok({"Authorization": "Bearer nope"}, TOKEN)
    assert compared == [(TOKEN.encode(), TOKEN.encode()), (b"nope", TOKEN.encode())]


@pytest.mark.parametrize("host", [f"127.0.0.1:{PORT}", f"localhost:{PORT}", f"[::1]:{PORT}"])
def test_host_on_loopback_and_our_port_is_accepted(host: str) -> None:
    assert auth.host_ok(host, PORT)


@pytest.mark.parametrize(
    "host",
    [
        None,
        "",
        f"evil.com:{PORT}",
        "evil.com",
        f"127.0.0.1:{PORT + 1}",
        f"localhost:{PORT + 1}",
        f"localhost.evil.com:{PORT}",
        f"127.0.0.1.evil.com:{PORT}",
        f"evil.com:{PORT}@127.0.0.1",
        f"127.0.0.2:{PORT}",
        f"0.0.0.0:{PORT}",
        f"192.168.1.5:{PORT}",
    ],
)
def test_host_elsewhere_is_refused(host: str | None) -> None:
    """A page on evil.com re-pointed at 127.0.0.1 still sends Host: evil.com — refused."""
    assert not auth.host_ok(host, PORT)


@pytest.mark.parametrize("origin", ["https://evil.com", "http://127.0.0.1:8000", "null", "file://"])
def test_web_origins_are_recognised(origin: str) -> None:
    assert auth.web_origin(origin)


@pytest.mark.parametrize("origin", [None, "", EXT])
def test_no_origin_or_an_extension_origin_is_not_a_web_origin(origin: str | None) -> None:
    assert not auth.web_origin(origin)


def test_only_the_bundled_extension_may_open_the_socket() -> None:
    assert auth.extension_origin_ok(EXT, EXT)
    for other in (
        None,
        "",
        EXT + "/",
        "chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
        "https://evil.com",
    ):
        assert not auth.extension_origin_ok(other, EXT)
