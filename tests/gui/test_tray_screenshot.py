"""A screenshot of the real tray menu: Xvfb, a real tray host (trayer), the tray app on xcb.

The picture is kept under artifacts/screenshots/ for people to look at. No tray host is a failure, not a
skip: the tray is the product's face and this is the one test that sees it on a real X server.
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
from typing import Any

import pytest
from PySide6.QtCore import QRect
from PySide6.QtGui import QImage

REPO = Path(__file__).resolve().parents[2]
SCREENSHOTS = REPO / "artifacts" / "screenshots"
MENU_APP = Path(__file__).with_name("tray_menu_app.py")
SCREEN = (1280, 800)
TRAY_HEIGHT = 32
START_TIMEOUT_S = 30.0
DESKTOP = "#5e6a7d"


@dataclass
class XServer:
    display: str
    env: dict[str, str]


def _need(tool: str, package: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.fail(f"`{tool}` is missing: install the Debian package {package} for the tray screenshot test")
    return path


def _read_line(proc: subprocess.Popen[str], prefixes: tuple[str, ...], timeout: float, what: str) -> str:
    """The rest of the first stdout line of `proc` that starts with one of `prefixes`, within `timeout` s."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            pytest.fail(f"timed out after {timeout:g} s waiting for {what}", pytrace=False)
        ready, _, _ = select.select([proc.stdout], [], [], left)
        if not ready:
            continue
        line = proc.stdout.readline()
        if not line:
            stderr = proc.stderr.read() if proc.stderr is not None else ""
            pytest.fail(f"{what}: the process ended (exit {proc.wait()}) first:\n{stderr}", pytrace=False)
        for prefix in prefixes:
            if line.startswith(prefix):
                return line[len(prefix) :].strip()


def _embedded_icon(x_server: XServer, winid: int, timeout: float = 10.0) -> QRect:
    """The icon window's place on screen once the tray host has reparented (embedded) and mapped it.

    QSystemTrayIcon.geometry() cannot tell: after XEmbed reparenting Qt still believes it sits at 0,0.
    """
    xwininfo = _need("xwininfo", "x11-utils")
    deadline = time.monotonic() + timeout
    while True:
        out = subprocess.run(
            [xwininfo, "-id", str(winid), "-tree", "-stats"],
            env=x_server.env,
            capture_output=True,
            text=True,
            timeout=10,
        ).stdout
        fields = dict(line.strip().split(": ", 1) for line in out.splitlines() if ": " in line)
        parent = next((line for line in out.splitlines() if "Parent window id" in line), "")
        if fields.get("Map State") == "IsViewable" and parent and "(the root window)" not in parent:
            return QRect(
                int(fields["Absolute upper-left X"]),
                int(fields["Absolute upper-left Y"]),
                int(fields["Width"]),
                int(fields["Height"]),
            )
        if time.monotonic() > deadline:
            pytest.fail(f"the tray host did not embed the tray icon within {timeout:g} s:\n{out}", pytrace=False)
        time.sleep(0.05)  # polling an external process, with the deadline above


def _grab(grab: str, x_server: XServer, path: Path) -> None:
    """A screenshot of the whole X screen."""
    subprocess.run(
        [grab, "-display", x_server.display, "-window", "root", str(path)],
        check=True,
        timeout=30,
        env=x_server.env,
        capture_output=True,
    )


def _grab_until(
    grab: str, x_server: XServer, path: Path, done: Callable[[QImage], bool], what: str, timeout: float = 10.0
) -> QImage:
    """Screenshots until one shows `what` (an embedded icon is painted a moment after it is mapped)."""
    deadline = time.monotonic() + timeout
    while True:
        _grab(grab, x_server, path)
        image = QImage(str(path))
        assert not image.isNull(), f"{path} is not a readable PNG"
        if done(image):
            return image
        if time.monotonic() > deadline:
            pytest.fail(f"no screenshot showed {what} within {timeout:g} s (see {path})", pytrace=False)


def _stop(proc: subprocess.Popen[Any]) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextlib.contextmanager
def x_server() -> Iterator[XServer]:
    """Xvfb on a display number it picks itself (-displayfd: written once it accepts connections)."""
    xvfb = _need("Xvfb", "xvfb")
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
        _stop(proc)


@contextlib.contextmanager
def tray_host(x_server: XServer) -> Iterator[subprocess.Popen[bytes]]:
    """trayer, a real XEmbed system tray, docked at the top right like a desktop panel's tray."""
    trayer = _need("trayer", "trayer")
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
        _stop(proc)


