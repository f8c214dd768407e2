"""The shell CLI's JSON (quickjson.py, on `_json` alone) reads and writes exactly what `json` does."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tabpilot import quickjson

VALUES: list[Any] = [
    0,
    -7,
    10**30,
    1.5,
    -0.0,
    1e300,
    float("inf"),
    "",
    'quote " backslash \\ newline \n tab \t nul \x00 é ü 中 \u2028 😀',
    None,
    True,
    False,
    [],
    {},
    [[[]], [{}], [1, "two", None]],
    {"a": [1, {"b": None, "c": [], "d": {}}], "é": "ü", "": 0},
]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: json.dumps(v)[:20])
def test_it_writes_what_json_writes(value: Any) -> None:
    assert quickjson.dumps_compact(value) == json.dumps(value, separators=(",", ":"))
    assert quickjson.dumps_text(value) == json.dumps(value, ensure_ascii=False)
    assert quickjson.dumps_pretty(value) == json.dumps(value, ensure_ascii=False, indent=2)


@pytest.mark.parametrize("value", VALUES, ids=lambda v: json.dumps(v)[:20])
def test_it_reads_what_json_reads(value: Any) -> None:
    text = json.dumps(value, indent=1)
    assert json.dumps(quickjson.loads(f" \n{text}\t ")) == json.dumps(value)
    assert json.dumps(quickjson.loads(text.encode())) == json.dumps(value)


def test_what_only_the_python_encoder_writes_is_left_to_it() -> None:
    assert quickjson.dumps_pretty({"t": (1, 2), 3: "int key"}) == json.dumps(
        {"t": (1, 2), 3: "int key"}, ensure_ascii=False, indent=2
    )
    assert quickjson.dumps_text(float("nan")) == "NaN"


@pytest.mark.parametrize("text", ["", "   ", "{", "[1,]", "1 2", '"open', "{'a': 1}", "NaN x"])
def test_text_that_is_not_json_fails_as_json_fails(text: str) -> None:
    with pytest.raises(json.JSONDecodeError) as expected:
        json.loads(text)
    with pytest.raises(json.JSONDecodeError) as got:
        quickjson.loads(text)
    assert str(got.value) == str(expected.value)


def test_text_that_is_not_json_fails_as_json_fails_where_json_was_never_imported() -> None:
    """As in the CLI's fast path: the C scanner alone cannot even raise its error then."""
    script = "from tabpilot import quickjson\ntry:\n    quickjson.loads('{what')\nexcept ValueError as e:\n    print(e)"
    desktop = str(Path(__file__).resolve().parents[2] / "desktop")
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env={"PYTHONPATH": desktop}, check=True
    )
    assert done.stdout.strip() == "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"


def test_without_the_accelerator_it_is_the_standard_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(quickjson, "FAST", False)
    value = {"a": [1, 2.5, None, True], "é": "x\n"}
    assert quickjson.dumps_pretty(value) == json.dumps(value, ensure_ascii=False, indent=2)
    assert quickjson.dumps_compact(value) == json.dumps(value, separators=(",", ":"))
    assert quickjson.loads('{"a": [1]}') == {"a": [1]}


def test_json_nested_past_the_parser_is_a_value_error_not_a_recursion_error() -> None:
    with pytest.raises(quickjson.TooDeep):
        quickjson.loads("[" * 100_000 + "]" * 100_000)
    with pytest.raises(ValueError):
        quickjson.loads('{"id": 1, "x": ' + "[" * 5_000 + "]" * 5_000 + "}")


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ('{"jsonrpc":"2.0","id":7,"method":"tools/call","params":' + "[" * 5000, {"id": 7, "method": "tools/call"}),
        ('{"params":{"id":1,"method":"inner"},"id":"a\\"b,}","method":"x"}', {"id": 'a"b,}', "method": "x"}),
        ('{ "id" : null , "method" : ["not", "plain"] }', {"id": None}),
        ('{"x":"\\"id\\":3","id":-2.5e3}', {"id": -2500.0}),
        ('["id", 1]', {}),
        ('{"id":', {}),
    ],
)
def test_head_reads_top_level_members_without_parsing_the_rest(text: str, found: dict[str, object]) -> None:
    assert quickjson.head(text, ("id", "method")) == found
