"""JSON in and out of the API with orjson: the same bytes DRF's JSONRenderer writes (compact,
UTF-8, datetimes and other non-JSON types through DRF's own encoder), in a fraction of the time.
make bench-peer counts the answer's encoding and the body's parsing in every move's CPU."""

import orjson
from django.conf import settings
from rest_framework import parsers, renderers
from rest_framework.exceptions import ParseError
from rest_framework.utils.encoders import JSONEncoder

# DRF's formats for datetimes (milliseconds, "Z"), decimals, lazy strings, querysets...
_default = JSONEncoder().default
_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME


class JSONRenderer(renderers.JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        if self.get_indent(accepted_media_type, renderer_context or {}):
            return super().render(data, accepted_media_type, renderer_context)  # "; indent=4" asked for
        out = orjson.dumps(data, default=_default, option=_OPTIONS)
        # As DRF does: a strict JavaScript subset, whatever the strings hold.
        if b"\xe2\x80\xa8" in out or b"\xe2\x80\xa9" in out:
            out = out.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
        return out


class JSONParser(parsers.JSONParser):
    renderer_class = JSONRenderer

    def parse(self, stream, media_type=None, parser_context=None):
        charset = (parser_context or {}).get("encoding", settings.DEFAULT_CHARSET)
        try:
            raw = stream.read()
            if charset.lower().replace("-", "") not in ("utf8", ""):
                raw = raw.decode(charset)
            return orjson.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:  # orjson.JSONDecodeError is a ValueError
            raise ParseError(f"JSON parse error - {exc}") from exc
