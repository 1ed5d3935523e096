from functools import cache

from django.conf import settings
from django.core.validators import RegexValidator
from rest_framework import serializers

from games.models import ChatMessage, Game
from games.registry import kinds
from games.services import BOTS, MAX_NOTATION, Unprocessable
from kinplay.accounts import usernames


def valid(serializer_class, data):
    """``data`` as ``serializer_class`` validates it (its validated_data), or DRF's
    ValidationError: what ``is_valid(raise_exception=True)`` gives, through one bound instance
    per class (``_bound``) rather than a new one per request, which would build every field
    again."""
    return _bound(serializer_class).run_validation(data)


@cache
def _bound(serializer_class):
    # run_validation keeps nothing of the data on the instance: one serves every request and thread
    return serializer_class()


class RegisterSerializer(serializers.Serializer):
    username = serializers.CharField(max_length=150, validators=[RegexValidator(f"^{usernames.PATTERN.pattern}$", usernames.RULE)],
                                     help_text=f"{usernames.RULE}; stored NFKC-normalised.")
    email = serializers.EmailField()
    password = serializers.CharField(write_only=True, min_length=settings.PASSWORD_MIN_LENGTH, max_length=4096,
                                     help_text="not a common password, not all digits, not like the name or address")


class TokenRequestSerializer(serializers.Serializer):
    username = serializers.CharField(min_length=1, max_length=150)
    password = serializers.CharField(min_length=1, max_length=4096)


class ClockSerializer(serializers.Serializer):
    per_move = serializers.IntegerField(min_value=1, max_value=settings.MAX_PER_MOVE_SECONDS, allow_null=True,
                                        required=False)
    on_timeout = serializers.ChoiceField(["bot", "skip", "forfeit"], default="bot")
    window = serializers.IntegerField(min_value=1, allow_null=True, required=False,
                                      help_text="seconds a reaction window stays open (≤ per_move); default: per_move")


MAX_SEATS = 16


class KindField(serializers.ChoiceField):
    """A kind's slug: the schema lists the kinds installed, and a kind registered since (a
    test's) is one too."""

    def __init__(self, **kwargs):
        super().__init__(list(kinds()), help_text="a slug of GET /api/kinds/", **kwargs)

    def to_internal_value(self, data):
        if isinstance(data, str) and data in kinds():
            return data
        raise serializers.ValidationError(f"Unknown kind “{data}”. Kinds: {', '.join(kinds())}.", code="invalid_choice")


class SeatIn(serializers.Serializer):
    """One seat of a new game: a player, a bot, or neither (an open seat); both is a 422."""

    user = serializers.CharField(required=False, min_length=1, max_length=150, help_text="a player's username")
    bot = serializers.ChoiceField(BOTS, required=False)


class CreateGameSerializer(serializers.Serializer):
    kind = KindField()
    options = serializers.DictField(required=False, default=dict, help_text=(
        "the kind's options, as its JSON schema in GET /api/kinds/ gives them; left out, the defaults"))
    seats = serializers.ListField(child=SeatIn(), min_length=1, max_length=MAX_SEATS, help_text=(
        'one object per seat, in seat order (the count must be one of the kind\'s player_counts): '
        '{"user": name} a player (anyone but you is invited and accepts first), '
        '{"bot": "random"} or {"bot": "heuristic"} a bot, {} an open seat anyone may join. '
        "The game starts once every seat is taken."))
    clock = ClockSerializer(required=False)
    rated = serializers.BooleanField(default=True, help_text="false: a friendly game that changes no rating")
    invite_only = serializers.BooleanField(default=False, help_text="cancel the game if an invitation is declined or lapses, instead of opening the seat")


class SeatChoiceSerializer(serializers.Serializer):
    choice = serializers.CharField(required=False, allow_null=True, min_length=1, max_length=32, help_text=(
        "what you choose taking the seat, where the game has a choice: a Kenta colour no other seated "
        "player has (red, blue, green, yellow, purple); left out, the seat's own colour"))


class ActionSerializer(serializers.Serializer):
    action = serializers.DictField(required=False, help_text=(
        "the `action` of one of the game's legal_actions, as given (send this or notation)"))
    notation = serializers.CharField(required=False, min_length=1, max_length=MAX_NOTATION, help_text=(
        "the `notation` of one of the game's legal_actions (case and spacing aside; send this or action)"))
    expected_version = serializers.IntegerField(required=False, min_value=0, max_value=2**31 - 1, help_text=(
        "the game's version you decided on: if the game has moved since, 409 and nothing changes; "
        "left out, the move is tried against the game as it is"))

    def validate(self, data):
        if ("action" in data) == ("notation" in data):
            raise Unprocessable("Send exactly one of “action” or “notation”.")
        return data


