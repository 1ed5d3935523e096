"""Reading numbers from query strings and forms: ASCII digits only (``str.isdigit`` accepts
"²", which ``int`` refuses) and bounded, so no lookup ever overflows a database integer."""

import re

_NATURAL = re.compile(r"[0-9]{1,18}")
MAX_ID = 2**63 - 1  # a bigint primary key


def natural(raw, *, maximum=MAX_ID):
    """``raw`` as an int from 0 to ``maximum``, or None if it is anything else."""
    if not isinstance(raw, str) or not _NATURAL.fullmatch(raw):
        return None
    value = int(raw)
    return value if value <= maximum else None


class IdConverter:
    """``<id:pk>`` in URLs: a database id, so "/games/99999999999999999999/" is a 404, not an
    overflow on SQLite."""

    regex = "[0-9]{1,18}"

    def to_python(self, value):
        value = int(value)
        if value > MAX_ID:
            raise ValueError("too large")
        return value

    def to_url(self, value):
        return str(value)
