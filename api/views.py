"""Thin views over games.services (writes) and games.selectors (reads)."""

from typing import Any

from django.contrib.auth import authenticate
from django.core.exceptions import ValidationError as DjangoValidationError
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.authentication import SessionAuthentication
from rest_framework.authtoken.models import Token
from rest_framework.decorators import api_view, authentication_classes, permission_classes, throttle_classes
from rest_framework.permissions import AllowAny
from rest_framework.response import Response

from api import pages, throttles
from api import serializers as s
from api.authentication import GameTokenAuthentication, game_of, read_with_token
from api.errors import documented, error
from games import chat, selectors, services
from games.engine import IllegalAction
from games.models import Game
from games.registry import kinds
from games.store import game_with_seats, load_states
from kinplay import params
from kinplay.accounts import lockout, usernames
from kinplay.accounts import services as accounts
from kinplay.clocks import vacation as away
from kinplay.infra import replica
from kinplay.notifications import presence

MAX_EVENT_SEQ = 2**31 - 1
EVENTS_LIMIT = 100  # events a page: what a poll after the last version gets whole, a replay in a few pages


def _valid(serializer_class, request):
    return s.valid(serializer_class, request.data)


def _game(pk):
    return game_with_seats(pk)  # no such game: 404 (api.errors)


# A view about the game its address names, whose player's token is checked in the statement that
# reads the game (api.authentication): settings' authentication classes with the token's swapped.
READS_GAME = [GameTokenAuthentication, SessionAuthentication]
# Its OpenAPI security: the same two schemes as every other view's (a token is a token). Any:
# extend_schema's ``auth`` is typed as names, but takes security requirements as its get_auth gives them.
READS_GAME_AUTH: Any = [{"tokenAuth": []}, {"cookieAuth": []}]


@extend_schema(request=s.RegisterSerializer, responses={201: s.RegisteredOut, **documented(400, 409, 413, 415, 422)}, auth=[])
@api_view(["POST"])
@permission_classes([AllowAny])
@throttle_classes(throttles.AUTH)
def register(request):
    data = _valid(s.RegisterSerializer, request)
    try:
        user = accounts.register(data["username"], data["email"], data["password"])
    except DjangoValidationError as exc:  # the schema's rules held: a name taken (409) or a weak password (422)
        codes = {e.code for errors in exc.error_dict.values() for e in errors}
        detail = "; ".join(f"{field}: {' '.join(messages)}" for field, messages in exc.message_dict.items())
        if "taken" in codes:
            return error("conflict", detail, status.HTTP_409_CONFLICT)
        return error("unprocessable", detail, status.HTTP_422_UNPROCESSABLE_ENTITY)
    token = Token.objects.create(user=user)
    return Response({"id": user.pk, "username": user.username, "token": token.key,
                     "detail": accounts.address_sent(data["email"])}, status=status.HTTP_201_CREATED)


@extend_schema(request=s.TokenRequestSerializer, responses={200: s.TokenOut, **documented(400, 401, 413, 415)}, auth=[])
@api_view(["POST"])
@permission_classes([AllowAny])
@throttle_classes(throttles.AUTH)
def token(request):
    data = _valid(s.TokenRequestSerializer, request)
    # django-axes counts the failures and marks the request it was given once this name is
    # locked out from this address; that is DRF's request here, so the answer is given here.
    user = authenticate(request, username=usernames.normalise(data["username"]), password=data["password"])
    if getattr(request, "axes_locked_out", False):
        return lockout.locked_out(request)
    if user is None:  # the same answer for an unknown name and a wrong password
        refused = error("not_authenticated", "Wrong username or password.", status.HTTP_401_UNAUTHORIZED)
        refused["WWW-Authenticate"] = "Token"  # a 401 names its scheme (RFC 9110), as DRF's own 401s do
        return refused
    key, _ = Token.objects.get_or_create(user=user)
    return Response({"token": key.key})


def _player_counts(kind) -> list[int]:
    defaults = services.options_with_defaults(kind, {})
    counts = []
    for n in range(kind.rules.MIN_PLAYERS, kind.rules.MAX_PLAYERS + 1):
        try:
            kind.rules.check_players(n, defaults)
        except IllegalAction:
            continue
        counts.append(n)
    return counts


@extend_schema(responses={200: s.KindOut(many=True), **documented()}, auth=[])
@api_view(["GET"])
@permission_classes([AllowAny])
def kind_list(request):
    return Response([
        {"slug": k.slug, "name": k.name, "min_players": k.rules.MIN_PLAYERS,
         "max_players": k.rules.MAX_PLAYERS, "player_counts": _player_counts(k), "options": k.rules.OPTIONS_SCHEMA}
        for k in kinds().values()
    ])


