"""generate pdf and generate archive through the engine with a fake browser: paper sizes and margins in
inches, templates, page counting, refusals, and where the files land."""

from __future__ import annotations

import base64
import io
from pathlib import Path
from typing import Any

import pytest
from pypdf import PdfWriter

from tabpilot.engine.artifacts.printing import PAGE_NUMBERS_FOOTER, mhtml_resources, pdf_pages, without_passwords
from tabpilot.engine.core import Engine, EngineConfig
from tabpilot.engine.errors import TabpilotError
from tests.unit.engine.conftest import EngineFactory
from tests.unit.fakes import FakeBrowser


def blank_pdf(pages: int, *, compress: bool = False) -> bytes:
    writer = PdfWriter()
    for _ in range(pages):
        writer.add_blank_page(width=595, height=842)
    if compress:
        writer.compress_identical_objects()
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path / "artifacts"


@pytest.fixture
def printer(make_engine: EngineFactory, browser: FakeBrowser, folder: Path) -> Engine:
    browser.replies["tab.pdf"] = {"data": base64.b64encode(blank_pdf(3)).decode()}
    return make_engine(config=EngineConfig(artifacts_dir=folder))


def sent(browser: FakeBrowser, op: str) -> dict[str, Any]:
    (call,) = [c for c in browser.calls if c.op == op]
    return call.params


@pytest.mark.parametrize("pages", [1, 3, 12])
def test_pages_are_counted_from_the_page_tree(pages: int) -> None:
    assert pdf_pages(blank_pdf(pages)) == pages


def test_a_page_tree_with_inner_nodes_counts_its_root() -> None:
    data = (
        b"%PDF-1.4\n1 0 obj <</Type /Pages /Kids [2 0 R 3 0 R] /Count 5>> endobj\n"
        b"2 0 obj <</Type /Pages /Parent 1 0 R /Count 2 /Kids []>> endobj\n"
        b"3 0 obj <</Count 3 /Type /Pages /Parent 1 0 R /Kids []>> endobj\n"
    )
    assert pdf_pages(data) == 5


async def test_a4_by_default_with_chromes_margins(printer: Engine, browser: FakeBrowser, folder: Path) -> None:
    answer = await printer.call("generate", {"type": "pdf"})
    params = sent(browser, "tab.pdf")
    assert (params["paper_width"], params["paper_height"]) == (8.27, 11.7)
    assert [params[f"margin_{s}"] for s in ("top", "right", "bottom", "left")] == [0.4] * 4
    assert "header_template" not in params and params["landscape"] is False and params["print_background"] is False
    path = Path(answer["path"])
    assert path.parent == folder.resolve() and path.name.startswith("pdf-") and path.suffix == ".pdf"
    assert answer["pages"] == 3 and answer["size_bytes"] == path.stat().st_size
    assert (answer["width_in"], answer["height_in"]) == (8.27, 11.7)


async def test_sizes_margins_and_landscape_in_inches(printer: Engine, browser: FakeBrowser) -> None:
    answer = await printer.call(
        "generate",
        {
            "type": "pdf",
            "paper_width": "210mm",
            "paper_height": "29.7cm",
            "landscape": True,
            "margin": {"top": "1in", "bottom": 96, "left": "72pt", "right": "0"},
            "path": "report",
        },
    )
    params = sent(browser, "tab.pdf")
    assert params["paper_width"] == pytest.approx(8.2677, abs=1e-3)
    assert params["paper_height"] == pytest.approx(11.6929, abs=1e-3)
    assert (params["margin_top"], params["margin_bottom"], params["margin_left"], params["margin_right"]) == (
        1,
        1,
        1,
        0,
    )
    assert (answer["width_in"], answer["height_in"]) == (11.69, 8.27) and answer["path"].endswith("report.pdf")


async def test_page_numbers_make_a_footer_unless_one_is_given(printer: Engine, browser: FakeBrowser) -> None:
    await printer.call("generate", {"type": "pdf", "page_numbers": True, "format": "letter"})
    params = browser.calls[-1].params
    assert params["footer_template"] == PAGE_NUMBERS_FOOTER and params["header_template"] == "<span></span>"
    assert (params["paper_width"], params["paper_height"]) == (8.5, 11)
    await printer.call("generate", {"type": "pdf", "page_numbers": True, "footer_template": "<b>mine</b>"})
    assert browser.calls[-1].params["footer_template"] == "<b>mine</b>"


