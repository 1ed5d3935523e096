"""Tournaments through the API: thin views over kinplay.tournaments.services and selectors."""

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny

from api import pages
from api.errors import documented, error
from api.organised import Organised
from kinplay.tournaments import selectors, services
from kinplay.tournaments.models import Tournament


class TournamentTableSize(serializers.Serializer):
    min = serializers.IntegerField(min_value=2)
    max = serializers.IntegerField(min_value=2)


class TournamentClock(serializers.Serializer):
    per_move = serializers.IntegerField(min_value=1, max_value=settings.MAX_PER_MOVE_SECONDS, allow_null=True, required=False)
    on_timeout = serializers.ChoiceField(["bot", "skip", "forfeit"], required=False)


class CreateTournament(serializers.Serializer):
    name = serializers.CharField(max_length=80)
    kind = serializers.CharField()
    options = serializers.DictField(required=False, default=dict)
    format = serializers.CharField()
    rounds = serializers.IntegerField(required=False, allow_null=True, help_text="Swiss only; default ceil(log2(players))")
    double = serializers.BooleanField(required=False, default=False)
    best_of = serializers.IntegerField(required=False, default=1)
    table_size = TournamentTableSize(required=False, allow_null=True)
    advance = serializers.IntegerField(required=False, allow_null=True, help_text="knockout tables: how many go through")
    points = serializers.ListField(child=serializers.FloatField(min_value=0), required=False, allow_null=True,
                                   help_text="points by finishing place, best first (e.g. [6, 4, 2, 0])")
    clock = TournamentClock(required=False)
    round_days = serializers.FloatField(required=False, allow_null=True)
    max_players = serializers.IntegerField(required=False, allow_null=True)
    min_players = serializers.IntegerField(required=False, allow_null=True)
    max_timeouts = serializers.IntegerField(required=False, allow_null=True)
    starts_at = serializers.DateTimeField(required=False, allow_null=True)
    rated = serializers.BooleanField(required=False, default=True)


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
    players = serializers.JSONField(help_text="[{name, status, rating, timeouts}]")
    rounds = serializers.JSONField(help_text="[{number, status, starts_at, ends_at, warns_at, tables: [{game, games, players, bye, result}]}]; "
                                             "warns_at: when the running round's players whose game still runs are emailed "
                                             "that it ends (a day before, or a quarter of a shorter round), null for other rounds")
    standings = serializers.JSONField(help_text="[{rank, player, status, out, points, played, byes, tiebreaks: {name: value}}]; "
                                                "out: why a withdrawn player is out (\"withdrew\", \"out: ran out of time too often\", "
                                                "\"left the league\"), null while they play")
    winner = serializers.CharField(allow_null=True)
    reason = serializers.CharField(allow_blank=True)
    fairness = serializers.JSONField(help_text="{seed_sha256, seed (once finished)}")
    bracket = serializers.JSONField(required=False, help_text="knockout: rounds of {players, bye, games, through}")
    crosstable = serializers.JSONField(required=False, help_text="round robin: [{player, results: {opponent: [points]}}]")


TOURNAMENTS = Organised("tournament", Tournament, selectors.tournament_for, TournamentOut)


@extend_schema(methods=["GET"], responses={200: TournamentSummaryOut(many=True), **documented(400)}, operation_id="tournaments_list",
               description="Newest first, in pages (see limit and the Link header).", parameters=[
    OpenApiParameter("status", str, enum=["open", "running", "finished", "cancelled"]), *pages.PARAMETERS])
@extend_schema(methods=["POST"], request=CreateTournament, responses={201: TournamentOut, **documented(400, 401, 413, 415)},
               operation_id="tournaments_create")
@api_view(["GET", "POST"])
@permission_classes([AllowAny])
def tournament_list(request):
    if request.method == "POST":
        return TOURNAMENTS.create(request, CreateTournament, services.create)
    wanted = request.query_params.get("status")
    if wanted and wanted not in dict(Tournament.STATUSES):
        return error("bad_request", "status must be one of open, running, finished, cancelled.", status.HTTP_400_BAD_REQUEST)
    return pages.newest_first(request, selectors.tournaments(wanted), lambda t: selectors.summary(t, request.user))


@extend_schema(responses={200: TournamentOut, **documented(404)})
@api_view(["GET"])
@permission_classes([AllowAny])
def tournament_detail(request, id):
    return TOURNAMENTS.respond(id, request.user)


tournament_join = TOURNAMENTS.action(services.join, "join", 400, 401, 403, 404)
tournament_withdraw = TOURNAMENTS.action(services.withdraw, "withdraw", 400, 401, 403, 404)
tournament_start = TOURNAMENTS.action(services.start, "start", 400, 401, 403, 404)
tournament_cancel = TOURNAMENTS.action(services.cancel, "cancel", 400, 401, 403, 404)
