"""The API's answers encoded with orjson: the same bytes DRF's JSONRenderer writes (compact,
UTF-8, datetimes and other non-JSON types as DRF's own encoder writes them), in a fraction of the
time (make bench-peer counts it in every move's CPU). Bodies are parsed in api/parsers.py."""

import orjson
from rest_framework import renderers
from rest_framework.utils.encoders import JSONEncoder

# DRF's formats for decimals, lazy strings, querysets...
_default = JSONEncoder().default
# Datetimes, dates and times orjson writes itself as DRF does (isoformat, "Z" for UTC): through
# DRF's encoder they took half the time of a move's answer (its events' "at").
_OPTIONS = orjson.OPT_UTC_Z


class JSONRenderer(renderers.JSONRenderer):
    def render(self, data, accepted_media_type=None, renderer_context=None):
        if data is None:
            return b""
        if self.get_indent(accepted_media_type, renderer_context or {}):
            return super().render(data, accepted_media_type, renderer_context)  # "; indent=4" asked for
        try:
            out = orjson.dumps(data, default=_default, option=_OPTIONS)
        except TypeError:  # a key that is no text, written as json writes it (7 as "7"); orjson's
            # option for those makes every answer two thirds slower to write, so only when needed
            out = orjson.dumps(data, default=_default, option=_OPTIONS | orjson.OPT_NON_STR_KEYS)
        # As DRF does: a strict JavaScript subset, whatever the strings hold.
        if b"\xe2\x80\xa8" in out or b"\xe2\x80\xa9" in out:
            out = out.replace(b"\xe2\x80\xa8", b"\\u2028").replace(b"\xe2\x80\xa9", b"\\u2029")
        return out