# ---------------------------------------------------------------- what the API answers


# Every code api.errors answers with (a test holds it to that): clients branch on these, so a
# description, not an enum: a generated client must not break on a code added later.
ERROR_CODES = (
    "a stable code, with the status it comes with:\n\n"
    "* `malformed` (400): the body is not valid JSON\n"
    "* `invalid` (400): the body, or a field of it, fails its check; `detail` names the field (`clock.per_move: ...`)\n"
    "* `bad_request` (400): a query parameter, a header or a value the server refuses (an unknown kind, a seat, "
    "an option); `detail` says which\n"
    "* `illegal_action` (400): the rules refuse the move, or the game is not in a state for the request "
    "(not started, over, full); `detail` says why in a player's words\n"
    "* `not_authenticated` (401): no token, an unknown one, or a wrong username or password\n"
    "* `forbidden` (403): not yours to do (no seat at this game, not its creator)\n"
    "* `not_found` (404): no such game, player, kind or address\n"
    "* `method_not_allowed` (405), `not_acceptable` (406)\n"
    "* `version_conflict` (409): `expected_version` is not the game's version, which `version` gives: "
    "read the game and decide again\n"
    "* `too_large` (413): the body is larger than the server takes\n"
    "* `unsupported_media_type` (415): send `Content-Type: application/json`\n"
    "* `idempotency_key_reused` (422): this `Idempotency-Key` was used for a different request\n"
    "* `throttled` (429): too many requests; wait the `Retry-After` seconds\n"
    "* `trailing_slash` (308): the address lacks its final slash; `Location` has it (follow it with the same request)\n"
    "* `server_error` (500): our fault, and logged\n"
    "* `unavailable` (503): the database cannot be reached just now (a restart); try again after `Retry-After` seconds\n"
    "* `error`: any other refusal (the status says which)")


class ErrorOut(serializers.Serializer):
    error = serializers.CharField(help_text=ERROR_CODES)
    detail = serializers.CharField(help_text="a sentence for a person")
    version = serializers.IntegerField(required=False, help_text="409 only: the game's current version")


class RegisteredOut(serializers.Serializer):
    id = serializers.IntegerField()
    username = serializers.CharField()
    token = serializers.CharField()
    detail = serializers.CharField(help_text="the address gets a confirmation link; it is used once followed "
                                             "(the same answer whether or not it has an account already)")


class TokenOut(serializers.Serializer):
    token = serializers.CharField()


class SeatOut(serializers.Serializer):
    index = serializers.IntegerField()
    name = serializers.CharField(help_text="the player's username, \"Bot N (random|heuristic)\", or \"open seat\" "
                                           "(no player yet: POST /api/games/{id}/join/ takes it)")
    bot = serializers.CharField(allow_null=True, help_text="random or heuristic for a bot's seat, else null")
    you = serializers.BooleanField()
    invited = serializers.BooleanField(help_text="invited and not yet accepted")
    standing = serializers.ChoiceField(["ask", "unable", "always"], required=False,
                                       help_text="your standing answer to reaction windows (your own seat only)")


class StandingSerializer(serializers.Serializer):
    answer = serializers.ChoiceField(["ask", "unable", "always"], help_text=(
        "ask: ask me every time; unable: pass for me only when I cannot react; "
        "always: always let cards resolve / never raise my hand unless I answer myself"))


class LegalActionOut(serializers.Serializer):
    notation = serializers.CharField()
    label = serializers.CharField()
    action = serializers.DictField()


class ClockOut(serializers.Serializer):
    per_move = serializers.IntegerField(allow_null=True)
    on_timeout = serializers.ChoiceField(["bot", "skip", "forfeit"])
    window = serializers.IntegerField(allow_null=True, help_text="seconds a reaction window stays open; null: as long as a move")


class FairnessOut(serializers.Serializer):
    seed_sha256 = serializers.CharField()
    seed = serializers.CharField(allow_null=True, help_text="revealed once the game is finished")


class CalledOffOut(serializers.Serializer):
    reason = serializers.ChoiceField([c for c, _ in Game.CALLED_OFF], allow_null=True,
                                     help_text="cancelled by its creator, an invitation declined or expired, a player left, "
                                               "re-paired by a tournament's organiser before anyone moved; "
                                               "null for a game cancelled before kinplay kept the reason")
    by = serializers.CharField(allow_null=True, help_text="the player whose act it was")
    text = serializers.CharField(help_text="the sentence the game's page shows")


