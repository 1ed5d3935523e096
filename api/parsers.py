"""The API's JSON parser, bounded: a body over DATA_UPLOAD_MAX_MEMORY_SIZE is a 413 and JSON
nested deeper than MAX_DEPTH a 400, before any of it reaches a view (DRF reads the body
itself, past Django's own size check)."""

import json

import orjson
from django.conf import settings
from rest_framework import exceptions, parsers, status

MAX_DEPTH = 32


class TooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is too large."
    default_code = "too_large"


class JSONParser(parsers.JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read(limit + 1) if stream is not None else b""
        if len(raw) > limit:
            raise TooLarge(f"The request body is larger than {limit} bytes.")
        encoding = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            if encoding.lower().replace("-", "") == "utf8":
                data = orjson.loads(raw)  # faster than json; refuses NaN and Infinity by itself
            else:
                data = json.loads(raw.decode(encoding), parse_constant=_no_constant)
        except RecursionError:
            raise exceptions.ParseError(f"JSON nested deeper than {MAX_DEPTH} levels.") from None
        except ValueError as exc:  # orjson.JSONDecodeError is one
            if "recursion" in str(exc):  # orjson stops at 1,024 levels
                raise exceptions.ParseError(f"JSON nested deeper than {MAX_DEPTH} levels.") from None
            raise exceptions.ParseError(f"JSON parse error: {exc}") from None
        if depth(data) > MAX_DEPTH:
            raise exceptions.ParseError(f"JSON nested deeper than {MAX_DEPTH} levels.")
        return data


def _no_constant(name):
    raise ValueError(f"{name} is not JSON")


def depth(value) -> int:
    """How deeply lists and objects nest (iteratively: no recursion on hostile input)."""
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict):
            item = list(item.values())
        if isinstance(item, list):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                return depth
            todo.extend((child, depth + 1) for child in item)
    return deepest
