"""`generate pdf` and `generate archive`: the page printed as a PDF, and the page saved as one MHTML file
with its images and styles. Both are made by the browser (CDP `Page.printToPDF`, `Page.captureSnapshot`
through the extension's debugger) and written under the home's artifacts folder (engine/artifacts/artifacts.py).

Paper sizes and margins are turned into inches here, so the extension's operation stays a thin call.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass
from typing import Any, TypedDict

from tabpilot.engine.artifacts.artifacts import write_artifact
from tabpilot.engine.context import CommandContext
from tabpilot.engine.contract.args import TabArgs, arg
from tabpilot.engine.contract.commands import Command
from tabpilot.engine.errors import TabpilotError, shown
from tabpilot.engine.safety import scrubbing

PAPER_INCHES: dict[str, tuple[float, float]] = {
    "Letter": (8.5, 11),
    "Legal": (8.5, 14),
    "Tabloid": (11, 17),
    "Ledger": (17, 11),
    "A0": (33.1, 46.8),
    "A1": (23.4, 33.1),
    "A2": (16.54, 23.4),
    "A3": (11.7, 16.54),
    "A4": (8.27, 11.7),
    "A5": (5.83, 8.27),
    "A6": (4.13, 5.83),
}
"""The paper formats Playwright's page.pdf knows, with the same sizes (portrait)."""
INCHES_PER: dict[str, float] = {"in": 1.0, "cm": 1 / 2.54, "mm": 1 / 25.4, "px": 1 / 96, "pt": 1 / 72}
"""A length's unit in inches (`px` is a CSS pixel, 1/96 in)."""
SIDES = ("top", "right", "bottom", "left")
DEFAULT_MARGIN_IN = 0.4
"""Chrome's own default (about 1 cm): room for a header, a footer or page numbers."""
PAGE_NUMBERS_FOOTER = (
    '<div style="font-size:9px;width:100%;text-align:center;color:#444;">'
    '<span class="pageNumber"></span> / <span class="totalPages"></span></div>'
)
EMPTY_TEMPLATE = "<span></span>"
"""Chrome draws the date and title (header) or the URL and page (footer) for a template not given."""
_LENGTH = re.compile(r"^\s*(\d+(?:\.\d+)?|\.\d+)\s*(in|cm|mm|px|pt)?\s*$", re.I)
_RANGES = re.compile(r"^\s*\d+\s*(-\s*\d*\s*)?(,\s*\d+\s*(-\s*\d*\s*)?)*$")
_ROOT_COUNT = re.compile(rb"/Type\s*/Pages\b[^>]*?/Count\s+(\d+)|/Count\s+(\d+)[^>]*?/Type\s*/Pages\b", re.S)
_PAGE = re.compile(rb"/Type\s*/Page(?![a-zA-Z])")
_BOUNDARY = re.compile(r'boundary="?([^";\r\n]+)"?', re.I)
_PART_HEAD = re.compile(r"\r?\n\r?\n")
_QUOTED_PRINTABLE = re.compile(r"^Content-Transfer-Encoding:\s*quoted-printable", re.I | re.M)
_INPUT_TAG = re.compile(r"<input\b[^>]*>", re.I)
_PASSWORD_TYPE = re.compile(r"\btype=3D(\"|')?password\b", re.I)
_VALUE_ATTR = re.compile(r"(\bvalue=3D)(\"[^\"]*\"|'[^']*'|[^\s>]*)", re.I)

FORMATS_DOC = "paper: A0-A6, Letter, Legal, Tabloid, Ledger (any case)"
LENGTH_DOC = "a number with a unit: 210mm, 21cm, 8.5in, 800px, 72pt"


@dataclass(frozen=True, kw_only=True)
class PdfArgs(TabArgs):
    format: str = arg(FORMATS_DOC, default="A4")
    # Not `width`/`height`: those are zoom_region's numbers in CSS px, and a parameter has one JSON type
    # across a tool's modes.
    paper_width: str | None = arg(
        f"custom paper width, {LENGTH_DOC} (with paper_height; overrides format)", default=None
    )
    paper_height: str | None = arg("custom paper height, as paper_width", default=None)
    landscape: bool = arg("turn the paper", default=False)
    margin: dict[str, Any] | None = arg(
        "{top, right, bottom, left}: lengths, or numbers in CSS px (default 0.4in)", default=None
    )
    print_background: bool = arg("print background colours and images", default=False)
    scale: float = arg("rendering scale", default=1.0, minimum=0.1, maximum=2.0)
    page_ranges: str | None = arg("pages to print: '1-3, 5' (default all)", default=None)
    header_template: str | None = arg("HTML; classes date, title, url, pageNumber, totalPages fill in", default=None)
    footer_template: str | None = arg("HTML, as header_template", default=None)
    page_numbers: bool = arg("a 'page / total' footer when no footer_template", default=False)
    prefer_css_page_size: bool = arg("a CSS @page size wins over format", default=False)
    path: str | None = arg("file name inside the artifacts folder (default pdf-<time>.pdf)", default=None, path=True)


