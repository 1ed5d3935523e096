"""Forms of the web pages. Game rules are checked by games.services, not here."""

from __future__ import annotations

from datetime import time
from functools import cache
from zoneinfo import available_timezones

from django import forms
from django.conf import settings
from django.contrib.auth import forms as auth_forms
from django.contrib.auth import get_user_model, password_validation

from games.services import BOTS
from kinplay.accounts import services as account_services
from kinplay.accounts import usernames
from kinplay.accounts.models import Profile

PER_MOVE_CHOICES = [
    ("none", "No clock"),
    ("60", "1 minute"),
    ("3600", "1 hour"),
    ("86400", "1 day"),
    ("259200", "3 days"),
    ("604800", "7 days"),
    ("custom", "Seconds…"),
]
WINDOW_CHOICES = [
    ("", "As long as a move"),
    ("60", "1 minute"),
    ("3600", "1 hour"),
    ("86400", "1 day"),
]
ON_TIMEOUT_CHOICES = [
    ("bot", "A bot plays for them"),
    ("skip", "Skip their move"),
    ("forfeit", "They forfeit"),
]
SEAT_CHOICES = [
    ("heuristic", "Bot (heuristic)"),
    ("random", "Bot (random)"),
    ("open", "Open seat"),
    ("user", "A player…"),
]


class SignUpForm(forms.Form):
    username = forms.CharField(
        max_length=150, help_text=f"{usernames.RULE[0].upper()}{usernames.RULE[1:]}.",
        widget=forms.TextInput(attrs={"autocomplete": "username", "autocapitalize": "none", "autofocus": True}),
    )
    email = forms.EmailField(
        help_text="For “your turn” emails. You can switch them off.",
        widget=forms.EmailInput(attrs={"autocomplete": "email"}),
    )
    password = forms.CharField(
        strip=False, help_text="At least 8 characters, not like your name or address.",
        widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}),
    )
    # The device's time zone, filled in by kinplay.js: deadlines in emails and quiet hours are
    # right from the first day, without a visit to Settings. Unknown or missing: UTC, as before.
    time_zone = forms.CharField(required=False, widget=forms.HiddenInput(attrs={"data-device-time-zone": ""}))

    def clean_time_zone(self):
        zone = self.cleaned_data["time_zone"]
        return zone if zone in time_zones() else ""

    def clean_username(self):
        return usernames.clean(self.cleaned_data["username"])  # the API's rule too

    def clean(self):
        data = super().clean()
        password = data.get("password")
        if password:
            user = get_user_model()(username=data.get("username", ""), email=data.get("email", ""))
            try:
                password_validation.validate_password(password, user)
            except forms.ValidationError as exc:
                self.add_error("password", exc)
        return data

    def save(self):
        d = self.cleaned_data
        try:
            return account_services.register(d["username"], d["email"], d["password"])
        except forms.ValidationError as exc:
            for field, errors in exc.message_dict.items():
                self.add_error(field, errors)
            return None


class SignInForm(auth_forms.AuthenticationForm):
    """Django's sign-in form, saying what is true here: a name signs in in any case
    (accounts.backends.NameInAnyCaseBackend), only the password must match exactly."""

    error_messages = {
        **auth_forms.AuthenticationForm.error_messages,
        "invalid_login": "That username and password do not match. Check the password: capitals count there "
                         "(not in the username).",
    }


class PasswordResetForm(auth_forms.PasswordResetForm):
    """Django's reset page, but the request only queues the lookup (kinplay.accounts.services):
    a known address and an unknown one get the same page after the same work."""

    def save(self, *args, **kwargs):
        account_services.ask_password_reset(self.cleaned_data["email"])


