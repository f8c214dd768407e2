"""scripts/link-command, which scripts/run calls: after it, the user's other shells find `tabpilot` (README:
start it in one terminal, `tabpilot status` from another). Runs the real script with a home and a PATH of the
test's own; /usr/local/bin is never on that PATH, so the machine's folders stay untouched."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "link-command"
COMMAND = REPO / ".venv" / "bin" / "tabpilot"
SYSTEM_PATH = "/usr/bin:/bin"


def link_command(home: Path, path: str) -> subprocess.CompletedProcess[str]:
    env = {"HOME": str(home), "PATH": path, "LANG": "C.UTF-8"}
    return subprocess.run([str(SCRIPT)], env=env, capture_output=True, text=True, timeout=30, check=True)


def another_shell_finds(home: Path, path: str) -> str:
    """What a new shell of the user runs for `tabpilot` ("" when it finds none)."""
    env = {"HOME": str(home), "PATH": path}
    found = subprocess.run(["sh", "-c", "command -v tabpilot || true"], env=env, capture_output=True, text=True)
    return found.stdout.strip()


def test_the_command_goes_into_the_users_bin_on_their_path_and_runs_from_another_shell(tmp_path: Path) -> None:
    user_bin = tmp_path / ".local" / "bin"
    path = f"{user_bin}:{SYSTEM_PATH}"
    assert another_shell_finds(tmp_path, path) == ""
    done = link_command(tmp_path, path)
    assert str(user_bin / "tabpilot") in done.stdout
    found = another_shell_finds(tmp_path, path)
    assert found == str(user_bin / "tabpilot") and Path(found).resolve() == COMMAND.resolve()
    env = {**os.environ, "PATH": path, "TABPILOT_HOME": str(tmp_path / "home")}
    status = subprocess.run(["tabpilot", "status"], env=env, capture_output=True, text=True, timeout=30)
    assert status.returncode == 3 and "Tabpilot is not running." in status.stdout + status.stderr
    again = link_command(tmp_path, path)  # already this checkout's command: nothing to do, nothing said
    assert again.stdout == "" and again.stderr == ""


def test_another_tabpilot_of_the_users_is_never_replaced(tmp_path: Path) -> None:
    user_bin = tmp_path / ".local" / "bin"
    user_bin.mkdir(parents=True)
    theirs = user_bin / "tabpilot"
    theirs.write_text("#!/bin/sh\necho theirs\n", encoding="utf-8")
    theirs.chmod(0o755)
    done = link_command(tmp_path, f"{user_bin}:{SYSTEM_PATH}")
    assert theirs.read_text(encoding="utf-8") == "#!/bin/sh\necho theirs\n" and not theirs.is_symlink()
    assert f"{theirs} is another tabpilot" in done.stderr and str(COMMAND) in done.stderr


def test_a_link_from_an_earlier_checkout_is_moved_to_this_one(tmp_path: Path) -> None:
    user_bin = tmp_path / ".local" / "bin"
    user_bin.mkdir(parents=True)
    (user_bin / "tabpilot").symlink_to(tmp_path / "old-clone" / ".venv" / "bin" / "tabpilot")
    link_command(tmp_path, f"{user_bin}:{SYSTEM_PATH}")
    assert (user_bin / "tabpilot").resolve() == COMMAND.resolve()


def test_with_no_fitting_folder_on_path_it_links_one_and_says_how_to_reach_it(tmp_path: Path) -> None:
    done = link_command(tmp_path, SYSTEM_PATH)
    user_bin = tmp_path / ".local" / "bin"
    assert (user_bin / "tabpilot").resolve() == COMMAND.resolve()
    assert f'export PATH="{user_bin}:$PATH"' in done.stderr and str(COMMAND) in done.stderr
    assert another_shell_finds(tmp_path, f"{user_bin}:{SYSTEM_PATH}") == str(user_bin / "tabpilot")