@extend_schema(
    methods=["GET"], responses={200: s.GameOut(many=True), **documented(400, 401)},
    description="My games: invitations to answer first, then the games waiting for my move, then the others "
                "still running or waiting for players, then the finished ones; newest first within each. "
                "In pages (see limit and the Link header).",
    parameters=[OpenApiParameter("status", str, enum=["waiting", "active", "finished", "aborted"],
                                 description="only the games with this status"),
                OpenApiParameter("my_turn", bool, description="true: only the games where you must act now (a move, "
                                                              "a choice, a reaction window); false: the others"),
                OpenApiParameter("invited", bool, description="invitations I have still to answer"),
                OpenApiParameter("open", bool, description="true: instead of my games, the games waiting for players "
                                                           "that I could join (an open seat; newest first)"),
                *pages.parameters(2)],
)
@extend_schema(methods=["POST"], request=s.CreateGameSerializer, responses={201: s.GameOut, **documented(400, 401, 413, 415, 422)})
@api_view(["GET", "POST"])
def game_list(request):
    if request.method == "POST":
        data = _valid(s.CreateGameSerializer, request)
        clock = data.get("clock") or {}
        game = services.create_game(
            creator=request.user, kind=data["kind"], options=data["options"], seats=data["seats"],
            per_move=clock.get("per_move", "default"),
            on_timeout=clock.get("on_timeout", "bot"), invite_only=data["invite_only"], rated=data["rated"],
            window=clock.get("window"),
        )
        # The game as created, seats and players held: reading it again would find the same.
        return Response(selectors.game_for(game, request.user), status=status.HTTP_201_CREATED)
    flags = {name: params.flag(request.query_params.get(name)) for name in ("open", "my_turn", "invited")}
    bad = [name for name, value in flags.items() if value is params.UNSET]
    if bad:
        return error("bad_request", f"{bad[0]} must be true or false.", status.HTTP_400_BAD_REQUEST)

    def present(game):
        return selectors.game_for(game, request.user)

    if flags["open"]:
        return pages.newest_first(request, selectors.open_games(request.user), present, parts=2)
    wanted = request.query_params.get("status") or None
    if wanted is not None and wanted not in dict(Game.STATUSES):
        return error("bad_request", "status must be one of waiting, active, finished, aborted.", status.HTTP_400_BAD_REQUEST)
    limit, after = pages.limit_of(request), pages.cursor_of(request, 2)
    mine = selectors.MyGames(request.user, status=wanted, my_turn=flags["my_turn"], invited=flags["invited"])
    page = mine.page(after, limit + 1)
    # the page's states and finished games' last platform events together, not one query each
    held = load_states([g for g in page if g.version > 0])
    platform = selectors.last_platform_events([g for g in page if g.status == Game.FINISHED])

    def present_held(game):
        return selectors.game_for(game, request.user, state=held.get(game.pk), platform=platform)

    def key(game):  # the list's order: urgency, then newest (highest id) first
        return selectors.urgency(game, request.user), game.pk

    return pages.respond(request, page, present_held, limit=limit, total=mine.count(pages.COUNTED), key=key)


@extend_schema(responses={200: s.GameOut, **documented(400, 401, 404)}, auth=READS_GAME_AUTH,
               parameters=[OpenApiParameter("at", pages.integer(0, MAX_EVENT_SEQ),
                                            description="the view after event N (from the end of the setup); "
                                                        "404 for a version the game does not have")])
@api_view(["GET"])
@authentication_classes(READS_GAME)
def game_detail(request, id):
    game = game_of(request, id)
    at = request.query_params.get("at")
    if at is not None:
        first = selectors.first_viewable(game)
        at = params.natural(at, maximum=MAX_EVENT_SEQ)
        if at is None:
            return error("bad_request", f"at must be a number from 0 to {MAX_EVENT_SEQ}.", status.HTTP_400_BAD_REQUEST)
        if not first <= at <= game.version:  # a version this game does not have (yet), or its hidden setup
            return error("not_found", f"This game has views at {first} to {game.version}.", status.HTTP_404_NOT_FOUND)
    else:
        presence.looked(request.user, game.pk, game.version)  # a client showing the game: as its page does
    return Response(selectors.game_for(game, request.user, at=at))


@extend_schema(request=s.SeatChoiceSerializer, responses={200: s.GameOut, **documented(400, 401, 404, 409, 413, 415)})
@api_view(["POST"])
def game_join(request, id):
    """Take the first open seat, optionally with a choice (a Kenta colour)."""
    choice = _valid(s.SeatChoiceSerializer, request).get("choice")
    game = services.join_game(_game(id).pk, request.user, choice=choice)
    return Response(selectors.game_for(_game(game.pk), request.user))