def _distinct_colours(image: QImage, area: QRect) -> int:
    part = image.copy(area).convertToFormat(QImage.Format.Format_RGB32)
    data = bytes(part.constBits())
    stride = part.bytesPerLine()
    seen: set[bytes] = set()
    for y in range(part.height()):
        row = data[y * stride : y * stride + part.width() * 4]
        seen.update(row[i : i + 4] for i in range(0, len(row), 4))
    return len(seen)


def test_tray_menu_screenshot(home: Path, secret_service: None) -> None:
    """Xvfb and trayer are started inside the test, so a missing one fails the test (never an error/skip)."""
    with x_server() as x, tray_host(x) as host:
        _screenshot_tray_menu(x, host, home)


def _trayer_state(host: subprocess.Popen[bytes]) -> str:
    if host.poll() is None:
        return "trayer is running"
    err = host.stderr.read().decode(errors="replace") if host.stderr else ""
    return f"trayer ended (exit {host.returncode}): {err.strip()}"


def _screenshot_tray_menu(x_server: XServer, tray_host: subprocess.Popen[bytes], home: Path) -> None:
    grab = _need("import", "imagemagick")
    xdotool = _need("xdotool", "xdotool")
    app = subprocess.Popen(
        [sys.executable, str(MENU_APP)],
        env={**x_server.env, "TABPILOT_HOME": str(home)},
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first: dict[str, Any] = json.loads(_read_line(app, ("ICON ", "READY "), START_TIMEOUT_S, "the tray icon"))
        if first.get("tray_available", True) is not True:
            pytest.fail(
                f"QSystemTrayIcon.isSystemTrayAvailable() was False on {x_server.display}: no system tray "
                f"host there ({_trayer_state(tray_host)})",
                pytrace=False,
            )
        icon = _embedded_icon(x_server, first["winid"])
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        before = SCREENSHOTS / "tray-icon.png"
        plain = _grab_until(
            grab, x_server, before, lambda shot: _distinct_colours(shot, icon) > 5, "the tray icon drawn"
        )
        # Right-click the icon where the tray host shows it, as a user opens the tray menu.
        subprocess.run(
            [xdotool, "mousemove", "--sync", str(icon.center().x()), str(icon.center().y()), "click", "3"],
            check=True,
            timeout=10,
            env=x_server.env,
            capture_output=True,
        )
        ready: dict[str, Any] = json.loads(_read_line(app, ("READY ",), START_TIMEOUT_S, "the tray menu"))
        assert ready["tray_available"] is True
        assert ready["platform"] == "xcb"
        assert ready["tray_visible"] is True
        assert ready["look"] == "pilot"
        assert ready["pilot"] is True
        assert ready["checked"] == ["AI Web Pilot"]
        assert any(item.startswith("Browser: connected — FakeChrome 1.0") for item in ready["items"])

        shot = SCREENSHOTS / "tray-menu.png"
        _grab(grab, x_server, shot)
    finally:
        if app.stdin is not None and app.poll() is None:
            app.stdin.close()
        try:
            code = app.wait(timeout=20)
        except subprocess.TimeoutExpired:
            app.kill()
            code = app.wait()
        stderr = app.stderr.read() if app.stderr is not None else ""
    assert code == 0, f"the tray app exited {code}:\n{stderr}"
    problems = ("WARNING", "ERROR", "CRITICAL", "Traceback")  # its Python log lines (and crashes)
    assert not [line for line in stderr.splitlines() if line.startswith(problems)], (
        "the tray app logged warnings or errors:\n" + stderr
    )

    # The icon alone, before the menu opened over the panel.
    panel = QRect(icon.left() - 40, 0, icon.width() + 80, TRAY_HEIGHT + 8).intersected(plain.rect())
    plain.copy(panel).save(str(SCREENSHOTS / "tray-icon-closeup.png"))
    before.unlink(missing_ok=True)  # another run sharing artifacts/ may have taken it

    image = QImage(str(shot))
    assert not image.isNull(), f"{shot} is not a readable PNG"
    assert (image.width(), image.height()) == SCREEN
    assert _distinct_colours(image, image.rect()) > 50, f"{shot} is blank"

    menu = QRect(*ready["menu_geometry"])
    assert image.rect().contains(menu), f"the menu {ready['menu_geometry']} is not fully on screen"
    assert image.rect().contains(icon), f"the tray icon {icon} is not on screen"
    assert _distinct_colours(image, menu) > 20, "the menu area has no text or frame in the screenshot"

    # A close-up of the tray and its menu, for people reviewing the look.
    area = menu.united(icon).adjusted(-24, -8, 24, 24).intersected(image.rect())
    image.copy(area).save(str(SCREENSHOTS / "tray-menu-closeup.png"))