@dataclass(frozen=True, kw_only=True)
class ArchiveArgs(TabArgs):
    path: str | None = arg(
        "file name inside the artifacts folder (default archive-<time>.mhtml)", default=None, path=True
    )


class Pdf(TypedDict):
    path: str
    pages: int
    size_bytes: int
    width_in: float
    height_in: float
    """The paper as printed (landscape turned), in inches."""


class Archive(TypedDict):
    path: str
    size_bytes: int
    resources: int
    """Parts besides the page itself: images, styles, frames."""
    url: str


def inches(value: Any, name: str) -> float:
    """A length (`'210mm'`, `'8.5in'`, a number of CSS px) in inches; invalid_params names `name` otherwise."""
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise TabpilotError("invalid_params", f"'{name}' must be {LENGTH_DOC}; got {shown(value)}.", param=name)
    if isinstance(value, int | float):
        amount, unit = float(value), "px"
    else:
        found = _LENGTH.match(value)
        if found is None or (found.group(2) is None and float(found.group(1)) != 0):
            raise TabpilotError("invalid_params", f"'{name}' must be {LENGTH_DOC}; got {shown(value)}.", param=name)
        amount, unit = float(found.group(1)), (found.group(2) or "in").lower()
    if amount < 0:
        raise TabpilotError("invalid_params", f"'{name}' cannot be negative.", param=name)
    return amount * INCHES_PER[unit]


def paper(a: PdfArgs) -> tuple[float, float]:
    """Width and height in inches, portrait as named (Chrome turns it for `landscape`)."""
    if (a.paper_width is None) != (a.paper_height is None):
        raise TabpilotError(
            "invalid_params", "Give both 'paper_width' and 'paper_height' for a custom size.", param="paper_width"
        )
    if a.paper_width is not None and a.paper_height is not None:
        size = (inches(a.paper_width, "paper_width"), inches(a.paper_height, "paper_height"))
        if min(size) < 1 / 25.4 or max(size) > 200:
            raise TabpilotError(
                "invalid_params",
                "paper_width and paper_height must each be between 1 mm and 200 in.",
                param="paper_width",
            )
        return size
    for name, size in PAPER_INCHES.items():
        if name.lower() == a.format.strip().lower():
            return size
    raise TabpilotError(
        "invalid_params", f"'format' must be one of {', '.join(PAPER_INCHES)}; got {shown(a.format)}.", param="format"
    )


def margins(given: dict[str, Any] | None) -> dict[str, float]:
    unknown = sorted(set(given or {}) - set(SIDES))
    if unknown:
        raise TabpilotError(
            "invalid_params", f"'margin' takes top, right, bottom and left; not {', '.join(unknown)}.", param="margin"
        )
    return {
        side: inches(given[side], f"margin.{side}") if given and side in given else DEFAULT_MARGIN_IN for side in SIDES
    }


def print_params(a: PdfArgs) -> dict[str, Any]:
    """The `tab.pdf` operation's parameters for these arguments."""
    width, height = paper(a)
    edges = margins(a.margin)
    if edges["left"] + edges["right"] >= (height if a.landscape else width) or edges["top"] + edges["bottom"] >= (
        width if a.landscape else height
    ):
        raise TabpilotError("invalid_params", "The margins leave no room on the paper.", param="margin")
    if a.page_ranges is not None and not _RANGES.match(a.page_ranges):
        raise TabpilotError(
            "invalid_params", f"'page_ranges' looks like '1-3, 5'; got {shown(a.page_ranges)}.", param="page_ranges"
        )
    footer = a.footer_template if a.footer_template is not None else PAGE_NUMBERS_FOOTER if a.page_numbers else None
    params: dict[str, Any] = {
        "landscape": a.landscape,
        "print_background": a.print_background,
        "scale": a.scale,
        "paper_width": width,
        "paper_height": height,
        **{f"margin_{side}": value for side, value in edges.items()},
        "prefer_css_page_size": a.prefer_css_page_size,
    }
    if a.page_ranges is not None:
        params["page_ranges"] = a.page_ranges.replace(" ", "")
    if a.header_template is not None or footer is not None:
        params["header_template"] = a.header_template if a.header_template is not None else EMPTY_TEMPLATE
        params["footer_template"] = footer if footer is not None else EMPTY_TEMPLATE
    if a.tab_id is not None:
        params["tab_id"] = a.tab_id
    return params


