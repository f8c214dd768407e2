"""Where Tabpilot writes: all under TABPILOT_HOME when set, and two homes never share anything."""

from __future__ import annotations

import stat
from pathlib import Path

import platformdirs
import pytest

from tabpilot import home
from tabpilot.paths import APP, Paths

FILES = (
    "config_file",
    "state_file",
    "lock_file",
    "workflows_dir",
    "runs_dir",
    "browser_profile",
    "managed_extension",
    "log_file",
)


def test_tabpilot_home_holds_everything(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("TABPILOT_HOME", str(home))
    paths = Paths.resolve()
    for folder in (paths.config_dir, paths.data_dir, paths.state_dir, paths.log_dir):
        assert folder.is_relative_to(home)
    for name in FILES:
        assert getattr(paths, name).is_relative_to(home), name
    assert len({getattr(paths, name) for name in FILES}) == len(FILES)


def test_an_explicit_home_wins_over_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TABPILOT_HOME", str(tmp_path / "env"))
    assert Paths.resolve(tmp_path / "given").config_file.is_relative_to(tmp_path / "given")


def test_home_is_made_absolute(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    assert Paths.resolve("~/tp").data_dir == tmp_path / "tp"
    assert Paths.resolve("relative").data_dir == tmp_path / "relative"


def test_unset_home_uses_the_platform_folders(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TABPILOT_HOME", raising=False)
    paths = Paths.resolve()
    assert paths.config_dir == Path(platformdirs.user_config_dir(APP))
    assert paths.data_dir == Path(platformdirs.user_data_dir(APP))
    assert paths.state_dir == Path(platformdirs.user_state_dir(APP))


@pytest.mark.parametrize(
    ("xdg", "user_home"),
    [(None, "/home/someone"), ("/tmp/xdg-state", "/home/someone"), ("relative/state", "/home/someone/"), ("", "/")],
)
def test_the_state_folder_is_the_one_platformdirs_names(
    monkeypatch: pytest.MonkeyPatch, xdg: str | None, user_home: str
) -> None:
    """home.py finds it without importing platformdirs (the shell CLI looks for the app's socket there on
    every call): it must stay platformdirs' answer."""
    monkeypatch.delenv("TABPILOT_HOME", raising=False)
    monkeypatch.setenv("HOME", user_home)
    if xdg is None:
        monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_STATE_HOME", xdg)
    assert Paths.resolve().state_dir == Path(platformdirs.user_state_dir(APP))
    assert Paths.resolve().local_socket == Path(home.local_socket())


def test_two_homes_get_different_keyring_accounts(tmp_path: Path) -> None:
    one, two = Paths.resolve(tmp_path / "one"), Paths.resolve(tmp_path / "two")
    assert one.keyring_account != two.keyring_account
    assert one.keyring_account == Paths.resolve(tmp_path / "one").keyring_account
    assert one.keyring_account.startswith("bridge-token:")
    assert str(tmp_path) not in one.keyring_account  # no path leaks into the keyring


def test_ensure_creates_private_folders(tmp_path: Path) -> None:
    paths = Paths.resolve(tmp_path / "home")
    paths.ensure()
    for folder in (paths.config_dir, paths.log_dir, paths.workflows_dir):
        assert folder.is_dir()
        assert stat.S_IMODE(folder.stat().st_mode) & 0o077 == 0
