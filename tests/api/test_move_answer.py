"""A move's answer (POST .../actions/: the events it stored and the game after it, as the mover
may see them) is built from what the move already holds: it must be what reading the game
afresh gives, for every kind, every seat and spectators, and for games a clock's forfeit
ended or went on after, every seat named."""

import random
from dataclasses import replace

import orjson
import pytest
from django.contrib.auth.models import AnonymousUser

from api.views import action_body
from games import selectors, services
from games.engine import RESIGN
from games.models import Game
from games.registry import kinds
from games.store import game_with_seats, load_state, stream

pytestmark = pytest.mark.django_db

MOVES = 40  # then everyone but the first seat resigns: a few seconds for every kind


def fresh(game_id, user, seat, rows):
    """The answer from the game and its events read afresh (the fast path's own inputs dropped)."""
    game = game_with_seats(game_id)
    return {"version": rows[-1].seq if rows else game.version,
            "events": selectors.redacted_events(game, seat, after=rows[0].seq - 1, upto=rows[-1].seq) if rows else [],
            "game": selectors.game_for(game, user)}


def check(outcome, people):
    viewers = [(user, outcome.game.seat_of(user)) for user in people] + [(AnonymousUser(), None)]
    for user, seat in viewers:
        answer = action_body(user, replace(outcome, seat=seat))
        assert b"{seat" not in orjson.dumps(answer["game"])  # every seat placeholder named
        # as JSON (PostgreSQL's jsonb keeps an object's keys in an order of its own)
        assert as_json(answer) == as_json(fresh(outcome.game.pk, user, seat, outcome.events)), (user, seat)


def as_json(data):
    return orjson.loads(orjson.dumps(data))


@pytest.mark.parametrize("slug", list(kinds()))
def test_it_answers_a_move_with_the_game_as_a_fresh_read_shows_it(slug, alice, bob, charlie, make_user):
    rules = kinds()[slug].rules
    players = [alice, bob, charlie, make_user("dora")][:4 if slug == "kinapa" else min(rules.MAX_PLAYERS, 3)]
    game = services.create_game(creator=alice, kind=slug, seats=[{"user": p.username} for p in players],
                                per_move=3600, on_timeout="forfeit", accepted=True)
    pick, keyed = random.Random(slug), []
    for step in range(MOVES + len(players)):
        game = game_with_seats(game.pk)
        if game.status != Game.ACTIVE:
            break
        seat = pick.choice(game.to_act)
        if step == 3 and len(players) > 2:  # a clock's forfeit takes a player out; the game goes on
            check(services.act(game.pk, seat, action=RESIGN, expected_version=game.version, by="timeout-forfeit"), players)
            continue
        key = f"move-{step}"
        # the rest resign at last, the last resignation ends the game
        action = RESIGN if step >= MOVES else pick.choice(rules.legal_actions(load_state(game), seat))["action"]
        outcome = services.act(game.pk, seat, action=action, idempotency_key=key)
        keyed.append((seat, action, key))
        check(outcome, players + [make_user(f"spectator{step}")])
    game = game_with_seats(game.pk)
    assert game.status == Game.FINISHED
    rows = list(stream(game))
    for first in [i for i, row in enumerate(rows) if row.command is not None]:  # the events of any last request
        assert selectors.game_for(game, alice, rows=rows[first:]) == selectors.game_for(game, alice)
    # the same requests again (their Idempotency-Key): answered with the game as it is now
    for seat, action, key in keyed[-2:]:
        check(services.act(game.pk, seat, action=action, idempotency_key=key), players)


def test_it_says_a_clocks_forfeit_ended_the_game_from_a_moves_own_events(alice, bob):
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}],
                                per_move=3600, on_timeout="forfeit", accepted=True)
    game = game_with_seats(game.pk)
    seat = game.to_act[0]
    services.act(game.pk, seat, action=RESIGN, expected_version=game.version, by="timeout-forfeit")
    game = game_with_seats(game.pk)
    rows = list(stream(game))
    assert "time ran out" in selectors.game_for(game, alice)["result"]["summary"]
    for first in [i for i, row in enumerate(rows) if row.command is not None]:
        # from the forfeit's own events, or from the resignation just after it (then it is read)
        assert selectors.game_for(game, alice, rows=rows[first:]) == selectors.game_for(game, alice)