def pdf_pages(data: bytes) -> int:
    """How many pages a PDF has: its page tree's root /Count (the largest; inner nodes count fewer), else
    its /Type /Page objects. Chrome writes the page tree uncompressed."""
    counts = [int(m.group(1) or m.group(2)) for m in _ROOT_COUNT.finditer(data)]
    return max(counts) if counts else len(_PAGE.findall(data))


def mhtml_resources(text: str) -> int:
    """The parts of an MHTML document besides the page itself."""
    head = text[:4096]
    found = _BOUNDARY.search(head)
    if found is None:
        return 0
    parts = text.count(f"\n--{found.group(1)}") - 1  # the last delimiter closes the document
    return max(parts - 1, 0)


def without_passwords(text: str) -> str:
    """An MHTML document with the `value` of every password field emptied, as every other read of the
    page does (Chromium saves what the markup says; what was typed into a field it leaves out anyway).
    The HTML parts are quoted-printable (`=` is `=3D`, long lines broken with a trailing `=`), so their
    soft line breaks are joined first: a value cut across two lines is found whole."""
    found = _BOUNDARY.search(text[:4096])
    if found is None:
        return text
    delimiter = f"--{found.group(1)}"
    parts = text.split(delimiter)
    for n, part in enumerate(parts):
        split = _PART_HEAD.search(part)
        if split is None or not _QUOTED_PRINTABLE.search(part[: split.start()]):
            continue
        body = re.sub(r"=\r?\n", "", part[split.end() :])
        if "<input" in body.lower():
            parts[n] = part[: split.end()] + _INPUT_TAG.sub(_empty_password, body)
    return delimiter.join(parts)


def _empty_password(tag: re.Match[str]) -> str:
    html = tag.group(0)
    return _VALUE_ATTR.sub(r'\1""', html) if _PASSWORD_TYPE.search(html) else html


async def _pdf(ctx: CommandContext, a: PdfArgs) -> Pdf:
    params = print_params(a)
    printed = await ctx.browser_request("tab.pdf", params, timeout_s=90)
    data = base64.b64decode(str(printed.get("data", "")))
    if not data.startswith(b"%PDF"):
        raise TabpilotError("internal", "The browser's PDF is not a PDF.")
    path = write_artifact(ctx, a.path, data, kind="pdf", suffix="pdf")
    width, height = params["paper_width"], params["paper_height"]
    if a.landscape:
        width, height = height, width
    return {
        "path": str(path),
        "pages": pdf_pages(data),
        "size_bytes": len(data),
        "width_in": round(width, 2),
        "height_in": round(height, 2),
    }


async def _archive(ctx: CommandContext, a: ArchiveArgs) -> Archive:
    target = {"tab_id": a.tab_id} if a.tab_id is not None else {}
    snapshot = await ctx.browser_request("tab.archive", target, timeout_s=90)
    # What Tabpilot typed into the page (a secret) can sit in the saved DOM: never in the file.
    text = scrubbing.scrub(without_passwords(str(snapshot.get("data", ""))), ctx.engine.known_secrets)
    data = text.encode("utf-8")
    path = write_artifact(ctx, a.path, data, kind="archive", suffix="mhtml")
    return {
        "path": str(path),
        "size_bytes": len(data),
        "resources": mhtml_resources(text),
        "url": str(snapshot.get("url", "")),
    }


COMMANDS: list[Command[Any]] = [
    Command(
        "generate",
        "pdf",
        "read",
        "page as a PDF file",
        _pdf,
        PdfArgs,
        returns=Pdf,
        notes="Written under the home's artifacts folder (`path` names a file there). Lengths take a unit "
        "(mm, cm, in, px, pt); margins default to 0.4in, which leaves room for a header, a footer or "
        "`page_numbers`. Templates are HTML with an explicit font-size; the classes date, title, url, "
        "pageNumber and totalPages are filled in. Printing uses the page's print styles (@media print). "
        "A browser that cannot print (older headful Chrome) answers not_supported.",
        example={"format": "Letter", "print_background": True, "page_numbers": True, "path": "report.pdf"},
        example_result={
            "path": "/home/me/.local/share/tabpilot/artifacts/report.pdf",
            "pages": 3,
            "size_bytes": 48213,
            "width_in": 8.5,
            "height_in": 11,
        },
        ops=("tab.pdf",),
    ),
    Command(
        "generate",
        "archive",
        "read",
        "page as one MHTML file",
        _archive,
        ArchiveArgs,
        returns=Archive,
        notes="The page as it is now (its DOM, with images, styles and frames inside the file; password values "
        "emptied), written under the home's artifacts folder; Chromium opens it offline.",
        example={"path": "home.mhtml"},
        example_result={
            "path": "/home/me/.local/share/tabpilot/artifacts/home.mhtml",
            "size_bytes": 182044,
            "resources": 7,
            "url": "https://example.com/",
        },
        ops=("tab.archive",),
    ),
]
