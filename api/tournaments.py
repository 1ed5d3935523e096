"""Tournaments through the API: thin views over kinplay.tournaments.services and selectors."""

from django.conf import settings
from django.http import HttpResponse
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny

from api import pages
from api.errors import documented, error
from api.organised import Organised
from api.serializers import KindField, valid
from games import services as games
from kinplay.tournaments import selectors, services, trf
from kinplay.tournaments.models import Tournament

MAX_PLAYERS = services.MAX_PLAYERS_CAP
MAX_ROUNDS = 100
MAX_TABLE = 64  # no kind seats more


class TournamentTableSize(serializers.Serializer):
    min = serializers.IntegerField(min_value=2, max_value=MAX_TABLE)
    max = serializers.IntegerField(min_value=2, max_value=MAX_TABLE)


class TournamentClock(serializers.Serializer):
    per_move = serializers.IntegerField(min_value=1, max_value=settings.MAX_PER_MOVE_SECONDS, allow_null=True, required=False)
    on_timeout = serializers.ChoiceField(["bot", "skip", "forfeit"], required=False)


class CreateTournament(serializers.Serializer):
    name = serializers.CharField(min_length=1, max_length=80)
    kind = KindField()
    options = serializers.DictField(required=False, default=dict)
    format = serializers.ChoiceField(list(services.FORMATS))
    rounds = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=MAX_ROUNDS,
                                      help_text="Swiss only; default ceil(log2(players))")
    double = serializers.BooleanField(required=False, default=False)
    best_of = serializers.ChoiceField([1, 3], required=False, default=1)
    table_size = TournamentTableSize(required=False, allow_null=True)
    advance = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=MAX_PLAYERS,
                                       help_text="knockout tables: how many go through")
    points = serializers.ListField(child=serializers.FloatField(min_value=0, max_value=services.MAX_POINTS), required=False,
                                   allow_null=True, min_length=1, help_text="points by finishing place, best first (e.g. [6, 4, 2, 0])")
    clock = TournamentClock(required=False)
    round_days = serializers.FloatField(required=False, allow_null=True, min_value=services.MIN_ROUND_DAYS, max_value=365)
    max_players = serializers.IntegerField(required=False, allow_null=True, min_value=2, max_value=MAX_PLAYERS)
    min_players = serializers.IntegerField(required=False, allow_null=True, min_value=2, max_value=MAX_PLAYERS)
    max_timeouts = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=MAX_ROUNDS)
    bye_points = serializers.FloatField(required=False, allow_null=True, min_value=0, max_value=services.MAX_POINTS,
                                        help_text="points for a bye the pairing gives; default a win (duels), the average place (tables)")
    starts_at = serializers.DateTimeField(required=False, allow_null=True)
    rated = serializers.BooleanField(required=False, default=True)
    min_rated_games = serializers.IntegerField(required=False, allow_null=True, min_value=0, max_value=100000,
                                               help_text="entry: rated games of the kind")
    min_rating = serializers.FloatField(required=False, allow_null=True, help_text="entry: rating in the kind")
    invited = serializers.ListField(child=serializers.CharField(min_length=1, max_length=150), required=False, allow_null=True,
                                    max_length=MAX_PLAYERS,
                                    help_text="entry: only these usernames may join")
    late_join = serializers.BooleanField(required=False, default=False, help_text="Swiss: join while it runs, from the next round")
    late_points = serializers.FloatField(required=False, default=0, min_value=0, max_value=services.MAX_POINTS,
                                         help_text="a late player's points to start with")


class TournamentSummaryOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    format = serializers.CharField()
    status = serializers.CharField()
    players = serializers.IntegerField()
    max_players = serializers.IntegerField(allow_null=True)
    round = serializers.IntegerField()
    rounds = serializers.IntegerField(allow_null=True)
    joined = serializers.BooleanField()
    starts_at = serializers.CharField(allow_null=True)


