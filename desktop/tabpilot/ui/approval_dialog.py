"""The approval dialog: the tray's ApprovalPort. A person sees who wants to change which page, how, and
a picture of the element, and answers Allow once / Allow for this site (N minutes) / Always allow this
workflow / Deny.

Non-blocking: each prompt is a window of its own (several may be open at once, cascaded) and `decide`
awaits its answer on the event loop. It appears at once; the picture (a crop the extension takes
without touching the page) is filled in when it arrives, and the element's outline is drawn here.

Safety: Deny is the default button and Escape; closing the window denies; nobody answering within
`timeout_s` raises TimeoutError (the engine answers the agent `approval_timeout`). The window stays on
top but does not take the keyboard focus when it appears, the allow buttons never take the focus (no
keystroke can press them: they need a click), and they are armed only `arm_delay_ms` after the window
appears, so a click meant for something else, landing where the prompt pops up, allows nothing.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import html
import json
import logging
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

import shiboken6
from PySide6.QtCore import QPoint, QRect, QSize, Qt, QTimer
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontDatabase,
    QGuiApplication,
    QImage,
    QPainter,
    QPen,
    QPixmap,
    QShowEvent,
)
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QTextEdit,
    QVBoxLayout,
)

from tabpilot.engine.ports import ApprovalDecision, ApprovalRequest, reported_agent
from tabpilot.engine.safety.policy import CLASS_WORDS, SITE_RULE_CLASSES, class_name
from tabpilot.observers import Observers
from tabpilot.ui.icons import app_icon
from tabpilot.ui.plain import breakable, make_plain, one_line, plain_label, rich_label, tooltip
from tabpilot.ui.workflow_plan import Plan, plan_for
from tabpilot.visible_text import visible

if TYPE_CHECKING:
    from tabpilot.app_facade import AppFacade

log = logging.getLogger("tabpilot.ui.approval")

DEFAULT_TIMEOUT_S = 120.0
ARM_DELAY_MS = 500
"""The allow buttons wake up this long after the window appears."""
SITE_MINUTES = (5, 15, 60)
DEFAULT_SITE_MINUTES = 15
PICTURE_SIZE = QSize(560, 220)
OUTLINE_COLOUR = QColor("#e8590c")
OUTLINE_WIDTH = 3
CASCADE_PX = 32
NAME_SHOWN = 80
"""Characters of a workflow's or a file's name in the headline (the whole name is in the window's other rows)."""
VALUE_SHOWN = 90
CODE_MAX_WIDTH = 900
"""How wide a script or parameters view opens at most (wider text scrolls, or the window is enlarged)."""

PictureState = Literal["loading", "shown", "off_screen", "not_found", "unavailable", "none"]

VERBS = {
    ("interact", "click"): "click an element",
    ("interact", "fill"): "fill in a field",
    ("interact", "type"): "type into a field",
    ("interact", "press"): "press a key",
    ("interact", "select"): "choose an option",
    ("interact", "execute_js"): "run JavaScript in the page",
    ("configure", "load_state"): "restore a saved browser state (cookies and storage) in this tab",
    ("configure", "emulate_device"): "make this tab act as another device (screen, touch, user agent)",
    ("configure", "set_viewport"): "change this tab's screen size",
    ("generate", "screenshot"): "take screenshots of this tab at phone, tablet and desktop sizes (the page is "
    "resized for each, then put back)",
    ("configure", "set_user_agent"): "change the browser this tab says it is (user agent)",
    ("configure", "set_headers"): "add headers to every request of this tab",
    ("configure", "mock_route"): "answer this tab's requests matching a pattern with made-up responses",
    ("configure", "block_urls"): "block this tab's requests matching patterns",
    ("interact", "check"): "check a checkbox",
    ("interact", "uncheck"): "uncheck a checkbox",
    ("interact", "hover"): "move the pointer over an element",
    ("interact", "focus"): "focus an element",
    ("interact", "drag"): "drag and drop an element",
    ("interact", "dismiss_overlays"): "close cookie banners and pop-ups",
    ("interact", "handle_dialog"): "answer the page's dialog (alert, confirm, prompt)",
}
"""What each command that asks a person does, in words (upload and workflows are worded in headline())."""


def headline(request: ApprovalRequest, name: str = "") -> str:
    """`name`: the workflow's name, as the person knows it from the Workflows menu. Names and files are
    another party's words: each on one line and cut to fit, so none can look like a sentence of ours (the
    label shows the headline as plain text)."""
    if request.workflow_id:
        what = f"replay the saved workflow “{one_line(name or request.workflow_id, NAME_SHOWN)}”"
    elif request.params.get("operation") == "extract":
        what = "extract rows, clicking through to the next pages"
    elif len(request.steps) > 1 or (request.tool, request.mode) == ("interact", "scrape"):
        count = len(request.steps)
        changing = f"{count} page-changing step{'s' if count != 1 else ''}"
        shown = one_line(name, NAME_SHOWN)
        what = f"run the workflow “{shown}” ({changing})" if name else f"run a workflow with {changing}"
    elif (request.tool, request.mode) == ("interact", "upload"):
        files = request.steps[0].get("files") if request.steps else None
        names = [one_line(str(f), NAME_SHOWN) for f in files] if isinstance(files, list) else []
        listed = one_line(", ".join(names), NAME_SHOWN * 4)
        what = f"upload {len(names)} file{'s' if len(names) != 1 else ''} into the page: {listed}"
    else:
        what = VERBS.get((request.tool, request.mode), f"run {request.tool} {request.mode}")
    return visible(f"An agent that {reported_agent(request.agent)} wants to {what}")


def pretty(value: Any) -> str:
    """Parameters shown whole, as the agent sent them (secrets are {{secret:NAME}} references already)."""
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


SCRIPT_WARNING = (
    "A script can do anything this page can: read everything on it (what you typed included), act as you on "
    "this site, and send what it read anywhere on the internet. Allow only a script you understand."
)


def plan_html(plan: Plan) -> str:
    """The steps as paragraphs (numbered from 1, nested ones indented), page-changing ones in bold."""
    out = []
    for step in plan.steps:
        text = html.escape(visible(f"{step.number}. {step.text}" if step.number else step.text))
        if step.changes_page:
            text = f"<b>{text}</b>"
        out.append(f'<p style="margin: 0 0 3px {step.depth * 22}px">{text}</p>')
    return "".join(out)


def plan_notes(plan: Plan) -> list[str]:
    """What else approving means, beyond the steps."""
    notes = []
    if plan.saves:
        notes.append(
            f"Approving also saves this workflow as “{one_line(plan.name, NAME_SHOWN) or 'workflow'}” (the agent "
            "asked to record it); "
            "it appears in the tray's Workflows menu."
        )
    if plan.reads_rows:
        notes.append("The rows it reads are sent to the agent.")
    if plan.secrets:
        refs = ", ".join(f"{{{{secret:{name}}}}}" for name in plan.secrets)
        notes.append(f"Typed from your keyring (values never shown): {refs}.")
    if plan.missing:
        notes.append(f"No value is given for {', '.join(plan.missing)}: the run will stop before it starts.")
    return notes


class CodeView(QPlainTextEdit):
    """Read-only text in a fixed-width font, real lines, scrolling; it opens `lines` tall (or less, for
    less text) and grows with the window."""

    def __init__(self, text: str, *, lines: int, wrap: bool = True) -> None:
        super().__init__(text)
        self.setReadOnly(True)
        self.setTabChangesFocus(True)
        self.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth if wrap else QPlainTextEdit.LineWrapMode.NoWrap)
        self.setMinimumWidth(PICTURE_SIZE.width())
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._lines = max(2, min(text.count("\n") + 1, lines))
        self._extra = 14 if wrap else 14 + self.horizontalScrollBar().sizeHint().height()
        # Wide enough for its longest line (code reads badly cut), within reason.
        longest = max((self.fontMetrics().horizontalAdvance(line) for line in text.splitlines()), default=0)
        self._width = max(PICTURE_SIZE.width(), min(longest + 40, CODE_MAX_WIDTH))

    def sizeHint(self) -> QSize:
        return QSize(self._width, self.fontMetrics().lineSpacing() * self._lines + self._extra)

    def minimumSizeHint(self) -> QSize:
        return QSize(PICTURE_SIZE.width() // 2, self.fontMetrics().lineSpacing() * min(self._lines, 3) + self._extra)


class StepsView(QTextEdit):
    """A workflow's plan (plan_html), opening as tall as its steps (up to 16 lines), growing with the window."""

    def __init__(self, plan: Plan) -> None:
        super().__init__()
        self.setReadOnly(True)
        self.setTabChangesFocus(True)
        self.setHtml(plan_html(plan))
        self.setMinimumWidth(PICTURE_SIZE.width())
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self._lines = max(3, min(len(plan.steps) + 1, 16))

    def sizeHint(self) -> QSize:
        return QSize(PICTURE_SIZE.width(), (self.fontMetrics().lineSpacing() + 3) * self._lines + 12)

    def minimumSizeHint(self) -> QSize:
        return QSize(PICTURE_SIZE.width() // 2, (self.fontMetrics().lineSpacing() + 3) * 3 + 12)


def step_line(number: int, step: Mapping[str, Any]) -> str:
    """`2. fill  #name  value="{{secret:PW}}"`: the kind, the element, then every other field whole."""
    parts = [f"{number}. {step.get('type', '?')}"]
    if isinstance(step.get("selector"), str):
        parts.append(step["selector"])
    parts += [
        f"{k}={json.dumps(v, ensure_ascii=False, default=str)}"
        for k, v in step.items()
        if k not in ("type", "selector")
    ]
    return "  ".join(parts)


def site_rule_tip(request: ApprovalRequest, minutes: int = DEFAULT_SITE_MINUTES) -> str:
    """What "Allow for this site" allows, exactly: which agent, which site, which class of action, how long."""
    what = class_name(request.action_class)
    return (
        f"For {minutes} minutes, without asking: the agent that {reported_agent(request.agent)} may do "
        f"{what} on {request.origin or 'this site'}.\nNot other agents, not other sites, and "
        + ("no element actions (clicks, typing)." if request.action_class == "javascript" else "no JavaScript.")
        + " Revoke it any time under Approval rules."
    )


def workflow_rule_tip(request: ApprovalRequest) -> str:
    return (
        f"Until you revoke it: the agent that {reported_agent(request.agent)} may replay the saved workflow "
        f"“{request.workflow_id}” with exactly these steps and values, without asking.\nOther agents, an edited "
        "workflow or other values ask again. Revoke it any time under Approval rules."
    )


class ApprovalDialog(QDialog):
    """One prompt. `decision` is set when the person answers; closing the window any other way denies."""

    def __init__(
        self,
        request: ApprovalRequest,
        *,
        timeout_s: float,
        arm_delay_ms: int = ARM_DELAY_MS,
        plan: Plan | None = None,
    ) -> None:
        super().__init__(None)
        self.request = request
        self.plan = plan
        """A workflow's steps in words (workflow_plan.py); None for anything else."""
        self.decision: ApprovalDecision | None = None
        self.timeout_s = timeout_s
        self.arm_delay_ms = arm_delay_ms
        self.picture_state: PictureState = "loading"
        self.crop: dict[str, Any] | None = None
        self.outline: QRect | None = None
        """The element's box in the shown picture's pixels (where the outline is drawn around)."""
        self.picture_shown_at: float | None = None
        """time.perf_counter() when the picture (or the reason there is none) was on screen."""
        self._deadline = time.monotonic() + timeout_s

        self.setWindowTitle("Tabpilot — Allow this action?")
        self.setWindowIcon(app_icon())
        self.setObjectName("approvalDialog")
        self.setWindowModality(Qt.WindowModality.NonModal)
        self.setWindowFlag(Qt.WindowType.WindowStaysOnTopHint, True)
        self.setWindowFlag(Qt.WindowType.WindowContextHelpButtonHint, False)
        # Appear on top, but leave the keyboard where the person is typing.
        self.setAttribute(Qt.WidgetAttribute.WA_ShowWithoutActivating, True)

        outer = QVBoxLayout(self)
        # It opens as big as its contents ask (up to the screen); long texts scroll, and the person can make
        # the window bigger to read more of them at once.
        self.setSizeGripEnabled(True)
        outer.setContentsMargins(16, 14, 16, 14)
        outer.setSpacing(10)

        self.title_label = plain_label(breakable(headline(request, plan.name if plan is not None else "")), wrap=True)
        title_font = QFont(self.title_label.font())
        title_font.setPointSizeF(title_font.pointSizeF() * 1.25)
        title_font.setBold(True)
        self.title_label.setFont(title_font)
        outer.addWidget(self.title_label)

        form = QFormLayout()
        form.setHorizontalSpacing(12)
        form.setVerticalSpacing(4)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.agent_label = self._value(one_line(reported_agent(request.agent), VALUE_SHOWN))
        self.agent_label.setToolTip(
            tooltip(
                "The name the agent's program gave for itself; Tabpilot cannot check it (any program can claim "
                f"any name).\n{reported_agent(request.agent)}"
            )
        )
        self.action_label = self._value(f"{request.tool} · {request.mode}")
        self.url_label = self._value(one_line(request.tab_url or "(unknown tab)", VALUE_SHOWN))
        self.url_label.setToolTip(tooltip(request.tab_url or ""))
        self.origin_label = self._value(one_line(request.origin or "(unknown site)", VALUE_SHOWN * 2))
        self.origin_label.setToolTip(tooltip(request.origin))
        origin_font = QFont(self.origin_label.font())
        origin_font.setBold(True)
        self.origin_label.setFont(origin_font)
        form.addRow("Agent:", self.agent_label)
        form.addRow("Action:", self.action_label)
        if request.workflow_id:
            name = plan.name if plan is not None and plan.name != request.workflow_id else ""
            self.workflow_label: QLabel | None = self._value(
                one_line(f"{name} ({request.workflow_id})" if name else request.workflow_id, VALUE_SHOWN)
            )
            self.workflow_label.setToolTip(tooltip(name))
            form.addRow("Workflow:", self.workflow_label)
        else:
            self.workflow_label = None
        # A workflow that goes to its pages first does not act on the page the tab shows now: showing that
        # page (often about:blank) beside the site the steps go to would only mislead.
        if plan is None or plan.starts_on_current_page:
            form.addRow("Page:" if plan is None else "Starts on:", self.url_label)
        else:
            self.url_label.hide()
        form.addRow("Sites:" if " " in request.origin else "Site:", self.origin_label)
        outer.addLayout(form)

        # The picture of the target: a fixed frame, so the window does not jump when it arrives.
        self.picture = make_plain(QLabel())  # it says why there is no picture, naming the selector
        self.picture.setObjectName("approvalPicture")
        self.picture.setFixedSize(PICTURE_SIZE)
        self.picture.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.picture.setFrameShape(QFrame.Shape.StyledPanel)
        self.picture.setStyleSheet("QLabel#approvalPicture { background: #eceff3; color: #4a5260; }")
        self.picture.setWordWrap(True)
        self.picture_caption = plain_label(wrap=True)
        self.picture_caption.setStyleSheet("color: #5b6270;")
        if request.selector:
            self.picture.setText("Loading a picture of the element…")
            self.picture_caption.setText(breakable(f"Target: {visible(request.selector)}"))
            outer.addWidget(self.picture, 0, Qt.AlignmentFlag.AlignHCenter)
            outer.addWidget(self.picture_caption)
        else:
            self.picture_state = "none"  # a workflow: its steps run on pages it opens; listed below
            self.picture.hide()
            self.picture_caption.hide()

        self.steps_view: QPlainTextEdit | QTextEdit | None = None
        self.notes_label: QLabel | None = None
        if plan is not None:
            self._add_plan(outer, plan)
        elif len(request.steps) > 1 or request.workflow_id or (request.tool, request.mode) == ("interact", "scrape"):
            count = len(request.steps)
            steps_title = rich_label(f"<b>Steps that change the page ({count})</b> — all of them, approved together:")
            outer.addWidget(steps_title)
            self.steps_view = CodeView(
                "\n".join(step_line(i, s) for i, s in enumerate(request.steps, 1)), lines=8, wrap=False
            )
            self.steps_view.setObjectName("approvalSteps")
            outer.addWidget(self.steps_view, 2)

        shown = dict(request.params)
        self.script_view: CodeView | None = None
        if (request.tool, request.mode) == ("interact", "execute_js") and isinstance(shown.get("script"), str):
            # The script as code, line by line, not as an escaped JSON string.
            script_title = rich_label("<b>The script</b> (complete):")
            outer.addWidget(script_title)
            self.script_view = CodeView(shown.pop("script"), lines=14, wrap=False)
            self.script_view.setObjectName("approvalScript")
            outer.addWidget(self.script_view, 3)
            self.script_warning = plain_label(SCRIPT_WARNING, wrap=True)
            self.script_warning.setStyleSheet("color: #a50e0e;")
            outer.addWidget(self.script_warning)

        what = "Other parameters" if self.script_view is not None else "Parameters"
        if plan is not None:
            what = "The request as the agent sent it"
        params_title = rich_label(
            f"<b>{what}</b> (complete; secrets appear as {{{{secret:NAME}}}}, never their values):"
        )
        params_title.setWordWrap(True)
        outer.addWidget(params_title)
        self.params_view = CodeView(pretty(shown), lines=3 if self.script_view is not None or plan else 10)
        self.params_view.setObjectName("approvalParams")
        outer.addWidget(self.params_view, 1)

        self.countdown_label = plain_label()
        self.countdown_label.setStyleSheet("color: #5b6270;")
        outer.addWidget(self.countdown_label)

        buttons = QHBoxLayout()
        buttons.setSpacing(8)
        self.allow_once_button = self._allow_button(
            "Allow once", "Run exactly this, now, once. Anything else, this agent's next action too, asks again."
        )
        self.allow_site_button = self._allow_button("Allow for this site", site_rule_tip(request))
        self.site_minutes = QComboBox()
        self.site_minutes.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        for minutes in SITE_MINUTES:
            self.site_minutes.addItem(f"for {minutes} minutes", minutes)
        self.site_minutes.setCurrentIndex(SITE_MINUTES.index(DEFAULT_SITE_MINUTES))
        self.site_minutes.setToolTip("How long the site rule lasts (revocable in Approval rules)")
        self.site_minutes.currentIndexChanged.connect(self._site_minutes_changed)
        if not request.origin or " " in request.origin:
            # no site, or several: a one-site rule cannot cover it
            self.allow_site_button.setEnabled(False)
            self.site_minutes.setEnabled(False)
            self.allow_site_button.setToolTip("This action is not on one site: it can only be allowed once.")
        elif request.action_class not in SITE_RULE_CLASSES:
            # no standing site rule is ever made for this class (restoring a saved browser state): say so
            self.allow_site_button.setEnabled(False)
            self.site_minutes.setEnabled(False)
            self.allow_site_button.setToolTip(
                f"No site rule covers {CLASS_WORDS.get(request.action_class, 'this kind of action')}: it can only "
                "be allowed once."
            )
        self.allow_workflow_button: QPushButton | None = None
        if request.workflow_id:
            self.allow_workflow_button = self._allow_button("Always allow this workflow", workflow_rule_tip(request))
        self.deny_button = QPushButton("Deny")
        self.deny_button.setDefault(True)
        self.deny_button.setAutoDefault(True)
        self.deny_button.setToolTip("Nothing happens in the page (Escape, Enter, or closing the window)")
        buttons.addWidget(self.allow_once_button)
        buttons.addWidget(self.allow_site_button)
        buttons.addWidget(self.site_minutes)
        if self.allow_workflow_button is not None:
            buttons.addWidget(self.allow_workflow_button)
        buttons.addStretch(1)
        buttons.addWidget(self.deny_button)
        outer.addLayout(buttons)

        self.allow_once_button.clicked.connect(lambda: self._answer(ApprovalDecision(allow=True)))
        self.allow_site_button.clicked.connect(
            lambda: self._answer(
                ApprovalDecision(allow=True, remember="site", minutes=int(self.site_minutes.currentData()))
            )
        )
        if self.allow_workflow_button is not None:
            self.allow_workflow_button.clicked.connect(
                lambda: self._answer(ApprovalDecision(allow=True, remember="workflow"))
            )
        self.deny_button.clicked.connect(self.reject)

        self._arming = QTimer(self)
        self._arming.setSingleShot(True)
        self._arming.timeout.connect(self._arm)
        self._ticker = QTimer(self)
        self._ticker.setInterval(1000)
        self._ticker.timeout.connect(self._tick)
        self._ticker.start()
        self._tick()
        self._disarm()
        self.deny_button.setFocus(Qt.FocusReason.OtherFocusReason)

    # -- building blocks ---------------------------------------------------------------------------

    def _value(self, text: str) -> QLabel:
        label = QLabel(text)
        label.setTextFormat(Qt.TextFormat.PlainText)
        label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        return label

    def _add_plan(self, outer: QVBoxLayout, plan: Plan) -> None:
        """A workflow: every step in words, page-changing ones in bold, and what else approving does."""
        changing = sum(1 for step in plan.steps if step.changes_page)
        title = rich_label(
            f"<b>What it will do</b> — {len([s for s in plan.steps if s.number])} steps, approved together; "
            f"the {changing} in bold change the page:"
        )
        title.setWordWrap(True)
        outer.addWidget(title)
        view = StepsView(plan)
        self.steps_view = view
        outer.addWidget(view, 3)
        notes = plan_notes(plan)
        if notes:
            self.notes_label = plain_label("\n".join(notes), wrap=True)
            self.notes_label.setObjectName("approvalNotes")
            outer.addWidget(self.notes_label)

    def _allow_button(self, text: str, tip: str) -> QPushButton:
        button = QPushButton(text)
        button.setAutoDefault(False)
        button.setDefault(False)
        button.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # no key (Enter, Space, Tab) can press it: a click only
        button.setToolTip(tooltip(tip))
        return button

    def _site_minutes_changed(self, _index: int) -> None:
        if self.request.origin and " " not in self.request.origin:  # the tip says how long the rule lasts
            self.allow_site_button.setToolTip(
                tooltip(site_rule_tip(self.request, int(self.site_minutes.currentData())))
            )

    def allow_buttons(self) -> list[QPushButton]:
        buttons = [self.allow_once_button, self.allow_site_button]
        return buttons + ([self.allow_workflow_button] if self.allow_workflow_button is not None else [])

    # -- answering ---------------------------------------------------------------------------------

    def _answer(self, decision: ApprovalDecision) -> None:
        if self.decision is None:
            self.decision = decision
        self.accept()

    def done(self, result: int) -> None:
        if self.decision is None:
            self.decision = ApprovalDecision(allow=False)
        self._ticker.stop()
        self._arming.stop()
        super().done(result)

    def _disarm(self) -> None:
        for button in self.allow_buttons():
            button.setEnabled(False)
        self._arming.start(max(0, self.arm_delay_ms))

    def _arm(self) -> None:
        site_ok = self.site_rule_possible()
        for button in self.allow_buttons():
            button.setEnabled(site_ok or button is not self.allow_site_button)

    def site_rule_possible(self) -> bool:
        """One site, and a class of action that site rules are made for (engine/safety/policy.py)."""
        origin = self.request.origin
        return bool(origin) and " " not in str(origin) and self.request.action_class in SITE_RULE_CLASSES

    def showEvent(self, event: QShowEvent) -> None:
        super().showEvent(event)
        if self.decision is None and not event.spontaneous():
            self._disarm()  # counts from the moment it is on screen

    def _tick(self) -> None:
        left = max(0, round(self._deadline - time.monotonic()))
        self.countdown_label.setText(f"No answer in {left // 60}:{left % 60:02d} denies it.")

    # -- the picture -----------------------------------------------------------------------------------

    def show_crop(self, crop: Mapping[str, Any] | None) -> None:
        """Fill in the picture: the crop with the element outlined, or why there is none."""
        self.crop = dict(crop) if crop is not None else None
        if crop is None:
            self._no_picture("unavailable", "No picture: the browser could not take one.")
        elif not crop.get("found"):
            self._no_picture("not_found", f"No element matches {visible(str(self.request.selector))} on the page now.")
        elif not crop.get("on_screen"):
            self._no_picture(
                "off_screen",
                f"The element {visible(str(self.request.selector))} is off screen (not in view), so no picture.",
            )
        else:
            image = _decode_png(crop.get("data"))
            if image is None:
                self._no_picture("unavailable", "No picture: the browser sent an unreadable image.")
                return
            pixmap, outline = outlined(image, crop.get("box"), PICTURE_SIZE)
            self.outline = outline
            self.picture.setPixmap(pixmap)
            self.picture_state = "shown"
            self.picture_caption.setText(breakable(f"Target: {visible(str(self.request.selector))} (outlined)"))
            self._shown()

    def _no_picture(self, state: PictureState, text: str) -> None:
        self.picture_state = state
        self.picture.setText(breakable(text))
        self._shown()

    def _shown(self) -> None:
        if self.isVisible():
            self.picture.repaint()
        self.picture_shown_at = time.perf_counter()


def _decode_png(data: Any) -> QImage | None:
    if not isinstance(data, str) or not data:
        return None
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None
    image = QImage.fromData(raw)
    return None if image.isNull() else image


def outlined(image: QImage, box: Any, frame: QSize) -> tuple[QPixmap, QRect | None]:
    """The picture scaled to fit `frame` (never enlarged), framed, with the element outlined just outside
    its box; returns it and the element's box in its pixels."""
    scale = min(1.0, frame.width() / max(1, image.width()), frame.height() / max(1, image.height()))
    if scale < 1.0:
        image = image.scaled(
            max(1, round(image.width() * scale)),
            max(1, round(image.height() * scale)),
            Qt.AspectRatioMode.IgnoreAspectRatio,
            Qt.TransformationMode.SmoothTransformation,
        )
    pixmap = QPixmap.fromImage(image)
    if not isinstance(box, Mapping):
        return pixmap, None
    try:
        x, y, w, h = (float(box[k]) for k in ("x", "y", "width", "height"))
    except (KeyError, TypeError, ValueError):
        return pixmap, None
    rect = QRect(round(x * scale), round(y * scale), max(1, round(w * scale)), max(1, round(h * scale)))
    shown = rect.intersected(pixmap.rect())
    if shown.isEmpty():
        return pixmap, None
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing, False)
    painter.setBrush(Qt.BrushStyle.NoBrush)
    painter.setPen(QPen(QColor("#9aa3b0"), 1))
    painter.drawRect(pixmap.rect().adjusted(0, 0, -1, -1))  # where the picture ends, on a white page
    pen = QPen(OUTLINE_COLOUR)
    pen.setWidth(OUTLINE_WIDTH)
    pen.setJoinStyle(Qt.PenJoinStyle.MiterJoin)
    painter.setPen(pen)
    # A pen is centred on its path: this puts the whole stroke just outside the element.
    half = OUTLINE_WIDTH // 2 + 1
    painter.drawRect(shown.adjusted(-half, -half, half - 1, half - 1))
    painter.end()
    return pixmap, shown


class ApprovalDialogs:
    """The tray's ApprovalPort. Built before the App (which takes it); `attach(facade)` gives it the app's
    facade, for pictures of the target and the saved workflow a replay runs. Each prompt is its own window;
    several can be open at once."""

    def __init__(
        self,
        facade: AppFacade | None = None,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        arm_delay_ms: int = ARM_DELAY_MS,
    ) -> None:
        self.facade = facade
        self.timeout_s = timeout_s
        self.arm_delay_ms = arm_delay_ms
        self.open: list[ApprovalDialog] = []
        self.shown: Observers[[ApprovalDialog]] = Observers("approval prompt shown")
        """Told of each new dialog once it is on screen (tests, the benchmark)."""
        self.changed: Observers[[]] = Observers("approval prompts")
        """Told whenever a prompt opens or closes (the tray shows that one is waiting)."""

    def attach(self, facade: AppFacade) -> None:
        self.facade = facade

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision:
        loop = asyncio.get_running_loop()
        # Ask for the picture first: the browser takes it while the window is being built.
        crop: asyncio.Task[dict[str, Any] | None] | None = None
        if request.selector:
            crop = loop.create_task(self._crop(request))
        plan = plan_for(request, self._saved(request))
        dialog = ApprovalDialog(request, timeout_s=self.timeout_s, arm_delay_ms=self.arm_delay_ms, plan=plan)
        answer: asyncio.Future[ApprovalDecision] = loop.create_future()

        def finished(_result: int) -> None:
            if not answer.done():
                answer.set_result(dialog.decision or ApprovalDecision(allow=False))

        dialog.finished.connect(finished)
        self._place(dialog)
        self.open.append(dialog)
        dialog.show()
        dialog.raise_()
        picture = loop.create_task(self._fill_picture(dialog, crop)) if crop is not None else None
        self.shown.notify(dialog)
        self.changed.notify()
        try:
            decision = await asyncio.wait_for(answer, self.timeout_s)
        except TimeoutError:
            log.info(
                "nobody answered the prompt for %s.%s from the agent that %s",
                request.tool,
                request.mode,
                reported_agent(request.agent),
            )
            raise
        finally:
            for task in (picture, crop):
                if task is not None and not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            self.open.remove(dialog)
            self._dispose(dialog)
            self.changed.notify()
        log.info(
            "%s %s.%s for the agent that %s%s",
            "allowed" if decision.allow else "denied",
            request.tool,
            request.mode,
            reported_agent(request.agent),
            f" (and {decision.remember} rule)" if decision.remember else "",
        )
        return decision

    def _saved(self, request: ApprovalRequest) -> dict[str, Any] | None:
        """The saved workflow a replay runs (its steps are shown whole, not only the ones it asks about)."""
        if self.facade is None or not request.workflow_id or request.params.get("operation") != "replay":
            return None
        entry = self.facade.workflow(request.workflow_id)
        return entry.workflow.document() if entry is not None and entry.workflow is not None else None

    async def _crop(self, request: ApprovalRequest) -> dict[str, Any] | None:
        if self.facade is None:
            return None
        try:
            return await self.facade.crop(request.tab_id, request.selector)
        except Exception:  # a picture is a nicety: never let it break the prompt
            log.warning("no picture for the approval prompt", exc_info=True)
            return None

    async def _fill_picture(self, dialog: ApprovalDialog, crop: asyncio.Task[dict[str, Any] | None]) -> None:
        picture = await crop
        if shiboken6.isValid(dialog) and dialog.decision is None:
            dialog.show_crop(picture)

    def _place(self, dialog: ApprovalDialog) -> None:
        dialog.adjustSize()
        screen = QGuiApplication.primaryScreen()
        if screen is None:
            return
        area = screen.availableGeometry()
        # As big as its contents ask, but never bigger than the screen (its texts scroll instead).
        size = dialog.sizeHint().expandedTo(dialog.minimumSizeHint()).boundedTo(area.size() * 0.92)
        dialog.resize(size)
        top_left = area.center() - QPoint(size.width() // 2, size.height() // 2)
        step = CASCADE_PX * (len(self.open) % 8)
        top_left += QPoint(step, step)
        dialog.move(max(area.left(), top_left.x()), max(area.top(), top_left.y()))

    def _dispose(self, dialog: ApprovalDialog) -> None:
        """Close the window and delete it now, on the GUI thread (not whenever Python collects it)."""
        if not shiboken6.isValid(dialog):
            return
        if dialog.decision is None:
            dialog.decision = ApprovalDecision(allow=False)
        dialog.hide()
        shiboken6.delete(dialog)

    def close_all(self) -> None:
        """Deny what is still open (the app is quitting)."""
        for dialog in list(self.open):
            if shiboken6.isValid(dialog):
                dialog.reject()
