"""`tabpilot secret set NAME` on a terminal: the value is asked for twice, hidden, and never echoed."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from tabpilot.cli import entry as cli
from tabpilot.paths import Paths
from tabpilot.vault.secrets import FileSecrets


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_keyring: None) -> Path:
    monkeypatch.setenv("TABPILOT_HOME", str(tmp_path / "home"))
    monkeypatch.setattr("sys.stdin", Terminal())
    return tmp_path / "home"


def answers(monkeypatch: pytest.MonkeyPatch, *values: str) -> list[str]:
    prompts: list[str] = []
    queue = list(values)

    def getpass(prompt: str = "") -> str:
        prompts.append(prompt)
        return queue.pop(0)

    monkeypatch.setattr("getpass.getpass", getpass)
    return prompts


def test_the_value_is_asked_twice_hidden_and_saved(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    prompts = answers(monkeypatch, "pa55-word", "pa55-word")
    assert cli.main(["secret", "set", "login_pw"]) == 0
    assert prompts == ["Value of secret login_pw (hidden): ", "Again, to confirm: "]
    assert FileSecrets(Paths.resolve(home).vault_dir / "secrets.json").get("login_pw") == "pa55-word"
    out = capsys.readouterr()
    assert "pa55-word" not in out.out + out.err
    assert "{{secret:login_pw}}" in out.out


def test_two_different_values_save_nothing(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    answers(monkeypatch, "one", "two")
    assert cli.main(["secret", "set", "login_pw"]) == 2
    assert "differ" in capsys.readouterr().err
    assert not (Paths.resolve(home).vault_dir / "secrets.json").exists()


def test_a_bad_name_is_refused_before_asking(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    prompts = answers(monkeypatch)
    assert cli.main(["secret", "set", "has space"]) == 2
    assert prompts == []