@extend_schema(request=s.SeatChoiceSerializer, responses={200: s.GameOut, **documented(400, 401, 403, 404, 409, 413, 415)})
@api_view(["POST"])
def game_accept(request, id):
    """Accept the invitation to this game, optionally with a choice as when joining (a Kenta
    colour); it starts when every invited player has."""
    choice = _valid(s.SeatChoiceSerializer, request).get("choice")
    game = services.accept_invitation(_game(id).pk, request.user, choice=choice)
    return Response(selectors.game_for(_game(game.pk), request.user))


@extend_schema(request=None, responses={200: s.GameOut, **documented(401, 403, 404, 409)})
@api_view(["POST"])
def game_decline(request, id):
    """Decline the invitation: the seat opens for others, or the game is cancelled."""
    game = services.decline_invitation(_game(id).pk, request.user)
    return Response(selectors.game_for(_game(game.pk), request.user))


@extend_schema(request=None, responses={200: s.GameOut, **documented(401, 403, 404, 409)})
@api_view(["POST"])
def game_leave(request, id):
    """Leave a game you joined or accepted, before it starts: your seat opens (or the game is
    cancelled, if it is for invited players only); its creator is told."""
    game = services.leave_game(_game(id).pk, request.user)
    return Response(selectors.game_for(_game(game.pk), request.user))


@extend_schema(request=None, responses={200: s.GameOut, **documented(401, 403, 404, 409)})
@api_view(["POST"])
def game_cancel(request, id):
    """Cancel a game you created that has not started; everyone at the table is told."""
    game = services.cancel_game(_game(id).pk, request.user)
    return Response(selectors.game_for(_game(game.pk), request.user))


# A move and a resignation take the same header and query (a bot retries both the same way).
COMMAND_PARAMETERS = [
    OpenApiParameter("Idempotency-Key", {"type": "string", "minLength": 1, "maxLength": services.MAX_IDEMPOTENCY_KEY},
                     OpenApiParameter.HEADER,
                     description=f"at most {services.MAX_IDEMPOTENCY_KEY} characters; "
                                 "yours alone: a repeat returns the first outcome"),
    OpenApiParameter("view", str, enum=["game", "none"],
                     description="none: the answer without the game, for a client that "
                                 "needs only the version and the events (default: game)"),
]


def _command_options(request):
    """(Idempotency-Key, whether to answer with the game), or the 400 that refuses them."""
    # From META, not request.headers and request.GET, which a move would build for this alone
    # (every header copied, the query string parsed)
    meta = request.META
    key = meta.get("HTTP_IDEMPOTENCY_KEY") or None  # the Idempotency-Key header
    if key is not None and len(key) > services.MAX_IDEMPOTENCY_KEY:
        return error("bad_request", f"An Idempotency-Key is at most {services.MAX_IDEMPOTENCY_KEY} characters.",
                     status.HTTP_400_BAD_REQUEST)
    view = request.GET.get("view", "game") if meta.get("QUERY_STRING") else "game"
    if view not in ("game", "none"):
        return error("bad_request", "view must be game or none.", status.HTTP_400_BAD_REQUEST)
    return key, view == "game"


@extend_schema(request=s.ActionSerializer, responses={201: s.ActionResultOut, **documented(400, 401, 403, 404, 409, 413, 415, 422)},
               parameters=COMMAND_PARAMETERS, auth=READS_GAME_AUTH)
@api_view(["POST"])
@authentication_classes(READS_GAME)
@throttle_classes(throttles.MOVES)
def game_action(request, id):
    options = _command_options(request)
    if isinstance(options, Response):
        return options
    key, with_game = options
    data = _valid(s.ActionSerializer, request)
    return Response(move(request.user, id, data, key, with_game, read_with_token(request, id)),
                    status=status.HTTP_201_CREATED)


def move(user, id, data, key, with_game, game=None) -> dict:
    """The move itself, once the request is read, and the 201's body."""
    outcome = services.act(
        id, user=user, action=data.get("action"), notation=data.get("notation"),
        expected_version=data.get("expected_version"), idempotency_key=key, game=game,
    )
    return action_body(user, outcome, with_game=with_game)


def action_body(user, outcome, with_game=True) -> dict:
    """A command's 201 body: what it stored, as the caller may see it, and the game after it
    (unless the caller asked for less: the game's view and legal actions are most of the cost)."""
    game = outcome.game
    events = selectors.redacted_events(game, outcome.seat, rows=outcome.events)
    version = outcome.events[-1].seq if outcome.events else game.version
    body = {"version": version, "events": events}
    if with_game:
        body["game"] = selectors.game_for(game, user, state=outcome.state, rows=outcome.events)
    return body


