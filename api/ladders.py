"""Ladders through the API: thin views over kinplay.ladders.services and selectors."""

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny

from api import pages
from api.errors import documented, error
from api.organised import Organised
from api.serializers import KindField, valid
from api.tournaments import TournamentClock
from games.services import Unprocessable
from kinplay.ladders import selectors, services
from kinplay.ladders.models import Ladder

LIMITS = services.LIMITS  # the schema carries the bounds the service checks

# What JSON type each field's schema names: DRF also reads 0 as false, "3" and true as numbers,
# 3 as a name; the API takes what its schema says (the organiser's form posts text, and is
# read by the serializer alone).
JSON_TYPES: tuple[tuple[type, tuple[type, ...]], ...] = (
    (serializers.BooleanField, (bool,)), (serializers.IntegerField, (int,)),
    (serializers.FloatField, (int, float)), (serializers.CharField, (str,)), (serializers.ChoiceField, (str,)),
    (serializers.DictField, (dict,)), (serializers.Serializer, (dict,)),
)

JSON_NAMES = {(bool,): "boolean", (int,): "integer", (int, float): "number", (str,): "string", (dict,): "object"}


def json_typed(serializer: serializers.Serializer, data) -> None:
    """A DRF ValidationError naming the first field whose JSON type is not the schema's."""
    if not isinstance(data, dict):
        return
    for name, field in serializer.fields.items():
        if name not in data or data[name] is None:
            continue
        value = data[name]
        wanted = next((types for cls, types in JSON_TYPES if isinstance(field, cls)), None)
        if wanted and (not isinstance(value, wanted) or (isinstance(value, bool) and bool not in wanted)):
            raise serializers.ValidationError({name: [f"Must be a JSON {JSON_NAMES[wanted]}."]})
        if isinstance(field, serializers.Serializer):
            json_typed(field, value)


def _bounded(field, name, help_text):
    low, high = LIMITS[name]
    return field(required=False, default=services.DEFAULTS[name], min_value=low, max_value=high, help_text=help_text)


class CreateLadder(serializers.Serializer):
    # Untrimmed: a name of blanks is well-formed JSON that the service refuses (a 422), not a 400.
    name = serializers.CharField(min_length=1, max_length=80, trim_whitespace=False)
    kind = KindField()
    options = serializers.DictField(required=False, default=dict)
    reach = _bounded(serializers.IntegerField, "reach", "a player may challenge players up to this many places above")
    max_out = _bounded(serializers.IntegerField, "max_out", "open challenges a player may have made at once")
    max_in = _bounded(serializers.IntegerField, "max_in", "open challenges a player may have to answer or play at once")
    repeat_days = _bounded(serializers.FloatField, "repeat_days", "days before the same two players may meet in a challenge again")
    answer_days = _bounded(serializers.IntegerField, "answer_days",
                           "days the challenged player has to accept; then the invitation lapses (declined)")
    rated = serializers.BooleanField(required=False, default=True)
    clock = TournamentClock(required=False, help_text=f"per_move: seconds (default {settings.DEFAULT_PER_MOVE_SECONDS}); on_timeout default forfeit")


class LadderSummaryOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    players = serializers.IntegerField()
    open_challenges = serializers.IntegerField()
    place = serializers.IntegerField(allow_null=True, help_text="the caller's place (1 is the top); null when not on the ladder")


class LadderOut(LadderSummaryOut):
    """<ladder>: the nested parts are described in docs/api.md#ladders."""

    options = serializers.JSONField()
    settings = serializers.JSONField()
    organiser = serializers.CharField(allow_null=True)
    ranking = serializers.JSONField(help_text="[{place, player, challenge, refused, in_challenge: {game, against, status} | null}]; "
                                              "challenge: whether the caller may challenge this player now; refused: why not (players within reach)")
    challenges = serializers.JSONField(help_text="open: [{game, challenger, challenged, status: invited|accepted, at, answer_by, places}]")
    history = serializers.JSONField(help_text="newest first: [{seq, at, event, game, text}]")


class ChallengeIn(serializers.Serializer):
    player = serializers.CharField(min_length=1, max_length=150, help_text="the name of the player challenged")


LADDERS = Organised("ladder", Ladder, selectors.ladder_for, LadderOut)


@extend_schema(methods=["GET"], responses={200: LadderSummaryOut(many=True), **documented(400)}, operation_id="ladders_list",
               description="Newest first, in pages (see limit and the Link header).", parameters=pages.parameters(1))
@extend_schema(methods=["POST"], request=CreateLadder, responses={201: LadderOut, **documented(400, 401, 413, 415, 422)},
               operation_id="ladders_create")
@api_view(["GET", "POST"])
@permission_classes([AllowAny])
def ladder_list(request):
    if request.method == "POST":
        json_typed(CreateLadder(), request.data)
        return LADDERS.create(request, CreateLadder, services.create)  # settings that do not fit together: a 422
    return pages.newest_first(request, selectors.ladders(), lambda x: selectors.summary(x, request.user))


@extend_schema(responses={200: LadderOut, **documented(404)})
@api_view(["GET"])
@permission_classes([AllowAny])
def ladder_detail(request, id):
    return LADDERS.respond(id, request.user)


def _act(pk, user, fn, *args):
    """``fn`` (a service) on the ladder, then the ladder as ``user`` sees it; what the ladder's
    state refuses (already on it, a limit reached ...) is a 409 that says why."""
    try:
        fn(LADDERS.load(pk).pk, user, *args)
    except Unprocessable:
        raise
    except services.LadderError as exc:
        return error("conflict", str(exc), status.HTTP_409_CONFLICT)
    return LADDERS.respond(pk, user)


@extend_schema(request=ChallengeIn, responses={200: LadderOut, **documented(400, 401, 404, 409, 422)})
@api_view(["POST"])
def ladder_challenge(request, id):
    """Challenge a player above: a game inviting them (its id in ``challenges``); a name nobody
    has is a 422, a challenge the ladder's rules refuse a 409."""
    return _act(id, request.user, services.challenge, valid(ChallengeIn, request.data)["player"])


ladder_join = LADDERS.action(services.join, "join", 401, 404, 409)
ladder_leave = LADDERS.action(services.leave, "leave", 401, 404, 409)
