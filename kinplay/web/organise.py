"""The organisers' forms (a tournament, a league), built from the API's own serializer.

The page lists the serializer's fields, so it takes every setting the API takes, a field added
to the serializer appearing on the page by itself (under "More settings" until it is given a
label and a section). A post is checked as the API checks it: the serializer
(api.organised.settings_of), then the service, whose refusal is shown beside the field it names.
The kind's game options come from its schema, as on the new-game page (kinplay.web.forms).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from django.shortcuts import render
from rest_framework import serializers as drf

from api.organised import settings_of
from games.registry import kinds
from games.services import BadRequest
from kinplay.web import forms as web_forms

DURATIONS = [(3600, "1 hour"), (12 * 3600, "12 hours"), (86400, "1 day"), (2 * 86400, "2 days"), (3 * 86400, "3 days"),
             (7 * 86400, "7 days"), (14 * 86400, "14 days"), (30 * 86400, "30 days")]
NO_CLOCK = "none"
NULL = object()  # a setting given as null (no clock), where None leaves it to the service's default


@dataclass
class Field:
    """One input of the form: ``name`` is the setting's path in the API's JSON (``clock.per_move``)."""

    name: str
    label: str
    help: str = ""
    type: str = "text"  # text | number | checkbox | select | list | datetime
    choices: list[tuple[str, str]] = field(default_factory=list)
    min: float | None = None
    max: float | None = None
    step: str = "1"
    value: str = ""
    checked: bool = False
    errors: list[str] = field(default_factory=list)
    formats: str = ""  # the formats it applies to, space-separated; empty: all

    @property
    def input(self) -> str:
        return self.name.replace(".", "-")


@dataclass
class Spec:
    """How one kind of competition's serializer is shown: labels and help in players' words,
    choices where the serializer takes a free value, and the sections the fields go in."""

    serializer: type[drf.Serializer]
    labels: dict[str, str]
    sections: list[tuple[str, list[str]]]
    help: dict[str, str] = field(default_factory=dict)
    choices: dict[str, list[tuple[Any, str]]] = field(default_factory=dict)
    initial: dict[str, object] = field(default_factory=dict)
    durations: tuple[str, ...] = ()  # seconds chosen from DURATIONS (null: no clock)
    # Settings of some formats only: shown (and posted) with those (static/organise.js); the service still checks.
    formats: dict[str, tuple[str, ...]] = field(default_factory=dict)


class OrganiserForm:
    """``spec``'s fields, filled from ``data`` (a POST) or the initial values."""

    def __init__(self, spec: Spec, data=None):
        self.spec, self.data = spec, data
        self.errors: list[str] = []  # not about one field
        self.settings: dict | None = None
        self.fields = {f.name: f for f in self._fields(spec.serializer(), "")}
        self.kind = (data or {}).get("kind") or self.fields["kind"].value
        self.kind_options = [{"slug": slug, "name": k.name, "options": web_forms.fill_options(
            web_forms.option_fields(k), data if data is not None and slug == self.kind else None)} for slug, k in kinds().items()]

    # ------------------------------------------------------------ the fields

    def _fields(self, serializer, prefix):
        for name, f in serializer.fields.items():
            path = prefix + name
            if isinstance(f, drf.Serializer):
                yield from self._fields(f, path + ".")
            elif name != "options":  # the kind's own options: kind_options
                yield self._field(path, f)

    def _field(self, path, f) -> Field:
        spec = self.spec
        out = Field(path, spec.labels.get(path) or path.rsplit(".", 1)[-1].replace("_", " ").capitalize(),
                    help=spec.help.get(path, str(f.help_text or "")), formats=" ".join(spec.formats.get(path, ())))
        initial = spec.initial.get(path, None if f.default is drf.empty else f.default)
        if path in spec.durations:
            out.type = "select"
            out.choices = [(str(s), label) for s, label in DURATIONS] + ([(NO_CLOCK, "No clock")] if f.allow_null else [])
        elif path in spec.choices or isinstance(f, drf.ChoiceField):
            out.type = "select"
            given = spec.choices.get(path) or [(c, str(c).replace("_", " ").capitalize()) for c in f.choices]
            out.choices = [(str(c), label) for c, label in given]
        elif path == "kind":
            out.type = "select"
            out.choices = [(slug, k.name) for slug, k in kinds().items()]
            initial = initial or next(iter(kinds()), "")
        elif isinstance(f, drf.BooleanField):
            out.type = "checkbox"
        elif isinstance(f, (drf.IntegerField, drf.FloatField)):
            out.type, out.min, out.max = "number", f.min_value, f.max_value
            out.step = "1" if isinstance(f, drf.IntegerField) else "any"
        elif isinstance(f, drf.ListField):
            out.type = "list"
        elif isinstance(f, drf.DateTimeField):
            out.type = "datetime"
        if self.data is None:
            out.checked = initial is True
            out.value = "" if initial is None or isinstance(initial, bool) else _shown(initial)
        else:
            out.checked = out.input in self.data
            out.value = self.data.get(out.input, "")
        return out

    def sections(self) -> list[tuple[str, list[Field]]]:
        """The spec's sections, then "More settings": every field the spec does not place."""
        placed = {name for _, names in self.spec.sections for name in names}
        out = [(legend, [self.fields[n] for n in names if n in self.fields]) for legend, names in self.spec.sections]
        rest = [f for name, f in self.fields.items() if name not in placed]
        return out + ([("More settings", rest)] if rest else [])

    # ------------------------------------------------------------ checking

    def is_valid(self) -> bool:
        """The post as the API's serializer reads it; ``settings`` then holds the service's arguments."""
        assert self.data is not None
        payload: dict = {}
        for f in self.fields.values():
            value = self._read(f)
            if value is not None:
                at = payload
                *parents, last = f.name.split(".")
                for p in parents:
                    at = at.setdefault(p, {})
                at[last] = None if value is NULL else value
        kind = kinds().get(self.kind)
        if kind is not None:
            try:
                payload["options"] = web_forms.read_options(kind, self.data)
            except web_forms.OptionError as exc:
                self.errors.append(str(exc))
        try:
            self.settings = settings_of(self.spec.serializer, payload)
        except drf.ValidationError as exc:
            self._place(exc.detail, "")
            self.settings = None
        return self.settings is not None and not self.has_errors()

    def _read(self, f: Field):
        """The field's post in the JSON the API takes; None: left out (the service's default)."""
        if f.type == "checkbox":
            return f.checked
        raw = f.value.strip()
        if f.type == "select" and f.name in self.spec.durations:
            return NULL if raw == NO_CLOCK else raw or None
        if not raw:
            return None
        if f.type == "list":
            return [x.strip() for x in re.split(r"[,;\s]+", raw) if x.strip()]
        return raw

    def _place(self, detail, prefix):
        """DRF's errors (nested as the data is) beside their fields."""
        if isinstance(detail, dict):
            for key, value in detail.items():
                name = f"{prefix}{key}"
                if name in self.fields and not isinstance(value, dict):
                    self.fields[name].errors += [str(x) for x in _flat(value)]
                elif isinstance(key, int) and prefix.rstrip(".") in self.fields:  # an item of a list
                    self.fields[prefix.rstrip(".")].errors += [f"item {key + 1}: {x}" for x in _flat(value)]
                else:
                    self._place(value, name + ".")
        else:
            self.errors += [str(x) for x in _flat(detail)]

    def refused(self, message: str):
        """The service's refusal, beside the setting it starts with (“rounds must be …”), in the
        field's own words; else above the form."""
        head = re.match(r"[a-z_]+(\.[a-z_]+)?", message)
        f = self.fields.get(head.group(0)) if head else None
        if f is None or head is None:
            self.errors.append(message)
        elif message[head.end():].startswith(" must"):
            f.errors.append(f.label + message[head.end():])
        else:
            f.errors.append(message)

    def invalid_fields(self) -> list[Field]:
        return [f for f in self.fields.values() if f.errors]

    def has_errors(self) -> bool:
        return bool(self.errors or self.invalid_fields())


def _flat(value):
    if isinstance(value, dict):
        for v in value.values():
            yield from _flat(v)
    elif isinstance(value, list):
        for v in value:
            yield from _flat(v)
    else:
        yield value


def _shown(value) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def page(request, spec: Spec, create, template: str, created):
    """The create page of one kind of competition: ``create`` (the service) takes the checked
    settings, ``created(row)`` answers a success; a refusal comes back as a 400 with the form."""
    form = OrganiserForm(spec, request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            row = create(organiser=request.user, **(form.settings or {}))
        except BadRequest as exc:
            form.refused(str(exc))
        else:
            return created(row)
    return render(request, template, {"form": form}, status=400 if form.has_errors() else 200)