@extend_schema(responses={200: s.EventOut(many=True), **documented(400, 401, 404)},
               parameters=[OpenApiParameter("after", pages.integer(0, MAX_EVENT_SEQ), description="only the events after this seq"),
                           pages.limit_parameter(EVENTS_LIMIT, "events stored per page (fewer when some are hidden from you)"),
                           pages.LINK])
@api_view(["GET"])
def game_events(request, id):
    """The events after ``after`` that you may see, a page of stored events at a time: a seq
    range of the (game, seq) index, followed by the Link header's ``after``."""
    game = _game(id)
    after = params.natural(request.query_params.get("after", "0"), maximum=MAX_EVENT_SEQ)
    if after is None:
        return error("bad_request", "after must be a number from 0.", status.HTTP_400_BAD_REQUEST)
    limit = pages.limit_of(request, default=EVENTS_LIMIT)
    upto = min(game.version, after + limit)  # seqs run from 1 without gaps
    with replica.reads_may_lag(game.is_over and replica.settled(game.updated_at)):  # a replay: every event is there
        events = selectors.redacted_events(game, game.seat_of(request.user), after=after, upto=upto)
    response = Response(events)
    if upto < game.version:
        pages.link_next(request, response, after=str(upto), limit=str(limit))
    return response


@extend_schema(methods=["GET"], responses={200: s.ChatLineOut(many=True), **documented(400, 401, 404)},
               parameters=[OpenApiParameter("after", pages.integer(0, MAX_EVENT_SEQ), description="only the lines after this seq, in each channel")])
@extend_schema(methods=["POST"], request=s.ChatLineIn, responses={201: s.ChatLineOut, **documented(400, 401, 404, 409, 413, 415)})
@api_view(["GET", "POST"])
def game_chat(request, id):
    """Table talk. GET: the newest lines of the chats you may read, oldest first (players' chat;
    the spectators' too if you have no seat, or once the game is over). POST {"text"}: a line to
    the players' chat if you have a seat, else to the spectators'."""
    game = _game(id)
    if request.method == "POST":
        line = chat.post_chat(game.pk, request.user, _valid(s.ChatLineIn, request)["text"])
        return Response(chat.line_of(line, request.user) | {"channel": line.channel}, status=status.HTTP_201_CREATED)
    after = params.natural(request.query_params.get("after", "0"), maximum=MAX_EVENT_SEQ)
    if after is None:
        return error("bad_request", "after must be a number from 0.", status.HTTP_400_BAD_REQUEST)
    return Response([line | {"channel": c} for c in chat.visible_channels(game, request.user)
                     for line in chat.lines(game, request.user, c, after=after)])


@extend_schema(request=s.StandingSerializer, responses={200: s.GameOut, **documented(400, 401, 403, 404, 413, 415)})
@api_view(["POST"])
def game_standing(request, id):
    """Set my standing answer to reaction windows in this game; one open for me may be answered at once."""
    data = _valid(s.StandingSerializer, request)
    services.set_standing_answer(_game(id).pk, request.user, data["answer"])
    return Response(selectors.game_for(_game(id), request.user))


@extend_schema(request=None, responses={201: s.ActionResultOut, **documented(400, 401, 403, 404, 409, 422)},
               parameters=COMMAND_PARAMETERS, auth=READS_GAME_AUTH)
@api_view(["POST"])
@authentication_classes(READS_GAME)
@throttle_classes(throttles.MOVES)
def game_resign(request, id):
    options = _command_options(request)
    if isinstance(options, Response):
        return options
    key, with_game = options
    outcome = services.resign(id, user=request.user, idempotency_key=key, game=read_with_token(request, id))
    return Response(action_body(request.user, outcome, with_game=with_game), status=status.HTTP_201_CREATED)


@extend_schema(request=s.VacationSerializer, responses={200: s.VacationOut, **documented(400, 401, 409, 413, 415)})
@api_view(["GET", "POST"])
def vacation(request):
    """The caller's vacation switch (as on the settings page): {"on": true} pauses their clocks
    in friendly games, {"on": false} resumes them with the time they had left."""
    if request.method == "POST":
        on = _valid(s.VacationSerializer, request)["on"]
        try:
            if on:
                away.start(request.user)
            else:
                away.end(request.user)
        except away.VacationRefused as exc:  # the switch is already where asked, or no days are left
            return error("conflict", str(exc), status.HTTP_409_CONFLICT)
    return Response(away.summary(request.user))
