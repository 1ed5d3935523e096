"""Emails say nothing a seat may not know: change another seat's hidden data (in the state and
the stored events the email is made from) and the email, text and HTML, must not change.
Changing the recipient's own hidden data must change it (so the check can fail)."""

import copy

import pytest

from games import selectors, services
from games.kenta import rules as kenta
from games.models import Event
from games.store import load_state, stream
from kinplay.notifications.models import Outbox
from kinplay.notifications.services import compose
from tests.games.karenza.test_hidden import _swap_hand_card as swap_karenza_hand
from tests.games.kenta.test_leaks import _perturb as perturb_kenta
from tests.games.kinapa.test_leaks import _known as known_to
from tests.games.kinapa.test_leaks import _swap as swap_kinapa_cards
from tests.games.knonsters.test_leaks import swap_hand_card as swap_knonsters_hand
from tests.play import accepted, step

pytestmark = pytest.mark.django_db


def email(row):
    m = compose(row)
    return m.subject, m.body, m.alternatives[0][0]


def perturbed(monkeypatch, game, change):
    """Make every read of ``game`` see the state and events that ``change(events, state)`` returns."""
    rows = list(stream(game))
    state = load_state(game)
    events2, state2 = change([r.as_rules_event() for r in rows], state)
    fake_rows = []
    for r, e in zip(rows, events2):
        r2 = copy.copy(r)
        r2.data = e["data"]
        fake_rows.append(r2)
    real_load, real_stream = selectors.load_state, selectors.stream

    def load(g, upto=None, **kw):
        return copy.deepcopy(state2) if g.pk == game.pk and upto in (None, game.version) else real_load(g, upto, **kw)

    def read(g, after=0, upto=None):
        if g.pk != game.pk:
            return real_stream(g, after, upto)
        return [r for r in fake_rows if r.seq > after and (upto is None or r.seq <= upto)]

    monkeypatch.setattr(selectors, "load_state", load)
    monkeypatch.setattr(selectors, "stream", read)


def kenta_game_waiting_for(seat, alice, bob, charlie):
    seats = [{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}]
    game = accepted(services.create_game(creator=alice, kind="kenta", seats=seats, per_move=None))
    for _ in range(300):
        game.refresh_from_db()
        if game.to_act == [seat] and Event.objects.filter(game=game).count() > 6:
            return game
        step(game)
    raise AssertionError("never that seat's turn")


@pytest.mark.parametrize("victim", [0, 2])
def test_it_keeps_other_kenta_hands_objectives_and_the_pile_out_of_my_turn_email(alice, bob, charlie, monkeypatch, victim):
    game = kenta_game_waiting_for(1, alice, bob, charlie)
    row = Outbox.objects.create(kind=Outbox.YOUR_TURN, game=game, user=bob, version=game.version)
    before = email(row)
    mine = kenta.view(load_state(game), 1)["you"]
    assert all(kenta.CARDS[c]["name"] in before[1] for c in mine["hand"])
    perturbed(monkeypatch, game, lambda evs, st: perturb_kenta(evs, st, victim))
    assert email(row) == before


def test_it_shows_my_own_kenta_hand_so_a_change_to_it_changes_the_email(alice, bob, charlie, monkeypatch):
    game = kenta_game_waiting_for(1, alice, bob, charlie)
    row = Outbox.objects.create(kind=Outbox.YOUR_TURN, game=game, user=bob, version=game.version)
    before = email(row)
    perturbed(monkeypatch, game, lambda evs, st: perturb_kenta(evs, st, 1))
    after = email(row)
    assert after[1] != before[1] and after[2] != before[2]


def knonsters_race_waiting_for_bob(alice):
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    for _ in range(60):
        game.refresh_from_db()
        if game.to_act == [1] and load_state(game)["phase"] == "race":
            return game
        step(game)
    raise AssertionError("never bob's turn in the race")


def swap_alices_card(evs, st):
    changed = swap_knonsters_hand(st, evs, 0)
    assert changed is not None
    state, events = changed
    return events, state


def test_it_keeps_the_other_knonsters_hand_out_of_turn_emails_and_digests(alice, bob, monkeypatch):
    game = knonsters_race_waiting_for_bob(alice)
    other = knonsters_race_waiting_for_bob(alice)
    turn = Outbox.objects.create(kind=Outbox.YOUR_TURN, game=game, user=bob, version=game.version)
    digest = Outbox.objects.create(kind=Outbox.DIGEST, game=None, user=bob, version=0,
                                   games={str(game.pk): game.version, str(other.pk): other.version})
    before_turn, before_digest = email(turn), email(digest)
    assert "Your hand (" in before_turn[1] and before_digest[1].count("Your hand (") == 2
    perturbed(monkeypatch, game, swap_alices_card)
    assert email(turn) == before_turn
    assert email(digest) == before_digest


def test_it_shows_my_own_knonsters_hand_in_the_digest_so_a_change_to_it_changes_the_email(alice, bob, monkeypatch):
    game = knonsters_race_waiting_for_bob(alice)
    other = knonsters_race_waiting_for_bob(alice)
    digest = Outbox.objects.create(kind=Outbox.DIGEST, game=None, user=bob, version=0,
                                   games={str(game.pk): game.version, str(other.pk): other.version})
    before = email(digest)

    def swap_bobs_card(evs, st):
        state, events = swap_knonsters_hand(st, evs, 1)
        return events, state

    perturbed(monkeypatch, game, swap_bobs_card)
    after = email(digest)
    assert after[1] != before[1] and after[2] != before[2]


@pytest.mark.parametrize("victim, changes", [(0, False), (1, True)])
def test_it_keeps_the_other_karenza_hand_out_of_my_email_and_shows_mine(alice, bob, monkeypatch, victim, changes):
    game = accepted(services.create_game(creator=alice, kind="karenza", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    for _ in range(40):
        game.refresh_from_db()
        events = [r.as_rules_event() for r in stream(game)]
        if game.to_act == [1] and swap_karenza_hand(events, load_state(game), victim) is not None:
            break
        step(game)
    else:
        raise AssertionError("no position to test")
    row = Outbox.objects.create(kind=Outbox.YOUR_TURN, game=game, user=bob, version=game.version)
    before = email(row)
    perturbed(monkeypatch, game, lambda evs, st: swap_karenza_hand(evs, st, victim))
    after = email(row)
    assert (after != before) is changes


def test_it_keeps_cards_i_may_not_know_out_of_my_kinapa_email(alice, bob, monkeypatch):
    from games.engine import replay
    from games.kinapa import rules as kinapa

    game = accepted(services.create_game(creator=alice, kind="kinapa", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    for _ in range(40):
        game.refresh_from_db()
        if 1 in game.to_act:
            break
        step(game)
    events = [r.as_rules_event() for r in stream(game)]
    state = load_state(game)
    known = known_to(events, 1)
    # a card of alice's hand and one of a face-down BOT deck, neither of which bob has seen
    theirs = [c for c in state["hands"][0] if c not in known]
    decks = [c for h in state["hands"][state["n"]:] for c in h if c not in known]
    assert theirs and decks
    row = Outbox.objects.create(kind=Outbox.YOUR_TURN, game=game, user=bob, version=game.version)
    before = email(row)

    def swap(evs, st):
        evs2 = swap_kinapa_cards(evs, theirs[0], decks[0])
        st2 = replay(kinapa, evs2)
        assert decks[0] in st2["hands"][0] and theirs[0] not in st2["hands"][0]  # a real change
        return evs2, st2

    perturbed(monkeypatch, game, swap)
    assert email(row) == before
