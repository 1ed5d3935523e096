"""Reading numbers (and yes/no) from query strings and forms: ASCII digits only (``str.isdigit`` accepts
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


FLAGS = {"1": True, "true": True, "yes": True, "0": False, "false": False, "no": False}
UNSET = object()


def flag(raw):
    """A query string's yes/no: None when absent, True or False, or UNSET for anything else
    (the caller answers 400 rather than read "maybe" as no)."""
    if raw is None:
        return None
    return FLAGS.get(raw.strip().lower(), UNSET)


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