class GameOut(serializers.Serializer):
    """The ``<game>`` of the API contract (docs/architecture.md#the-api-contract), as games.selectors.game_for builds it."""

    id = serializers.IntegerField(help_text="the game's number, in every /api/games/{id}/ address")
    kind = serializers.CharField(help_text="a slug of GET /api/kinds/")
    options = serializers.DictField(help_text="the kind's options, defaults filled in")
    status = serializers.ChoiceField(["waiting", "active", "finished", "aborted"], help_text=(
        "waiting for players, being played, over (see result), or called off before its start"))
    version = serializers.IntegerField(help_text=(
        "how many events the game has: send it as expected_version with a move decided on this view"))
    at = serializers.IntegerField(help_text="the version this view shows (the version unless ?at= asked for an earlier one)")
    seats = SeatOut(many=True, help_text="the table, in seat order")
    you = serializers.IntegerField(allow_null=True, help_text="your seat index, null if you have none")
    to_act = serializers.ListField(child=serializers.IntegerField(), help_text=(
        "the seats that must act now: several at once for a simultaneous choice or a reaction window"))
    deadline = serializers.DateTimeField(allow_null=True, help_text="when the current wait times out (null: no time limit)")
    clock = ClockOut(help_text="the time limits and what a timeout does")
    view = serializers.DictField(help_text=(
        "what you may see of the game (a spectator: what everyone sees), in the kind's own shape"))
    legal_actions = LegalActionOut(many=True, help_text=(
        "your moves now, empty when you have none: send one's action or notation to POST /api/games/{id}/actions/"))
    result = serializers.DictField(allow_null=True, help_text=(
        "null until the game is over; then ranks and scores (one per seat), winners (seat indexes) and a summary"))
    rated = serializers.BooleanField(help_text="whether the result changes ratings")
    fairness = FairnessOut(help_text="provably fair randomness: the seed's hash from the start, the seed at the end")
    called_off = CalledOffOut(allow_null=True, help_text="why and by whom an aborted game (cancelled before its "
                                                          "start) was cancelled; null for any other game")


class EventOut(serializers.Serializer):
    seq = serializers.IntegerField(help_text=(
        "the event's place in the game, from 1 (the game's version is the last one's); an event you may "
        "not see at all is left out, so seqs may skip"))
    type = serializers.CharField(help_text="what happened, in the kind's own words (\"drew\", \"moved\" ...)")
    data = serializers.DictField(help_text="its facts, as you may see them (what you may not know is left out)")
    seat = serializers.IntegerField(allow_null=True, help_text=(
        "the seat whose move (or timeout) caused it; null: the game itself (the deal)"))
    at = serializers.DateTimeField(help_text="when it was stored")


class ChatLineIn(serializers.Serializer):
    text = serializers.CharField(max_length=ChatMessage.MAX_LENGTH, trim_whitespace=False,
                                 validators=[RegexValidator(r"^[^\x00]*[^\s\x00][^\x00]*$", "Write something first.")],
                                 help_text="one line; spaces and line breaks are folded")


class ChatLineOut(serializers.Serializer):
    channel = serializers.ChoiceField(["players", "spectators"])
    seq = serializers.IntegerField(help_text="the line's place in its channel, from 1")
    name = serializers.CharField()
    text = serializers.CharField()
    at = serializers.DateTimeField()
    you = serializers.BooleanField()


class ActionResultOut(serializers.Serializer):
    version = serializers.IntegerField(help_text="the game's version once this request's events were stored")
    events = EventOut(many=True, help_text=(
        "what this request stored, as you may see it: your move's events and the bots' moves it set off"))
    game = GameOut(required=False, help_text="the game after the action; left out with ?view=none")


class KindOut(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    min_players = serializers.IntegerField()
    max_players = serializers.IntegerField()
    player_counts = serializers.ListField(child=serializers.IntegerField(),
                                         help_text="the numbers of players a game can start with (default options)")
    options = serializers.DictField(help_text="a JSON schema")


class VacationSerializer(serializers.Serializer):
    on = serializers.BooleanField()


class VacationOut(serializers.Serializer):
    on = serializers.BooleanField()
    since = serializers.DateTimeField(allow_null=True)
    until = serializers.DateTimeField(allow_null=True, help_text="when it ends by itself, the allowance used up")
    allowance_days = serializers.IntegerField()
    used_days = serializers.FloatField(help_text="this calendar year (UTC)")
    left_days = serializers.FloatField()
