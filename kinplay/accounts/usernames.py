"""One username rule for the sign-up page and the API.

A name is stored NFKC-normalised ("ａｌｉｃｅ" is "alice"), and no two names may look alike: each
has a key, its confusable skeleton folded to lower case (Cyrillic "аlice" and Latin "alice"
share the key "alice"), unique in the database (Profile.username_key).
"""

import re
import unicodedata

from confusable_homoglyphs import confusables
from django.core.exceptions import ValidationError

from kinplay.accounts.models import Profile

PATTERN = re.compile(r"[\w.@+-]{2,30}")
RULE = "2 to 30 letters, digits or . @ + - _"


def normalise(name: str) -> str:
    return unicodedata.normalize("NFKC", name or "").strip()


def key(name: str) -> str:
    """The skeleton of a name: each character that can be mistaken for a Latin one becomes that
    Latin character (Unicode's confusables data), then case-folded."""
    out = []
    for ch in normalise(name).casefold():
        found = confusables.is_confusable(ch, greedy=True, preferred_aliases=["latin"]) if not ch.isascii() else None
        latin = next((h["c"] for f in found or [] for h in f["homoglyphs"] if h["c"].isascii()), None)
        out.append(latin or ch)
    return unicodedata.normalize("NFKC", "".join(out)).casefold()


def clean(name: str) -> str:
    """The name as it will be stored; ValidationError if it breaks the rule or looks like a
    name already taken."""
    name = normalise(name)
    if not PATTERN.fullmatch(name):
        raise ValidationError(RULE, code="invalid")
    if Profile.objects.filter(username_key=key(name)).exists():
        raise taken()
    return name


def taken() -> ValidationError:
    return ValidationError("This username is taken (or looks too much like one that is). Please choose another one.",
                           code="taken")