class SettingsForm(forms.Form):
    email = forms.EmailField(required=False, widget=forms.EmailInput(attrs={"autocomplete": "email"}))
    email_turns = forms.BooleanField(required=False, label="Email me when it is my turn")
    email_every = forms.TypedChoiceField(choices=Profile.EMAIL_EVERY, coerce=int, initial=Profile.EACH_TURN,
                                         label="How often", required=False, empty_value=None)
    # Left out of a post (an older client): the saved value stays.
    email_on_site = forms.TypedChoiceField(choices=Profile.EMAIL_ON_SITE, coerce=lambda v: v == "True", initial=False,
                                           label="While I am on the site", required=False, empty_value=None)
    time_zone = forms.ChoiceField(label="My time zone", initial="UTC", required=False)
    quiet_hours = forms.BooleanField(required=False, label="Quiet hours")
    # Left out of a post (an older client): the saved value stays.
    quiet_from = forms.TimeField(label="From", initial=time(23, 0), required=False, widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"))
    quiet_to = forms.TimeField(label="To", initial=time(7, 0), required=False, widget=forms.TimeInput(attrs={"type": "time"}, format="%H:%M"))
    confirm_moves = forms.BooleanField(required=False, label="Confirm each move")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["time_zone"].choices = time_zone_groups()


@cache
def time_zones() -> list[str]:
    return sorted(z for z in available_timezones() if "/" in z and not z.startswith(("Etc/", "SystemV/"))) + ["UTC"]


@cache
def time_zone_groups() -> list[tuple[str, str | list[tuple[str, str]]]]:
    """The zones under their continent (an <optgroup>), each named without it: the chosen one,
    "Argentina/Buenos Aires", fits the closed select on a 360 px phone, where
    "America/Argentina/Buenos Aires" was cut off. UTC, of no continent, last on its own."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for z in time_zones():
        if "/" in z:
            continent, place = z.split("/", 1)
            groups.setdefault(continent, []).append((z, place.replace("_", " ")))
    return [*groups.items(), ("UTC", "UTC")]


class NewGameForm(forms.Form):
    """The fixed part of the new-game form; options and seats depend on the kind
    and are read by ``read_options`` / ``read_seats``."""

    kind = forms.ChoiceField(choices=[])
    players = forms.IntegerField(min_value=1, max_value=99)
    per_move = forms.ChoiceField(choices=PER_MOVE_CHOICES, initial="259200", label="Time per move")
    per_move_seconds = forms.IntegerField(
        required=False, min_value=1, max_value=settings.MAX_PER_MOVE_SECONDS, label="Seconds per move",
        error_messages={"max_value": f"At most %(limit_value)s seconds ({settings.MAX_PER_MOVE_SECONDS // 86400} days)."})
    on_timeout = forms.ChoiceField(choices=ON_TIMEOUT_CHOICES, initial="bot", label="When time runs out")
    rated = forms.BooleanField(required=False, initial=True, label="Rated game")
    window = forms.ChoiceField(choices=WINDOW_CHOICES, required=False, label="Reaction windows")
    invite_only = forms.BooleanField(required=False, label="Invited players only")

    def __init__(self, *args, kinds=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.kinds = kinds or {}
        self.fields["kind"].choices = [(slug, k.name) for slug, k in self.kinds.items()]

    def clean(self):
        data = super().clean()
        if data.get("per_move") == "custom" and not data.get("per_move_seconds") and "per_move_seconds" not in self.errors:
            self.add_error("per_move_seconds", "Give the number of seconds per move.")
        return data

    def clock(self):
        d = self.cleaned_data
        if d["per_move"] == "none":
            per_move = None
        elif d["per_move"] == "custom":
            per_move = d["per_move_seconds"]
        else:
            per_move = int(d["per_move"])
        return per_move, d["on_timeout"]

    def window_seconds(self):
        """Seconds a reaction window stays open (None: as long as a move)."""
        raw = self.cleaned_data.get("window")
        return int(raw) if raw else None


def _types(prop) -> tuple[str, bool]:
    """The base JSON type of a property, and whether null is allowed."""
    t = prop.get("type", "string")
    types = t if isinstance(t, list) else [t]
    base = next((x for x in types if x != "null"), "string")
    return base, "null" in types


def option_fields(kind) -> list[dict]:
    """The kind's OPTIONS_SCHEMA as a list of form fields for the template.

    Booleans become switches, enums selects, integers and numbers number inputs;
    an array of enums with a fixed length (one per player, say) becomes one select
    per item.
    """
    out = []
    for name, prop in kind.rules.OPTIONS_SCHEMA.get("properties", {}).items():
        base, nullable = _types(prop)
        field = {
            "name": name, "input": f"opt-{kind.slug}-{name}",
            "title": prop.get("title") or name.replace("_", " ").capitalize(),
            "description": prop.get("description", ""), "default": prop.get("default"), "nullable": nullable,
        }
        items = prop.get("items") or {}
        if "enum" in prop:
            field.update(type="enum", choices=[str(c) for c in prop["enum"]])
        elif base == "boolean":
            field["type"] = "boolean"
        elif base in ("integer", "number"):
            field.update(type=base, min=prop.get("minimum"), max=prop.get("maximum"))
        elif base == "array" and "enum" in items and prop.get("minItems") == prop.get("maxItems") is not None:
            default = prop.get("default") or []
            field.update(type="array", choices=[str(c) for c in items["enum"]], items=[
                {"input": f"{field['input']}-{i}", "label": f"Player {i + 1}",
                 "default": str(default[i]) if i < len(default) else str(items["enum"][0])}
                for i in range(prop["maxItems"])])
        else:
            field["type"] = "text"
        out.append(field)
    return out


def fill_options(fields: list[dict], data=None) -> list[dict]:
    """``option_fields`` with the values to show: what was posted (``data``: a form that comes back
    with an error), else the defaults."""
    for f in fields:
        if data is not None:
            f["value"] = data.get(f["input"], "")
            f["checked"] = f["input"] in data
        else:
            f["value"] = "" if f["default"] is None else str(f["default"])
            f["checked"] = f["default"] is True
        for item in f.get("items", []):
            item["value"] = data.get(item["input"], item["default"]) if data is not None else item["default"]
    return fields


class OptionError(Exception):
    """A choice of the new-game form that cannot work; ``seat``: the seat row it is about, which
    the form marks and explains where the player typed the name."""

    def __init__(self, message: str, seat: int | None = None):
        super().__init__(message)
        self.seat = seat


def read_options(kind, post) -> dict:
    """Typed options from the POST data; the schema itself is checked by services."""
    props = kind.rules.OPTIONS_SCHEMA.get("properties", {})
    options: dict[str, object] = {}  # JSON values, of the types the schema declares
    for field in option_fields(kind):
        name, prop = field["name"], props[field["name"]]
        if field["type"] == "boolean":
            options[name] = post.get(field["input"]) in ("on", "true", "1", "yes")
            continue
        if field["type"] == "array":
            enum = prop["items"]["enum"]
            values = []
            for item in field["items"]:
                raw = post.get(item["input"], item["default"])
                match = [c for c in enum if str(c) == raw]
                if not match:
                    raise OptionError(f"{field['title']} ({item['label']}): choose one of {', '.join(map(str, enum))}.")
                values.append(match[0])
            options[name] = values
            continue
        raw = post.get(field["input"])
        if raw is None or raw.strip() == "":
            if field["nullable"]:
                options[name] = None
            continue
        raw = raw.strip()
        if field["type"] == "enum":
            match = [c for c in prop["enum"] if str(c) == raw]
            if not match:
                raise OptionError(f"{field['title']}: choose one of {', '.join(map(str, prop['enum']))}.")
            options[name] = match[0]
        elif field["type"] in ("integer", "number"):
            try:
                options[name] = int(raw) if field["type"] == "integer" else float(raw)
            except ValueError:
                raise OptionError(f"{field['title']} must be a {'whole ' if field['type'] == 'integer' else ''}number.") from None
        else:
            options[name] = raw
    return options


def read_seats(post, players: int, me) -> list[dict]:
    """Seat 1 is the creator; the others come from seat-N-type / seat-N-user."""
    seats = [{"user": me.username}]
    at = {me.username.lower(): 1}  # who sits where, by name as names compare (case aside)
    for i in range(2, players + 1):
        kind = post.get(f"seat-{i}-type", "heuristic")
        if kind in BOTS:
            seats.append({"bot": kind})
        elif kind == "open":
            seats.append({})
        elif kind == "user":
            name = (post.get(f"seat-{i}-user") or "").strip()
            if not name:
                raise OptionError(f"Seat {i}: type the username of the player, or choose a bot or an open seat.", seat=i)
            # Said here, beside the seat, in players' words (the service refuses these too, in the API's)
            if name.lower() in at:
                who = "you sit" if at[name.lower()] == 1 else f"{name} sits"
                raise OptionError(f"Seat {i}: {who} at seat {at[name.lower()]} already. Type someone else's "
                                  f"username, or choose a bot or an open seat.", seat=i)
            if not get_user_model().objects.filter(username__iexact=name, is_active=True).exists():
                raise OptionError(f"Seat {i}: nobody here is called “{name}”. Check the spelling, or choose an "
                                  f"open seat and send your friend the game's address.", seat=i)
            at[name.lower()] = i
            seats.append({"user": name})
        else:
            raise OptionError(f"Seat {i}: choose a bot, an open seat or a player.")
    return seats