@pytest.mark.parametrize(
    ("args", "param"),
    [
        ({"format": "B7"}, "format"),
        ({"paper_width": "10cm"}, "paper_height"),
        ({"paper_width": "10", "paper_height": "10cm"}, "paper_width"),
        ({"paper_width": "-1in", "paper_height": "10cm"}, "paper_width"),
        ({"paper_width": "1in", "paper_height": "300in"}, "paper_width"),
        ({"margin": {"top": "2 furlongs"}}, "margin.top"),
        ({"margin": {"inside": 1}}, "margin"),
        ({"margin": {"left": "5in", "right": "5in"}}, "margin"),
        ({"page_ranges": "1-2; 4"}, "page_ranges"),
        ({"scale": 3}, "scale"),
        ({"path": "/etc/report.pdf"}, "path"),
    ],
)
async def test_bad_arguments_are_refused_naming_the_parameter(
    printer: Engine, browser: FakeBrowser, folder: Path, args: dict[str, Any], param: str
) -> None:
    with pytest.raises(TabpilotError) as refused:
        await printer.call("generate", {"type": "pdf", **args})
    assert refused.value.code == "invalid_params" and param in refused.value.message
    assert not folder.exists() or not any(folder.iterdir())


async def test_without_an_artifacts_folder_nothing_is_written(make_engine: EngineFactory, browser: FakeBrowser) -> None:
    browser.replies["tab.pdf"] = {"data": base64.b64encode(blank_pdf(1)).decode()}
    with pytest.raises(TabpilotError) as refused:
        await make_engine().call("generate", {"type": "pdf"})
    assert refused.value.code == "not_supported"


MHTML = (
    "From: <Saved by Blink>\r\nSubject: Shop\r\nMIME-Version: 1.0\r\n"
    'Content-Type: multipart/related;\r\n\ttype="text/html";\r\n\tboundary="----MultipartBoundary--abc----"\r\n\r\n'
    "------MultipartBoundary--abc----\r\nContent-Type: text/html\r\n\r\n<p>typed S3cr3t-value here</p>\r\n"
    "------MultipartBoundary--abc----\r\nContent-Type: image/png\r\n\r\niVBOR\r\n"
    "------MultipartBoundary--abc----\r\nContent-Type: text/css\r\n\r\np{}\r\n"
    "------MultipartBoundary--abc------\r\n"
)


def test_an_archives_resources_are_its_parts_but_the_page() -> None:
    assert mhtml_resources(MHTML) == 2
    assert mhtml_resources("not mhtml") == 0


async def test_an_archive_is_written_without_the_secrets_tabpilot_typed(
    make_engine: EngineFactory, browser: FakeBrowser, folder: Path
) -> None:
    browser.replies["tab.archive"] = {"data": MHTML, "url": "https://shop.test/", "title": "Shop"}
    engine = make_engine(config=EngineConfig(artifacts_dir=folder))
    engine.known_secrets["pw"] = "S3cr3t-value"
    answer = await engine.call("generate", {"type": "archive", "path": "shop", "tab_id": 4})
    path = Path(answer["path"])
    assert path.name == "shop.mhtml" and answer["resources"] == 2 and answer["url"] == "https://shop.test/"
    written = path.read_text(encoding="utf-8")
    assert "S3cr3t-value" not in written and "typed {{secret:pw}} here" in written
    assert sent(browser, "tab.archive") == {"tab_id": 4}


def test_password_values_are_emptied_in_the_archives_html_parts() -> None:
    page = (
        '<p>Hi</p><input type=3D"text" value=3D"ann"><input value=3D"hunt=\r\ner2" type=3D"password" id=3D"pw">'
        "<INPUT TYPE=3DPASSWORD VALUE=3Dswordfish>"
    )
    mhtml = (
        'Content-Type: multipart/related;\r\n\tboundary="----B----"\r\n\r\n'
        "------B----\r\nContent-Type: text/html\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n"
        f"{page}\r\n"
        "------B----\r\nContent-Type: image/png\r\nContent-Transfer-Encoding: base64\r\n\r\niVBO=\r\n"
        "------B------\r\n"
    )
    cleaned = without_passwords(mhtml)
    assert "hunt" not in cleaned and "er2" not in cleaned and "swordfish" not in cleaned
    assert '<input value=3D"" type=3D"password" id=3D"pw">' in cleaned and 'VALUE=3D"">' in cleaned
    assert '<input type=3D"text" value=3D"ann">' in cleaned
    assert "iVBO=\r\n" in cleaned, "base64 parts are left as they are"
    assert without_passwords("no boundary <input type=3Dpassword value=3Dx>") == (
        "no boundary <input type=3Dpassword value=3Dx>"
    )
