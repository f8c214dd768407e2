"""A real X server for the screenshot tests: Xvfb, a tray host (trayer), screenshots and the mouse, and the
app under test as a subprocess on that display (a tests/gui/*_app.py script, built on screen_app.py).

The pictures are kept under artifacts/screenshots/ for people to look at. A missing X tool fails the test,
never a skip: these are the tests that see the product's face on a real X server.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, overload

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QImage
from tests.support.waiting import until_sync

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "artifacts" / "screenshots"
SCREEN = (1280, 800)
TRAY_HEIGHT = 32
START_TIMEOUT_S = 30.0
DESKTOP = "#5e6a7d"
PROBLEMS = ("WARNING", "ERROR", "CRITICAL", "Traceback")
"""How the app's Python log lines (and crashes) that fail a screenshot test start."""


def need(tool: str, package: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.fail(f"`{tool}` is missing: install the Debian package {package} for the screenshot tests")
    return path


def stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def distinct_colours(image: QImage, area: QRect) -> int:
    if area.isEmpty():  # QImage.copy() of an empty rectangle would be the whole image
        return 0
    part = image.copy(area).convertToFormat(QImage.Format.Format_RGB32)
    data = bytes(part.constBits())
    stride = part.bytesPerLine()
    seen: set[bytes] = set()
    for y in range(part.height()):
        row = data[y * stride : y * stride + part.width() * 4]
        seen.update(row[i : i + 4] for i in range(0, len(row), 4))
    return len(seen)


@dataclass
class XServer:
    display: str
    env: dict[str, str]

    def grab(self, path: Path) -> None:
        """A screenshot of the whole X screen."""
        subprocess.run(
            [need("import", "imagemagick"), "-display", self.display, "-window", "root", str(path)],
            check=True,
            timeout=30,
            env=self.env,
            capture_output=True,
        )

    @overload
    def grab_until(
        self, path: Path, done: Callable[[QImage], bool], what: str, timeout: float = ..., *, fail: Literal[True] = ...
    ) -> QImage: ...
    @overload
    def grab_until(
        self, path: Path, done: Callable[[QImage], bool], what: str, timeout: float = ..., *, fail: bool
    ) -> QImage | None: ...
    def grab_until(
        self, path: Path, done: Callable[[QImage], bool], what: str, timeout: float = 10.0, *, fail: bool = True
    ) -> QImage | None:
        """Screenshots until one shows `what` (a window is painted a moment after it is mapped); after
        `timeout` s the test fails, or, without `fail`, None."""
        deadline = time.monotonic() + timeout
        while True:
            self.grab(path)
            image = QImage(str(path))
            assert not image.isNull(), f"{path} is not a readable PNG"
            if done(image):
                return image
            if time.monotonic() > deadline:
                if not fail:
                    return None
                pytest.fail(f"no screenshot showed {what} within {timeout:g} s (see {path})", pytrace=False)

    def xwininfo(self, winid: int) -> str:
        """What xwininfo says of window `winid`, with its place in the window tree."""
        return subprocess.run(
            [need("xwininfo", "x11-utils"), "-id", str(winid), "-tree", "-stats"],
            env=self.env,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout

    def window_rect(self, winid: int, *, embedded: bool = False) -> QRect | None:
        """Where the X server has window `winid` (its own area, absolute); None while it is not mapped, or
        with `embedded`, while it is not yet reparented away from the root window."""
        out = self.xwininfo(winid)
        fields = dict(line.strip().split(": ", 1) for line in out.splitlines() if ": " in line)
        if fields.get("Map State") != "IsViewable":
            return None
        parent = next((line for line in out.splitlines() if "Parent window id" in line), "")
        if embedded and (not parent or "(the root window)" in parent):
            return None
        return QRect(
            int(fields["Absolute upper-left X"]),
            int(fields["Absolute upper-left Y"]),
            int(fields["Width"]),
            int(fields["Height"]),
        )

    def embedded_icon(self, winid: int, timeout: float = 10.0) -> QRect:
        """The icon window's place on screen once the tray host has reparented (embedded) and mapped it.

        QSystemTrayIcon.geometry() cannot tell: after XEmbed reparenting Qt still believes it sits at 0,0.
        """
        try:
            found = until_sync(
                lambda: self.window_rect(winid, embedded=True),
                timeout=timeout,
                interval=0.05,
                what="the tray host to embed the icon",
            )
        except AssertionError:
            said = self.xwininfo(winid)
            pytest.fail(f"the tray host did not embed the tray icon within {timeout:g} s:\n{said}", pytrace=False)
        assert found is not None  # until_sync returns only once it has one
        return found

    def move_mouse(self, at: QPoint) -> None:
        self._xdotool("mousemove", "--sync", str(at.x()), str(at.y()))

    def right_click(self, at: QPoint) -> None:
        self._xdotool("mousemove", "--sync", str(at.x()), str(at.y()), "click", "3")

    def left_click(self, at: QPoint) -> None:
        self._xdotool("mousemove", "--sync", str(at.x()), str(at.y()), "click", "1")

    def _xdotool(self, *args: str) -> None:
        subprocess.run([need("xdotool", "xdotool"), *args], check=True, timeout=10, env=self.env, capture_output=True)


@contextlib.contextmanager
def x_server() -> Iterator[XServer]:
    """Xvfb on a display number it picks itself (-displayfd: written once it accepts connections)."""
    xvfb = need("Xvfb", "xvfb")
    read_fd, write_fd = os.pipe()
    proc = subprocess.Popen(
        [
            xvfb,
            "-displayfd",
            str(write_fd),
            "-screen",
            "0",
            f"{SCREEN[0]}x{SCREEN[1]}x24",
            "-nolisten",
            "tcp",
            "-noreset",  # keep the root background (and everything) when a client disconnects
        ],
        pass_fds=(write_fd,),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    os.close(write_fd)
    try:
        number = b""
        deadline = time.monotonic() + START_TIMEOUT_S
        while not number.endswith(b"\n"):
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([read_fd], [], [], left)[0]:
                pytest.fail("Xvfb did not report its display number in time", pytrace=False)
            chunk = os.read(read_fd, 16)
            if not chunk:
                err = proc.stderr.read().decode(errors="replace") if proc.stderr else ""
                pytest.fail(f"Xvfb ended before it was ready (exit {proc.wait()}):\n{err}", pytrace=False)
            number += chunk
        display = f":{number.decode().strip()}"
        env = {**os.environ, "DISPLAY": display, "QT_QPA_PLATFORM": "xcb"}
        env.pop("WAYLAND_DISPLAY", None)
        xsetroot = shutil.which("xsetroot")
        if xsetroot is not None:  # a desktop-like background instead of black, for the people who look
            subprocess.run([xsetroot, "-solid", DESKTOP], env=env, check=False, timeout=10)
        yield XServer(display, env)
    finally:
        os.close(read_fd)
        stop(proc)


@contextlib.contextmanager
def tray_host(x_server: XServer) -> Iterator[subprocess.Popen[bytes]]:
    """trayer, a real XEmbed system tray, docked at the top right like a desktop panel's tray."""
    trayer = need("trayer", "trayer")
    proc = subprocess.Popen(
        [
            trayer,
            "--edge", "top",
            "--align", "right",
            "--widthtype", "request",
            "--height", str(TRAY_HEIGHT),
            "--transparent", "false",
            "--tint", "0xffffff",
            "--SetDockType", "true",
        ],
        env=x_server.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        yield proc
    finally:
        stop(proc)


def _trayer_state(host: subprocess.Popen[bytes]) -> str:
    if host.poll() is None:
        return "trayer is running"
    err = host.stderr.read().decode(errors="replace") if host.stderr else ""
    return f"trayer ended (exit {host.returncode}): {err.strip()}"


# -- the app under test, on that display ---------------------------------------------------------------


class ScreenApp:
    """A tests/gui/*_app.py script running on the X server. It says what is on screen in stdout lines
    `KIND {json}` (screen_app.say); a line on its stdin moves it on, the end of its stdin stops it."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.proc = proc

    def read(self, *kinds: str, what: str, timeout: float = START_TIMEOUT_S) -> dict[str, Any]:
        """The fields of the first stdout line of one of `kinds` (skipping others), within `timeout` s."""
        stdout = self.proc.stdout
        assert stdout is not None
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                pytest.fail(f"timed out after {timeout:g} s waiting for {what}", pytrace=False)
            ready, _, _ = select.select([stdout], [], [], left)
            if not ready:
                continue
            line = stdout.readline()
            if not line:
                stderr = self.proc.stderr.read() if self.proc.stderr is not None else ""
                pytest.fail(f"{what}: the process ended (exit {self.proc.wait()}) first:\n{stderr}", pytrace=False)
            kind, _, fields = line.partition(" ")
            if kind.strip() in kinds:
                found: dict[str, Any] = json.loads(fields) if fields.strip() else {}
                return found

    def send(self, line: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def tray_icon(self, x: XServer, host: subprocess.Popen[bytes], shot: Path) -> tuple[QRect, QImage]:
        """Where the tray host shows the app's tray icon, and a screenshot (at `shot`) once it is drawn there."""
        first = self.read("ICON", "READY", what="the tray icon")
        if first.get("tray_available", True) is not True:
            pytest.fail(
                f"QSystemTrayIcon.isSystemTrayAvailable() was False on {x.display}: no system tray "
                f"host there ({_trayer_state(host)})",
                pytrace=False,
            )
        icon = x.embedded_icon(first["winid"])
        image = x.grab_until(shot, lambda image: distinct_colours(image, icon) > 5, "the tray icon drawn")
        return icon, image


@contextlib.contextmanager
def screen_app(
    script: Path,
    x: XServer,
    home: Path,
    *,
    name: str = "the app",
    exit_timeout: float = 20,
    expected: tuple[str, ...] = (),
) -> Iterator[ScreenApp]:
    """Run `script` on `x` with `home` as its TABPILOT_HOME. At the end its stdin is closed, and it must exit 0
    having logged no warning or error (but lines that start with one of `expected`)."""
    proc = subprocess.Popen(
        [sys.executable, str(script)],
        env={**x.env, "TABPILOT_HOME": str(home)},
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        yield ScreenApp(proc)
    finally:
        if proc.stdin is not None and not proc.stdin.closed and proc.poll() is None:
            proc.stdin.close()
        try:
            code = proc.wait(timeout=exit_timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = proc.wait()
        stderr = proc.stderr.read() if proc.stderr is not None else ""
    assert code == 0, f"{name} exited {code}:\n{stderr}"
    assert not [line for line in stderr.splitlines() if line.startswith(PROBLEMS) and not line.startswith(expected)], (
        f"{name} logged warnings or errors:\n" + stderr
    )