class TournamentOut(serializers.Serializer):
    """<tournament>: the nested parts are described in docs/api.md#tournaments-and-leagues."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    options = serializers.JSONField()
    format = serializers.CharField()
    status = serializers.CharField(help_text="open | running | finished | cancelled")
    organiser = serializers.CharField(allow_null=True)
    settings = serializers.JSONField()
    starts_at = serializers.CharField(allow_null=True)
    total_rounds = serializers.IntegerField(allow_null=True)
    players = serializers.JSONField(help_text="[{name, status, rating, timeouts, seed}]; seed: the pairing number (1 the strongest), null before the start")
    rounds = serializers.JSONField(help_text="[{number, status, starts_at, ends_at, warns_at, tables: [{game, games, players, bye, result}]}]; "
                                             "warns_at: when the running round's players whose game still runs are emailed "
                                             "that it ends (a day before, or a quarter of a shorter round), null for other rounds")
    standings = serializers.JSONField(help_text="[{rank, player, status, out, points, played, byes, tiebreaks: {name: value}, seed}] "
                                                "(the last tiebreak, lot, is the drawing of lots from the seed in fairness); "
                                                "out: why a withdrawn player is out (\"withdrew\", \"out: ran out of time too often\", "
                                                "\"left the league\"), null while they play")
    winner = serializers.CharField(allow_null=True)
    reason = serializers.CharField(allow_blank=True)
    fairness = serializers.JSONField(help_text="{seed_sha256, seed (once finished)}")
    corrections = serializers.JSONField(help_text="the organiser's corrections of results, oldest first: "
                                                  "[{round, table, game, players, before, ranks, reason, by}]")
    pairing_corrections = serializers.JSONField(help_text="the organiser's corrections of pairings, oldest first: "
                                                          "[{round, players, tables, reason, by}]; players: the two "
                                                          "swapped; tables: their tables' indexes in the round, from 0")
    bracket = serializers.JSONField(required=False, help_text="knockout: rounds of {players, bye, games, through}")
    crosstable = serializers.JSONField(required=False, help_text="round robin: [{player, results: {opponent: [points]}}]")


TOURNAMENTS = Organised("tournament", Tournament, selectors.tournament_for, TournamentOut)


@extend_schema(methods=["GET"], responses={200: TournamentSummaryOut(many=True), **documented(400)}, operation_id="tournaments_list",
               description="Newest first, in pages (see limit and the Link header).", parameters=[
    OpenApiParameter("status", str, enum=["open", "running", "finished", "cancelled"]), *pages.parameters(1)])
@extend_schema(methods=["POST"], request=CreateTournament, responses={201: TournamentOut, **documented(400, 401, 413, 415, 422)},
               operation_id="tournaments_create")
@api_view(["GET", "POST"])
@permission_classes([AllowAny])
def tournament_list(request):
    if request.method == "POST":
        return TOURNAMENTS.create(request, CreateTournament, services.create)
    wanted = request.query_params.get("status")
    if wanted is not None and wanted not in dict(Tournament.STATUSES):
        return error("bad_request", "status must be one of open, running, finished, cancelled.", status.HTTP_400_BAD_REQUEST)
    return pages.newest_first(request, selectors.tournaments(wanted), lambda t: selectors.summary(t, request.user))


@extend_schema(responses={200: TournamentOut, **documented(404)})
@api_view(["GET"])
@permission_classes([AllowAny])
def tournament_detail(request, id):
    return TOURNAMENTS.respond(id, request.user)


@extend_schema(responses={(200, "text/plain"): str, **documented(404)},
               description="The tournament as a FIDE TRF-16 file (finished rounds; pairing numbers are the seeds): "
                           "two-player kinds only (404 for a tournament at tables).")
@api_view(["GET"])
@permission_classes([AllowAny])
def tournament_trf(request, id):
    t = TOURNAMENTS.load(id)
    try:
        text = selectors.trf_of(t)
    except trf.NotDuels as exc:  # a tournament at tables has no TRF
        return error("not_found", str(exc), status.HTTP_404_NOT_FOUND)
    response = HttpResponse(text, content_type="text/plain; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="tournament-{t.pk}.trf"'
    return response


tournament_join = TOURNAMENTS.action(services.join, "join", 409, 401, 403, 404)
tournament_withdraw = TOURNAMENTS.action(services.withdraw, "withdraw", 409, 401, 403, 404)
tournament_start = TOURNAMENTS.action(services.start, "start", 409, 401, 403, 404)
tournament_cancel = TOURNAMENTS.action(services.cancel, "cancel", 409, 401, 403, 404)


class CorrectResult(serializers.Serializer):
    round = serializers.IntegerField(min_value=1, max_value=MAX_ROUNDS)
    table = serializers.IntegerField(min_value=0, max_value=MAX_PLAYERS, help_text="the table's index in the round, from 0")
    ranks = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=MAX_PLAYERS), min_length=1,
                                  max_length=MAX_PLAYERS, help_text="places in the table's seat order, 1 is best")
    reason = serializers.CharField(min_length=1, max_length=200)


@extend_schema(request=CorrectResult, responses={200: TournamentOut, **documented(400, 401, 403, 404, 409, 422)})
@api_view(["POST"])
def tournament_correct(request, id):
    """The organiser corrects a result as the tournament counts it, with a reason the history shows."""
    return _correction(request, id, services.correct_result, valid(CorrectResult, request.data))


def _correction(request, id, correct, data):
    """An organiser's correction: 422 for parts that do not fit the tournament (games.Unprocessable),
    409 for what its state refuses (docs/api.md)."""
    try:
        correct(TOURNAMENTS.load(id).pk, request.user, **data)
    except games.Unprocessable:
        raise
    except games.BadRequest as exc:
        return error("conflict", str(exc), status.HTTP_409_CONFLICT)
    return TOURNAMENTS.respond(id, request.user)


class CorrectPairing(serializers.Serializer):
    players = serializers.ListField(child=serializers.CharField(min_length=1, max_length=150), min_length=2, max_length=2,
                                    help_text="two usernames of the current round, at different tables: each takes the other's seat")
    reason = serializers.CharField(min_length=1, max_length=200)


@extend_schema(request=CorrectPairing, responses={200: TournamentOut, **documented(400, 401, 403, 404, 409, 422)})
@api_view(["POST"])
def tournament_swap(request, id):
    """The organiser swaps two players of a running Swiss's current round before anyone has moved
    in their games (the games are replaced), with a reason the history shows."""
    return _correction(request, id, services.correct_pairing, valid(CorrectPairing, request.data))
