"""Text an agent or a page supplies, shown as the very characters it is (issue 18, item 5).

Qt guesses: a QLabel, a message box or a tooltip given a string with something like a tag in it renders it
as HTML (Qt's default AutoText), so an agent named `Claude<br>wants to take a screenshot.<span
style='font-size:1px'>` rewrote the approval prompt's headline. A menu item takes `&` as its shortcut mark,
a window title takes `[*]` as the "modified" mark, and some notification servers render markup. Every text
that may hold another party's words goes through one of these helpers; our own markup is only ever set on a
label made with `rich_label`, with the parts it quotes escaped.
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import Qt
from PySide6.QtGui import Qt as GuiQt
from PySide6.QtWidgets import QLabel, QMessageBox, QWidget

from tabpilot.visible_text import visible

BREAK_AFTER = 40
"""A run of this many characters without a space gets a place to wrap (a zero-width space)."""
_LONG_RUN = re.compile(rf"\S{{{BREAK_AFTER}}}(?=\S)")
NOTIFICATION_LOOKALIKES = str.maketrans({"<": "\uff1c", ">": "\uff1e", "&": "\uff06"})
"""`<`, `>`, `&` as their full-width forms: a notification server that renders markup sees none, and one that
does not shows no `&lt;` either."""


def one_line(text: str, limit: int = 0) -> str:
    """A name in a sentence: on one line (no line break of its own to start a forged sentence), what
    reorders or hides written out, and with `limit`, cut in the middle to that many characters."""
    flat = " ".join(visible(str(text)).split())
    if limit and len(flat) > limit:
        head = limit * 2 // 3
        tail = limit - head - 1
        flat = flat[:head] + "…" + (flat[-tail:] if tail > 0 else "")
    return flat


def breakable(text: str) -> str:
    """A zero-width space in every long run without spaces, so a word-wrapped label can wrap a long name
    or selector instead of growing wider than the screen."""
    return _LONG_RUN.sub(lambda match: match.group(0) + "\u200b", text)


def plain_label(text: str = "", *, wrap: bool = False, selectable: bool = False) -> QLabel:
    """A label that shows `text` (and whatever setText gives it later) as plain text."""
    label = QLabel()
    make_plain(label)
    label.setText(text)
    label.setWordWrap(wrap)
    if selectable:
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def make_plain(label: QLabel) -> QLabel:
    label.setTextFormat(Qt.TextFormat.PlainText)
    return label


def rich_label(markup: str) -> QLabel:
    """A label with our own markup (bold words); any quoted name in it must be passed through html.escape."""
    label = QLabel(markup)
    label.setTextFormat(Qt.TextFormat.RichText)
    return label


def tooltip(text: str) -> str:
    """A tooltip that shows `text` as it is. Tooltips have no text format of their own: Qt renders one as
    HTML when it looks like HTML, so such a text is escaped and marked as HTML itself."""
    if not GuiQt.mightBeRichText(text):
        return text
    escaped = html.escape(text, quote=False).replace("\n", "<br>")
    return f"<p style='white-space:pre-wrap'>{escaped}</p>"


def menu_text(text: str) -> str:
    """A menu item's (or submenu's) text: on one line, `&` shown as itself (not as the shortcut mark)."""
    return one_line(text).replace("&", "&&")


def notification(text: str) -> str:
    """A tray notification: nothing in it a notification server would render as markup."""
    return visible(text).translate(NOTIFICATION_LOOKALIKES)


def window_title_text(text: str) -> str:
    """A window title: on one line, `[*]` shown as itself. Qt takes `[*]` as the "modified" placeholder (and
    drops it): a word joiner inside keeps it out of Qt's sight, unseen, and applying this twice changes
    nothing more."""
    return one_line(text).replace("[*]", "[\u2060*]")


def plain_message(box: QMessageBox) -> QMessageBox:
    """A message box whose text and informative text are plain (set before the texts are)."""
    box.setTextFormat(Qt.TextFormat.PlainText)
    return box


def plain_children(widget: QWidget) -> None:
    """Every label inside `widget` (a QInputDialog's question) plain."""
    for label in widget.findChildren(QLabel):
        make_plain(label)
