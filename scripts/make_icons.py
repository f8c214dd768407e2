"""Draw Tabpilot's icons (tray states and extension sizes). Run once when the artwork changes:
`.venv/bin/python scripts/make_icons.py` (the PNGs are checked in; tests/gui/test_tray_icons.py fails when
they are stale).

Each tray state has its own shape, not only its own colour (a person who cannot tell the colours apart,
or sees the icon in a grey panel, still reads it):

    disconnected  grey, hollow (only the outline): nothing is connected
    connected     blue, filled
    pilot         green, filled, with a check badge: the AI Web Pilot is on, agents may act
    busy          orange, filled, with a badge of three dots: a command is running
    waiting       red, filled, with a square "?" badge: a prompt is waiting for the person's answer
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QFont, QGuiApplication, QImage, QPainter, QPainterPath, QPen

ROOT = Path(__file__).resolve().parents[1]
COLOURS = {
    "disconnected": "#80868b",
    "connected": "#1a73e8",
    "pilot": "#188038",
    "busy": "#e37400",
    "waiting": "#c5221f",
}
TRAY_SIZES = (32, 64)


def _tab(s: float) -> QPainterPath:
    """A browser tab."""
    tab = QPainterPath()
    tab.addRoundedRect(QRectF(2 * s, 7 * s, 28 * s, 22 * s), 4 * s, 4 * s)
    tab.addRoundedRect(QRectF(4 * s, 3 * s, 13 * s, 8 * s), 3 * s, 3 * s)
    return tab.simplified()


def _plane(s: float) -> QPainterPath:
    """A paper plane: the pilot."""
    plane = QPainterPath(QPointF(8 * s, 18 * s))
    plane.lineTo(QPointF(25 * s, 11 * s))
    plane.lineTo(QPointF(19 * s, 25 * s))
    plane.lineTo(QPointF(16 * s, 19.5 * s))
    plane.closeSubpath()
    return plane


def _check(p: QPainter, box: QRectF) -> None:
    path = QPainterPath(QPointF(box.left() + box.width() * 0.24, box.top() + box.height() * 0.52))
    path.lineTo(QPointF(box.left() + box.width() * 0.43, box.top() + box.height() * 0.72))
    path.lineTo(QPointF(box.left() + box.width() * 0.77, box.top() + box.height() * 0.30))
    pen = QPen(QColor("white"), box.width() * 0.16)
    pen.setCapStyle(Qt.PenCapStyle.RoundCap)
    pen.setJoinStyle(Qt.PenJoinStyle.RoundJoin)
    p.setPen(pen)
    p.setBrush(Qt.BrushStyle.NoBrush)
    p.drawPath(path)


def _dots(p: QPainter, box: QRectF) -> None:
    p.setPen(Qt.PenStyle.NoPen)
    p.setBrush(QBrush(QColor("white")))
    r = box.width() * 0.12
    for fx in (0.27, 0.5, 0.73):
        p.drawEllipse(QPointF(box.left() + box.width() * fx, box.center().y()), r, r)


def _question(p: QPainter, box: QRectF) -> None:
    font = QFont("DejaVu Sans")
    font.setBold(True)
    font.setPixelSize(max(6, round(box.height() * 0.9)))
    p.setFont(font)
    p.setPen(QPen(QColor("white")))
    p.drawText(box.adjusted(0, box.height() * 0.02, 0, 0), Qt.AlignmentFlag.AlignCenter, "?")


BADGES: dict[str, Callable[[QPainter, QRectF], None]] = {"pilot": _check, "busy": _dots, "waiting": _question}


def draw(size: int, state: str) -> QImage:
    colour = QColor(COLOURS[state])
    img = QImage(size, size, QImage.Format.Format_ARGB32)
    img.fill(Qt.GlobalColor.transparent)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    p.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    s = size / 32
    if state == "disconnected":
        # Hollow: the outline of the tab and of the plane, nothing filled.
        p.setPen(QPen(colour, 2.2 * s))
        p.setBrush(Qt.BrushStyle.NoBrush)
        p.drawPath(_tab(s))
        p.setPen(QPen(colour, 1.6 * s))
        p.drawPath(_plane(s))
    else:
        p.fillPath(_tab(s), QBrush(colour))
        p.fillPath(_plane(s), QBrush(QColor("white")))
        p.setPen(QPen(colour, 1.2 * s))
        p.drawLine(QPointF(16 * s, 19.5 * s), QPointF(25 * s, 11 * s))
    badge = BADGES.get(state)
    if badge is not None:
        # A badge at the bottom right, ringed in white so it stands off the tab: round for what goes on by
        # itself, square (a sign) for what waits for the person.
        box = QRectF(15 * s, 15 * s, 17 * s, 17 * s)
        p.setPen(QPen(QColor("white"), 1.6 * s))
        p.setBrush(QBrush(colour.darker(135)))
        ring = box.adjusted(0.8 * s, 0.8 * s, -0.8 * s, -0.8 * s)
        if state == "waiting":
            p.drawRoundedRect(ring, 3 * s, 3 * s)
        else:
            p.drawEllipse(ring)
        badge(p, box.adjusted(2 * s, 2 * s, -2 * s, -2 * s))
    p.end()
    return img


def main() -> int:
    QGuiApplication(sys.argv)
    icons = ROOT / "resources" / "icons"
    icons.mkdir(parents=True, exist_ok=True)
    for state in COLOURS:
        for size in TRAY_SIZES:
            draw(size, state).save(str(icons / f"tray-{state}-{size}.png"))
    ext = ROOT / "extension" / "icons"
    ext.mkdir(parents=True, exist_ok=True)
    for size in (16, 32, 48, 128):
        draw(size, "connected").save(str(ext / f"icon{size}.png"))
    draw(128, "connected").save(str(icons / "tabpilot.png"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
