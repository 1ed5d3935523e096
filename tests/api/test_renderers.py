"""api/renderers.py and api/parsers.py: orjson in and out, with DRF's own JSON as the reference."""

import datetime
import decimal
import io
import uuid

import pytest
from django.utils.translation import gettext_lazy
from rest_framework import renderers
from rest_framework.exceptions import ParseError

from api.parsers import JSONParser
from api.renderers import JSONRenderer

pytestmark = pytest.mark.django_db

AWKWARD = {
    "when": datetime.datetime(2026, 11, 24, 11, 30, 5, 123456, tzinfo=datetime.UTC),
    "day": datetime.date(2026, 11, 24),
    "naive": datetime.datetime(2026, 11, 24, 11, 30),
    "price": decimal.Decimal("1.50"),
    "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "lazy": gettext_lazy("Not found."),
    "names": ("alice", "bob", "Zoë", "line\u2028sep"),
    7: "an int key",
    "nested": [{"a": None, "b": True, "c": 1.25}],
}


def test_it_writes_the_same_bytes_as_drf():
    assert JSONRenderer().render(AWKWARD) == renderers.JSONRenderer().render(AWKWARD)


def test_it_honours_an_indent_asked_for_in_accept():
    ours = JSONRenderer().render({"a": [1]}, "application/json; indent=2")
    assert ours == renderers.JSONRenderer().render({"a": [1]}, "application/json; indent=2") and b"\n" in ours


def test_it_parses_bodies_and_refuses_malformed_ones():
    assert JSONParser().parse(io.BytesIO('{"seat": 1, "name": "Zoë"}'.encode())) == {"seat": 1, "name": "Zoë"}
    for bad in (b"{", b'{"a": NaN}', b"\xff"):
        with pytest.raises(ParseError):
            JSONParser().parse(io.BytesIO(bad))


def test_it_answers_a_malformed_body_with_a_400(api, alice):
    r = api(alice).generic("POST", "/api/games/", "{nope", content_type="application/json")
    assert r.status_code == 400 and r.json()["error"] == "malformed"
