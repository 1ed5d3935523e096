"""Leagues through the API: thin views over kinplay.leagues.services and selectors."""

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from api import pages
from api.errors import documented, error
from api.organised import Organised
from api.serializers import KindField
from api.tournaments import MAX_ROUNDS, TournamentClock, TournamentTableSize
from kinplay.leagues import selectors, services
from kinplay.leagues.models import League
from kinplay.tournaments.services import MAX_POINTS


class CreateLeague(serializers.Serializer):
    name = serializers.CharField(min_length=1, max_length=80)
    kind = KindField()
    options = serializers.DictField(required=False, default=dict)
    format = serializers.ChoiceField(["round_robin", "swiss"], required=False, allow_null=True,
                                     help_text="per division; default round robin for 2-player kinds, Swiss otherwise")
    division_size = serializers.IntegerField(required=False, default=6, min_value=2, max_value=services.MAX_DIVISION_SIZE)
    season_days = serializers.FloatField(required=False, default=28, min_value=1, max_value=365)
    promote = serializers.IntegerField(required=False, default=1, min_value=0, max_value=services.MAX_DIVISION_SIZE)
    relegate = serializers.IntegerField(required=False, default=1, min_value=0, max_value=services.MAX_DIVISION_SIZE)
    rated = serializers.BooleanField(required=False, default=True)
    drop_limit = serializers.IntegerField(required=False, default=1, min_value=0, max_value=100, help_text="timeouts in a season a player may have and stay")
    placement = serializers.ChoiceField(["bottom", "rating"], required=False, default="bottom",
                                       help_text="where new players start: the lowest division, or by rating")
    rounds = serializers.IntegerField(required=False, allow_null=True, min_value=1, max_value=MAX_ROUNDS,
                                      help_text="Swiss divisions: rounds a season")
    table_size = TournamentTableSize(required=False, allow_null=True)
    points = serializers.ListField(child=serializers.FloatField(min_value=0, max_value=MAX_POINTS), required=False,
                                   allow_null=True, min_length=1)
    clock = TournamentClock(required=False)
    starts_at = serializers.DateTimeField(required=False, allow_null=True, help_text="the first season; default a week after creation (whoever signed up by then plays)")


class LeagueSummaryOut(serializers.Serializer):
    """A league in the list (kinplay.leagues.selectors.summary)."""

    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()
    status = serializers.CharField(help_text="open (before a season) | running")
    season = serializers.IntegerField()
    players = serializers.IntegerField()
    divisions = serializers.IntegerField()
    signed_up = serializers.BooleanField()


class LeagueOut(LeagueSummaryOut):
    """<league>: the nested parts are described in docs/api.md#tournaments-and-leagues."""

    options = serializers.JSONField()
    settings = serializers.JSONField()
    organiser = serializers.CharField(allow_null=True)
    starts_at = serializers.CharField(allow_null=True)
    next_season = serializers.ListField(child=serializers.CharField())
    table = serializers.JSONField(help_text="[{number, tournament, status, standings: [{rank, player, status, out, points, played, zone: up|down|null}]}]; "
                                                 "out: why a player is out of their division (as a tournament's standings say it), null while they play")
    seasons = serializers.JSONField(help_text="[{number, status, starts_at, ends_at (planned), ended_at (null while it runs), divisions}]")


class SeasonOut(serializers.Serializer):
    number = serializers.IntegerField()
    status = serializers.CharField()
    starts_at = serializers.CharField()
    ends_at = serializers.CharField(help_text="when it was planned to end")
    ended_at = serializers.CharField(allow_null=True, help_text="when it ended (its roll-over); null while it runs")
    divisions = serializers.JSONField(help_text="[{number, tournament, players: [{player, rank, move: up|down|stay|dropped|left|null}]}]")


LEAGUES = Organised("league", League, selectors.league_for, LeagueOut)


@extend_schema(methods=["GET"], responses={200: LeagueSummaryOut(many=True), **documented(400)}, operation_id="leagues_list",
               description="Newest first, in pages (see limit and the Link header).", parameters=pages.parameters(1))
@extend_schema(methods=["POST"], request=CreateLeague, responses={201: LeagueOut, **documented(400, 401, 413, 415, 422)},
               operation_id="leagues_create")
@api_view(["GET", "POST"])
@permission_classes([AllowAny])
def league_list(request):
    if request.method == "POST":
        return LEAGUES.create(request, CreateLeague, services.create)
    return pages.newest_first(request, selectors.leagues(), lambda x: selectors.summary(x, request.user))


@extend_schema(responses={200: LeagueOut, **documented(404)})
@api_view(["GET"])
@permission_classes([AllowAny])
def league_detail(request, id):
    return LEAGUES.respond(id, request.user)


@extend_schema(responses={200: SeasonOut, **documented(404)})
@api_view(["GET"])
@permission_classes([AllowAny])
def league_season(request, id, n):
    data = selectors.season_for(LEAGUES.load(id), n)
    if data is None:
        return error("not_found", f"This league has no season {n}.", status.HTTP_404_NOT_FOUND)
    return Response(data)


league_signup = LEAGUES.action(services.sign_up, "signup", 409, 401, 404)
league_leave = LEAGUES.action(services.leave, "leave", 409, 401, 404)
