"""Draw Tabpilot's icons (tray states and extension sizes). Run once when the artwork changes."""

from __future__ import annotations

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QPointF, QRectF, Qt
from PySide6.QtGui import QBrush, QColor, QGuiApplication, QImage, QPainter, QPainterPath, QPen

ROOT = Path(__file__).resolve().parents[1]
STATES = {"disconnected": "#80868b", "connected": "#1a73e8", "busy": "#f29900", "pilot": "#188038"}


def draw(size: int, color: str, dot: str | None = None) -> QImage:
    img = QImage(size, size, QImage.Format.Format_ARGB32)
    img.fill(Qt.GlobalColor.transparent)
    p = QPainter(img)
    p.setRenderHint(QPainter.RenderHint.Antialiasing)
    s = size / 32
    # a browser tab
    tab = QPainterPath()
    tab.addRoundedRect(QRectF(2 * s, 7 * s, 28 * s, 22 * s), 4 * s, 4 * s)
    tab.addRoundedRect(QRectF(4 * s, 3 * s, 13 * s, 8 * s), 3 * s, 3 * s)
    p.fillPath(tab.simplified(), QBrush(QColor(color)))
    # a paper plane: the pilot
    plane = QPainterPath(QPointF(8 * s, 18 * s))
    plane.lineTo(QPointF(25 * s, 11 * s))
    plane.lineTo(QPointF(19 * s, 25 * s))
    plane.lineTo(QPointF(16 * s, 19.5 * s))
    plane.closeSubpath()
    p.fillPath(plane, QBrush(QColor("white")))
    p.setPen(QPen(QColor(color), 1.2 * s))
    p.drawLine(QPointF(16 * s, 19.5 * s), QPointF(25 * s, 11 * s))
    if dot:
        p.setPen(QPen(QColor("white"), 1.5 * s))
        p.setBrush(QBrush(QColor(dot)))
        p.drawEllipse(QRectF(21 * s, 20 * s, 10 * s, 10 * s))
    p.end()
    return img


def main() -> int:
    QGuiApplication(sys.argv)
    icons = ROOT / "resources" / "icons"
    icons.mkdir(parents=True, exist_ok=True)
    for state, color in STATES.items():
        for size in (32, 64):
            draw(size, color).save(str(icons / f"tray-{state}-{size}.png"))
    ext = ROOT / "extension" / "icons"
    ext.mkdir(parents=True, exist_ok=True)
    for size in (16, 32, 48, 128):
        draw(size, STATES["connected"]).save(str(ext / f"icon{size}.png"))
    draw(128, STATES["connected"]).save(str(icons / "tabpilot.png"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
