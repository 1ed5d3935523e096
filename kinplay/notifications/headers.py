"""Header values as they arrived: the stdlib's structured header parser raises on some hostile
values (an IndexError for From: ""@x), so what only needs the text reads it raw."""

import re

SURROGATES = re.compile("[\ud800-\udfff]")


def clean(text: str) -> str:
    """Text a database can store: bytes that were not UTF-8 (kept by the parser as lone
    surrogates) and NUL become U+FFFD."""
    return SURROGATES.sub("\ufffd", text).replace("\x00", "\ufffd")


def values(msg, name: str) -> list[str]:
    name = name.lower()
    return [clean(re.sub(r"\r?\n[ \t]+", " ", str(v))).strip() for k, v in msg.raw_items() if k.lower() == name]


def first(msg, name: str) -> str | None:
    found = values(msg, name)
    return found[0] if found else None
