"""api/renderers.py and api/parsers.py: orjson in and out, with DRF's own JSON as the reference."""

import datetime
import decimal
import io
import uuid
import zoneinfo

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
    "whole_second": datetime.datetime(2026, 11, 24, 11, 30, 5, tzinfo=datetime.UTC),
    "london_winter": datetime.datetime(2026, 1, 24, 11, 30, 5, 7, tzinfo=zoneinfo.ZoneInfo("Europe/London")),
    "offset": datetime.datetime(2026, 11, 24, 11, 30, tzinfo=datetime.timezone(datetime.timedelta(hours=-5, minutes=-30))),
    "time": datetime.time(11, 30, 5, 40),
    "price": decimal.Decimal("1.50"),
    "id": uuid.UUID("12345678-1234-5678-1234-567812345678"),
    "lazy": gettext_lazy("Not found."),
    "names": ("alice", "bob", "Zoë", "line\u2028sep"),
    7: "an int key",
    "nested": [{"a": None, "b": True, "c": 1.25}],
}


def test_it_writes_the_same_bytes_as_drf():
    assert JSONRenderer().render(AWKWARD) == renderers.JSONRenderer().render(AWKWARD)


def test_it_writes_datetimes_without_drfs_encoder(monkeypatch):
    # orjson writes them in a fraction of the time: a move's answer holds one for each event
    def refuse(value):
        raise AssertionError(f"{value!r} went through DRF's encoder")

    monkeypatch.setattr("api.renderers._default", refuse)
    times = {k: v for k, v in AWKWARD.items() if isinstance(v, (datetime.date, datetime.time))}
    assert JSONRenderer().render(times) == renderers.JSONRenderer().render(times)


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
