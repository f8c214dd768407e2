"""The HTTP Archive 1.2 format as a JSON Schema (http://www.softwareishard.com/blog/har-12-spec/): every
object and field the spec requires, with its type, and the timings' rules (send, wait and receive are never
negative; the optional phases are -1 when they do not apply). A test validates a generated HAR with it."""

from __future__ import annotations

from typing import Any

import jsonschema

_PAIR = {
    "type": "object",
    "required": ["name", "value"],
    "properties": {"name": {"type": "string"}, "value": {"type": "string"}},
}
_PAIRS = {"type": "array", "items": _PAIR}
_OPTIONAL_PHASE = {"type": "number", "minimum": -1}
_PHASE = {"type": "number", "minimum": 0}
_DATE = {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$"}

HAR_1_2: dict[str, Any] = {
    "type": "object",
    "required": ["log"],
    "properties": {
        "log": {
            "type": "object",
            "required": ["version", "creator", "entries"],
            "properties": {
                "version": {"const": "1.2"},
                "creator": {
                    "type": "object",
                    "required": ["name", "version"],
                    "properties": {"name": {"type": "string"}, "version": {"type": "string"}},
                },
                "pages": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["startedDateTime", "id", "title", "pageTimings"],
                        "properties": {
                            "startedDateTime": _DATE,
                            "id": {"type": "string"},
                            "title": {"type": "string"},
                            "pageTimings": {
                                "type": "object",
                                "properties": {"onContentLoad": _OPTIONAL_PHASE, "onLoad": _OPTIONAL_PHASE},
                            },
                        },
                    },
                },
                "entries": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "required": ["startedDateTime", "time", "request", "response", "cache", "timings"],
                        "properties": {
                            "pageref": {"type": "string"},
                            "startedDateTime": _DATE,
                            "time": _PHASE,
                            "request": {
                                "type": "object",
                                "required": [
                                    "method",
                                    "url",
                                    "httpVersion",
                                    "cookies",
                                    "headers",
                                    "queryString",
                                    "headersSize",
                                    "bodySize",
                                ],
                                "properties": {
                                    "method": {"type": "string", "minLength": 1},
                                    "url": {"type": "string", "minLength": 1},
                                    "httpVersion": {"type": "string"},
                                    "cookies": _PAIRS,
                                    "headers": _PAIRS,
                                    "queryString": _PAIRS,
                                    "postData": {
                                        "type": "object",
                                        "required": ["mimeType"],
                                        "properties": {"mimeType": {"type": "string"}, "text": {"type": "string"}},
                                    },
                                    "headersSize": {"type": "integer", "minimum": -1},
                                    "bodySize": {"type": "integer", "minimum": -1},
                                },
                            },
                            "response": {
                                "type": "object",
                                "required": [
                                    "status",
                                    "statusText",
                                    "httpVersion",
                                    "cookies",
                                    "headers",
                                    "content",
                                    "redirectURL",
                                    "headersSize",
                                    "bodySize",
                                ],
                                "properties": {
                                    "status": {"type": "integer", "minimum": 0},
                                    "statusText": {"type": "string"},
                                    "httpVersion": {"type": "string"},
                                    "cookies": _PAIRS,
                                    "headers": _PAIRS,
                                    "content": {
                                        "type": "object",
                                        "required": ["size", "mimeType"],
                                        "properties": {
                                            "size": {"type": "integer", "minimum": 0},
                                            "mimeType": {"type": "string"},
                                            "text": {"type": "string"},
                                        },
                                    },
                                    "redirectURL": {"type": "string"},
                                    "headersSize": {"type": "integer", "minimum": -1},
                                    "bodySize": {"type": "integer", "minimum": -1},
                                },
                            },
                            "cache": {"type": "object"},
                            "timings": {
                                "type": "object",
                                "required": ["send", "wait", "receive"],
                                "properties": {
                                    "blocked": _OPTIONAL_PHASE,
                                    "dns": _OPTIONAL_PHASE,
                                    "connect": _OPTIONAL_PHASE,
                                    "ssl": _OPTIONAL_PHASE,
                                    "send": _PHASE,
                                    "wait": _PHASE,
                                    "receive": _PHASE,
                                },
                            },
                        },
                    },
                },
            },
        }
    },
}


def validate_har(har: Any) -> None:
    """Raise jsonschema.ValidationError when `har` is not a HAR 1.2 document."""
    jsonschema.validate(har, HAR_1_2)
