"""The web pages: accounts, lobby, the new-game form, the game page and settings."""

import re
from datetime import UTC, datetime
from zoneinfo import ZoneInfo

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.urls import reverse

from games import services
from games.models import Event, Game
from games.registry import kinds
from games.store import load_state
from kinplay.accounts.models import Profile
from kinplay.notifications.models import Outbox
from tests.play import accepted
from tests.web import tinygame

pytestmark = pytest.mark.django_db


def tiny_game(*users, bots=0, **kw):
    seats = [{"user": u.username} for u in users] + [{"bot": "heuristic"}] * bots
    return accepted(services.create_game(creator=users[0], kind="tiny", options=kw.pop("options", {}), seats=seats,
                                         per_move=kw.pop("per_move", None), **kw))


def legal(game, seat):
    game.refresh_from_db()
    return tinygame.legal_actions(load_state(game), seat)


# ---------------------------------------------------------------- accounts


def test_it_signs_up_and_lands_in_the_lobby(client, inbox):
    r = client.post(reverse("signup"), {"username": "dora", "email": "dora@example.com", "password": "a-long-password"})
    assert r.status_code == 302 and r["Location"] == reverse("lobby")
    user = get_user_model().objects.get(username="dora")
    assert user.check_password("a-long-password")
    page = client.get(reverse("lobby")).content.decode()
    assert "Hello, dora" in page and "Welcome to kinplay" in page and "We sent a link to dora@example.com" in page
    # the address is used once its owner follows the link sent there, as for a change
    assert user.email == ""
    [mail] = inbox()
    client.get(re.search(r"https?://\S+", mail.body).group(0))
    user.refresh_from_db()
    assert user.email == "dora@example.com"


def test_it_starts_a_new_account_in_the_time_zone_its_device_sent_and_ignores_a_made_up_one(client):
    sent = {"email": "x@example.com", "password": "a-long-password"}
    client.post(reverse("signup"), {**sent, "username": "fay", "time_zone": "Europe/Berlin"})
    assert Profile.of(get_user_model().objects.get(username="fay")).time_zone == "Europe/Berlin"
    client.logout()
    r = client.post(reverse("signup"), {**sent, "username": "gus", "time_zone": "Mars/Olympus_Mons"})
    assert r.status_code == 302, "a zone we do not know must not refuse the sign-up"
    assert Profile.of(get_user_model().objects.get(username="gus")).time_zone == "UTC"


def test_it_shows_a_taken_username_as_a_field_error(client, alice):
    r = client.post(reverse("signup"), {"username": "Alice", "email": "a2@example.com", "password": "a-long-password"})
    assert r.status_code == 200
    assert "This username is taken" in r.content.decode()
    assert get_user_model().objects.filter(username__iexact="alice").count() == 1


def test_it_shows_password_and_email_errors(client):
    r = client.post(reverse("signup"), {"username": "erin", "email": "not-an-email", "password": "short"})
    page = r.content.decode()
    assert "Enter a valid email address" in page and "too short" in page
    assert not get_user_model().objects.filter(username="erin").exists()


def test_it_signs_in_and_out_through_the_pages(client, alice):
    page = client.get(reverse("login")).content.decode()
    assert 'name="username"' in page and 'name="password"' in page
    r = client.post(reverse("login"), {"username": "alice", "password": "a-long-password"})
    assert r.status_code == 302 and r["Location"] == reverse("lobby")
    bad = client.post(reverse("logout"))
    assert bad.status_code == 302
    r = client.post(reverse("login"), {"username": "alice", "password": "wrong"})
    assert "That username and password do not match." in r.content.decode()


def test_it_says_truly_which_part_of_a_refused_sign_in_minds_capitals(client, alice):
    """Django's words ("both fields may be case-sensitive") were wrong here: a name signs in in any case."""
    r = client.post(reverse("login"), {"username": "ALICE", "password": "a-long-password"})
    assert r.status_code == 302
    client.post(reverse("logout"))
    page = client.post(reverse("login"), {"username": "alice", "password": "A-LONG-PASSWORD"}).content.decode()
    assert "Check the password: capitals count there (not in the username)." in page
    assert "both fields may be case-sensitive" not in page


def test_it_says_so_after_signing_out(client, alice):
    client.force_login(alice)
    page = client.post(reverse("logout"), follow=True).content.decode()
    assert "You are signed out." in page and 'name="password"' in page
    assert client.get(reverse("settings")).status_code == 302  # and signed out it is


def test_it_welcomes_anonymous_visitors_and_sends_them_to_sign_in(client, alice, bob, tiny):
    page = client.get(reverse("lobby")).content.decode()
    assert reverse("signup") in page and reverse("login") in page
    game = tiny_game(alice, bob)
    r = client.get(reverse("game", args=[game.pk]))
    assert r.status_code == 302 and r["Location"].startswith(reverse("login"))


def test_it_brings_a_friend_who_signs_up_back_to_the_shared_game(client, alice, inbox, tiny):
    # "Share this page's address with a friend": the friend has no account yet
    game = services.create_game(creator=alice, kind="tiny", options={}, per_move=None, seats=[{"user": "alice"}, {}])
    login = client.get(client.get(reverse("game", args=[game.pk]))["Location"]).content.decode()
    signup = re.search(r'href="(/signup/[^"]*)">Create an account', login).group(1)
    form = client.get(signup).content.decode()
    back = re.search(r'name="next" value="([^"]*)"', form).group(1)
    r = client.post(reverse("signup"), {"username": "dora", "email": "dora@example.com",
                                        "password": "a-long-password", "next": back})
    assert r.status_code == 302 and r["Location"] == reverse("game", args=[game.pk])  # where the Join button is
    client.post(reverse("logout"))
    r = client.post(reverse("signup"), {"username": "erin", "email": "erin@example.com",
                                        "password": "a-long-password", "next": "https://elsewhere.example/"})
    assert r["Location"] == reverse("lobby")  # never off the site


# ---------------------------------------------------------------- lobby


def test_it_lists_the_games_waiting_for_me_first(signed_in, alice, bob, tiny):
    mine = tiny_game(alice, bob)  # alice (seat 0) to move
    theirs = tiny_game(bob, alice)  # bob to move; newer, so recency alone would list it first
    waiting = services.create_game(creator=alice, kind="tiny", options={}, seats=[{"user": "alice"}, {}])
    page = signed_in(alice).get(reverse("lobby")).content.decode()
    assert page.index(f"#{mine.pk}<") < page.index(f"#{theirs.pk}<") < page.index(f"#{waiting.pk}<")
    turn = page[page.index('id="games-turn"'):page.index('id="games-active"')]
    assert "Your turn" in turn and f"#{mine.pk}<" in turn and f"#{theirs.pk}<" not in turn


def test_it_offers_open_games_to_join(signed_in, alice, bob, tiny):
    game = services.create_game(creator=bob, kind="tiny", options={}, seats=[{"user": "bob"}, {}])
    c = signed_in(alice)
    page = c.get(reverse("lobby")).content.decode()
    assert reverse("game-join", args=[game.pk]) in page
    r = c.post(reverse("game-join", args=[game.pk]))
    assert r.status_code == 302
    game.refresh_from_db()
    assert game.status == Game.ACTIVE and game.seat_of(alice) == 1


def finished_ids(page: str) -> list[int]:
    section = page.split('id="games-finished"')[1].split("</section>")[0]
    return [int(pk) for pk in dict.fromkeys(re.findall(r'href="/games/(\d+)/"', section))]


def older_link(page: str) -> str | None:
    found = re.search(r'<a href="(\?older=\d+)#games-finished" rel="next">Older games</a>', page)
    return found and found.group(1)


def test_it_shows_the_newest_finished_games_and_all_of_them_on_a_page_of_the_site(signed_in, alice, bob, tiny):
    from kinplay.web.views import FINISHED_SHOWN

    games = [tiny_game(alice, bob) for _ in range(FINISHED_SHOWN + 2)]
    for g in games:
        services.resign(g.pk, 1)
    c = signed_in(alice)
    page = c.get(reverse("lobby")).content.decode()
    assert f"#{games[-1].pk}<" in page and f"#{games[0].pk}<" not in page
    assert older_link(page) and "/api/games/" not in page  # a page, not raw JSON
    older = c.get(reverse("lobby") + older_link(page)).content.decode()
    assert f"#{games[0].pk}<" in older and f"#{games[-1].pk}<" not in older and older_link(older) is None
    assert "Newest games" in older
    # every finished game once, newest first, across the pages
    assert finished_ids(page) + finished_ids(older) == [g.pk for g in reversed(games)]


# ---------------------------------------------------------------- new game


def form_data(**over):
    data = {"kind": "tiny", "players": "2", "seat-2-type": "heuristic", "per_move": "none", "on_timeout": "bot",
            "opt-tiny-cards": "3", "opt-tiny-pace": "calm", "opt-tiny-colours-0": "red", "opt-tiny-colours-1": "blue",
            "opt-tiny-limit": ""}
    data.update(over)
    return {k: v for k, v in data.items() if v is not None}


def test_it_generates_the_options_of_each_kind(signed_in, alice, tiny):
    page = signed_in(alice).get(reverse("new-game")).content.decode()
    assert 'type="checkbox" name="opt-tiny-double_last"' in page
    assert re.search(r'<select name="opt-tiny-pace"', page) and '<option value="wild"' in page
    assert 'type="number" name="opt-tiny-cards"' in page and 'max="5"' in page
    assert "How many cards each player is dealt." in page
    assert '<select name="opt-tiny-colours-1"' in page and 'placeholder="none"' in page
    for k in kinds().values():
        assert f'value="{k.slug}"' in page


def test_it_creates_a_game_through_the_form(signed_in, alice, bob, tiny):
    r = signed_in(alice).post(reverse("new-game"), form_data(**{
        "players": "3", "seat-2-type": "user", "seat-2-user": "bob", "seat-3-type": "random",
        "opt-tiny-double_last": "on", "per_move": "3600", "on_timeout": "skip"}))
    game = Game.objects.get()
    assert r.status_code == 302 and r["Location"] == reverse("game", args=[game.pk])
    assert game.kind == "tiny" and game.status == Game.WAITING  # until bob accepts the invitation
    assert game.options == {"cards": 3, "double_last": True, "pace": "calm", "colours": ["red", "blue"], "limit": None}
    assert [(s.name, s.invited) for s in game.seat_list] == [("alice", False), ("bob", True), ("Bot 3 (random)", False)]
    assert game.per_move == 3600 and game.on_timeout == "skip" and not game.invite_only
    assert accepted(game).status == Game.ACTIVE


def test_it_sends_no_turn_email_to_whoever_just_created_the_game_in_the_browser(signed_in, alice, bob, tiny):
    def turns_of(user, game):
        return list(Outbox.objects.filter(kind=Outbox.YOUR_TURN, user=user, game=game))

    signed_in(alice).post(reverse("new-game"), form_data())  # against a bot: it starts at once
    game = Game.objects.get()
    assert game.status == Game.ACTIVE and game.to_act == [0] and turns_of(alice, game) == []
    # A game that waited for bob: alice's first turn comes when he accepts, maybe days later.
    signed_in(alice).post(reverse("new-game"), form_data(**{"seat-2-type": "user", "seat-2-user": "bob"}))
    waited = accepted(Game.objects.latest("pk"))
    assert waited.to_act == [0] and len(turns_of(alice, waited)) == 1
    # A game made for alice by the API (a script, an app) still tells her by email.
    made = services.create_game(creator=alice, kind="tiny", seats=[{"user": "alice"}, {"bot": "heuristic"}])
    assert made.to_act == [0] and len(turns_of(alice, made)) == 1


def test_it_sends_no_turn_email_to_whoever_starts_the_game_by_accepting_or_joining_on_its_page(signed_in, alice, bob, tiny):
    def turns_of(user, game):
        return list(Outbox.objects.filter(kind=Outbox.YOUR_TURN, user=user, game=game))

    def waiting_for(seat):  # alice's game whose first turn is bob's (seat 0)
        return services.create_game(creator=alice, kind="tiny", seats=[seat, {"user": "alice"}], per_move=None)

    invited = waiting_for({"user": "bob"})
    signed_in(bob).post(reverse("game-accept", args=[invited.pk]))  # the last invitation: it starts
    invited.refresh_from_db()
    assert invited.status == Game.ACTIVE and invited.to_act == [0] and turns_of(bob, invited) == []
    open_seat = waiting_for({})
    signed_in(bob).post(reverse("game-join", args=[open_seat.pk]))
    open_seat.refresh_from_db()
    assert open_seat.to_act == [0] and turns_of(bob, open_seat) == []
    # Accepted through the API (or by email): bob is not looking at the game, the email tells him.
    elsewhere = waiting_for({"user": "bob"})
    services.accept_invitation(elsewhere.pk, bob)
    assert len(turns_of(bob, elsewhere)) == 1


def test_it_invites_a_player_by_name_written_in_another_case(signed_in, alice, bob, tiny):
    # as /players/Bob/ finds bob's page (names differ by more than case: usernames.key)
    r = signed_in(alice).post(reverse("new-game"), form_data(**{"seat-2-type": "user", "seat-2-user": "Bob"}))
    game = Game.objects.get()
    assert r.status_code == 302 and r["Location"] == reverse("game", args=[game.pk])
    assert [(s.name, s.invited) for s in game.seat_list] == [("alice", False), ("bob", True)]
    r = signed_in(alice).post(reverse("new-game"), form_data(**{"seat-2-type": "user", "seat-2-user": "ALICE"}))
    assert r.status_code == 400 and "Seat 2: you sit at seat 1 already." in r.content.decode()


def test_it_creates_a_game_with_an_open_seat_and_custom_clock(signed_in, alice, tiny):
    signed_in(alice).post(reverse("new-game"), form_data(**{
        "seat-2-type": "open", "per_move": "custom", "per_move_seconds": "90",
        "opt-tiny-colours-0": "green", "opt-tiny-limit": "30"}))
    game = Game.objects.get()
    assert game.status == Game.WAITING and game.per_move == 90
    assert game.options["colours"] == ["green", "blue"] and game.options["limit"] == 30


@pytest.mark.parametrize("data, reason", [
    ({"seat-2-type": "user", "seat-2-user": "nobody"}, "Seat 2: nobody here is called “nobody”."),
    ({"players": "3", "seat-3-type": "random", "opt-tiny-pace": "wild"}, "Wild pace is for 2 players only."),
    ({"opt-tiny-cards": "9"}, "Bad option cards"),
    ({"players": "7"}, "Tiny is for 2 to 3 players, not 7."),
    ({"seat-2-type": "user", "seat-2-user": ""}, "Seat 2: type the username"),
    ({"per_move": "custom"}, "Give the number of seconds per move."),
    ({"kind": "chess"}, "Select a valid choice"),
    ({"opt-tiny-colours-1": "pink"}, "Colours (Player 2): choose one of red, blue, green."),
    ({"opt-tiny-limit": "0"}, "Bad option limit"),
    ({"opt-tiny-limit": "ten"}, "Score limit must be a whole number."),
])
def test_it_shows_bad_input_in_the_form_and_creates_nothing(signed_in, alice, tiny, data, reason):
    r = signed_in(alice).post(reverse("new-game"), form_data(**data))
    page = r.content.decode()
    assert r.status_code == 400
    assert reason in page, page
    assert "Traceback" not in page
    assert not Game.objects.exists()


@pytest.mark.parametrize("seats, bad, reason", [
    ({"seat-2-user": "bobb", "seat-3-type": "random"}, 2, "Seat 2: nobody here is called “bobb”. Check the spelling"),
    ({"seat-2-user": "bob", "seat-3-type": "user", "seat-3-user": "Bob"}, 3, "Seat 3: Bob sits at seat 2 already."),
    ({"seat-2-user": "", "seat-3-type": "random"}, 2, "Seat 2: type the username of the player"),
])
def test_it_says_what_is_wrong_with_an_invited_name_beside_its_seat(signed_in, alice, bob, tiny, seats, bad, reason):
    """The reason stood only at the top of the form, a long way above the seat on a phone, and the
    name typed wrong was not marked: now its field is, the reason is under it and the cursor in it."""
    r = signed_in(alice).post(reverse("new-game"), form_data(**{"players": "3", "seat-2-type": "user", **seats}))
    page = r.content.decode()
    assert r.status_code == 400 and not Game.objects.exists()
    row = re.search(rf'<li class="seat-row field--error" data-seat="{bad}">(.*?)</li>', page, re.S)
    assert row, "the seat with the bad name is not marked"
    field = re.search(rf'<input type="text" name="seat-{bad}-user"[^>]*>', row.group(1)).group(0)
    assert 'aria-invalid="true"' in field and f'aria-describedby="seat-{bad}-error"' in field and "autofocus" in field
    assert re.search(rf'<p class="field-errors seat-error" id="seat-{bad}-error">{reason}', row.group(1))
    assert page.count("field--error") == 1


@pytest.mark.parametrize("seconds, reason", [
    ("-5", "Ensure this value is greater than or equal to 1."),
    ("99999999", "At most 7776000 seconds (90 days)."),
])
def test_it_says_what_is_wrong_with_the_seconds_per_move_in_the_pages_words(signed_in, alice, tiny, seconds, reason):
    r = signed_in(alice).post(reverse("new-game"), form_data(per_move="custom", per_move_seconds=seconds))
    page = r.content.decode()
    assert r.status_code == 400 and reason in page and not Game.objects.exists()
    assert "Give the number of seconds per move." not in page  # a number was given
    assert "clock.per_move" not in page and "or null" not in page  # the API's words, not the form's


def test_it_says_when_no_games_are_installed(signed_in, alice, monkeypatch):
    monkeypatch.setattr("kinplay.web.views.kinds", lambda: {})
    page = signed_in(alice).get(reverse("new-game")).content.decode()
    assert "No games are installed" in page


# ---------------------------------------------------------------- the game page


def test_it_shows_my_moves_as_buttons_and_plays_one(signed_in, alice, tiny):
    game = tiny_game(alice, bots=1)
    c = signed_in(alice)
    page = c.get(reverse("game", args=[game.pk])).content.decode()
    moves = legal(game, 0)
    for m in moves:
        assert f'value="{m["notation"]}"' in page and m["label"] in page
    assert f'name="expected_version" value="{game.version}"' in page
    assert "Your turn" in page and 'id="board"' in page and "Resign" in page
    before = Event.objects.filter(game=game).count()
    r = c.post(reverse("game-act", args=[game.pk]), {"notation": moves[0]["notation"], "expected_version": game.version})
    assert r.status_code == 302 and r["Location"] == reverse("game", args=[game.pk])
    played = Event.objects.filter(game=game, type="played", seat=0)
    assert played.count() == 1 and played.get().data["card"] == moves[0]["action"]["card"]
    assert Event.objects.filter(game=game).count() == before + 2  # the bot answered in the same transaction
    page = c.get(r["Location"]).content.decode()
    assert f"alice played a {moves[0]['action']['card']}." in page  # the log, newest first


def test_it_also_accepts_the_move_posted_to_the_game_page_itself(signed_in, alice, tiny):
    game = tiny_game(alice, bots=1)
    notation = legal(game, 0)[0]["notation"]
    r = signed_in(alice).post(reverse("game", args=[game.pk]), {"notation": notation})
    assert r.status_code == 302
    assert Event.objects.filter(game=game, type="played", seat=0).exists()


def test_it_shows_the_reason_of_a_move_that_is_not_legal(signed_in, alice, tiny):
    game = tiny_game(alice, bots=1)
    c = signed_in(alice)
    before = Event.objects.filter(game=game).count()
    r = c.post(reverse("game-act", args=[game.pk]), {"notation": "play 42"}, follow=True)
    page = r.content.decode()
    assert "“play 42” is not one of your moves now." in page and "flash-error" in page
    assert Event.objects.filter(game=game).count() == before


def test_it_shows_a_stale_version_as_a_message(signed_in, alice, bob, tiny):
    game = tiny_game(alice, bob)
    c = signed_in(alice)
    notation = legal(game, 0)[0]["notation"]
    r = c.post(reverse("game-act", args=[game.pk]), {"notation": notation, "expected_version": game.version - 1},
               follow=True)
    assert "The game moved on while you were choosing" in r.content.decode()
    assert not Event.objects.filter(game=game, type="played").exists()


def test_it_says_it_is_not_my_turn(signed_in, alice, bob, tiny):
    game = tiny_game(alice, bob)
    page = signed_in(bob).get(reverse("game", args=[game.pk])).content.decode()
    assert 'class="move-form"' not in page and "waiting for alice</span>" in page and "alice,<" not in page
    r = signed_in(bob).post(reverse("game-act", args=[game.pk]), {"notation": "play 1"}, follow=True)
    assert "is not one of your moves now" in r.content.decode() or "not your turn" in r.content.decode()


def test_it_keeps_hidden_hands_hidden(signed_in, alice, bob, charlie, tiny, monkeypatch):
    monkeypatch.setattr(tinygame, "setup", lambda n, options, rng: [tinygame.event("dealt", hands=[[7771], [8882]])])
    game = tiny_game(alice, bob)
    mine = signed_in(alice).get(reverse("game", args=[game.pk])).content.decode()
    assert "7771" in mine and "8882" not in mine  # the check below means something
    spectator = signed_in(charlie)
    r = spectator.get(reverse("game", args=[game.pk]))
    page = r.content.decode()
    assert r.status_code == 200
    assert "7771" not in page and "8882" not in page
    assert 'class="move-form"' not in page and "Resign" not in page and "board-move-form" not in page
    assert "Spectating" in page and "revealed when the game ends" in page


def test_it_refuses_a_post_from_someone_without_a_seat(signed_in, alice, bob, charlie, tiny):
    game = tiny_game(alice, bob)
    before = Event.objects.filter(game=game).count()
    c = signed_in(charlie)
    for url in ("game-act", "game-resign"):
        r = c.post(reverse(url, args=[game.pk]), {"notation": legal(game, 0)[0]["notation"]})
        assert r.status_code == 403
        assert "You have no seat at this game" in r.content.decode()
    assert Event.objects.filter(game=game).count() == before


def test_it_resigns_and_shows_the_result_with_the_seed(signed_in, alice, tiny):
    game = tiny_game(alice, bots=1)
    c = signed_in(alice)
    r = c.post(reverse("game-resign", args=[game.pk]), follow=True)
    page = r.content.decode()
    game.refresh_from_db()
    assert game.status == Game.FINISHED
    assert "You resigned" in page and "Final result" in page and 'id="result"' in page
    assert game.seed in page and game.seed_sha256 in page
    assert 'class="move-form"' not in page


def test_it_plays_a_whole_game_and_shows_the_winner(signed_in, alice, tiny):
    game = tiny_game(alice, bots=1)
    c = signed_in(alice)
    for _ in range(20):
        game.refresh_from_db()
        if game.status == Game.FINISHED:
            break
        c.post(reverse("game-act", args=[game.pk]), {"notation": legal(game, 0)[0]["notation"]})
    page = c.get(reverse("game", args=[game.pk])).content.decode()
    assert game.status == Game.FINISHED and "Game over." in page and "Winner" in page


def test_it_leads_to_the_older_moves_of_a_long_game_on_a_page_not_raw_data(signed_in, alice, tiny, monkeypatch):
    """The log shows the latest events; "older moves" led to the API's JSON, a dead end for a player."""
    monkeypatch.setattr("kinplay.web.views.LOG_EVENTS", 2)
    game = tiny_game(alice, bots=1)
    c = signed_in(alice)
    c.post(reverse("game-act", args=[game.pk]), {"notation": legal(game, 0)[0]["notation"]})
    game.refresh_from_db()
    assert game.version > 2
    page = c.get(reverse("game", args=[game.pk])).content.decode()
    older = re.search(r"Older moves: <a href=\"([^\"]+)\">([^<]+)</a>", page)
    assert older and "/api/" not in older.group(1) and older.group(2) == "replay the game from the start"
    replay = c.get(reverse("game", args=[game.pk]) + older.group(1).replace("&amp;", "&"))
    assert replay.status_code == 200 and "Replay:" in replay.content.decode()


def test_it_says_until_when_the_other_player_is_away_in_the_readers_own_time_zone(signed_in, alice, bob, tiny):
    from kinplay.clocks import vacation

    profile = Profile.of(alice)
    profile.time_zone = "Asia/Tokyo"
    profile.save(update_fields=["time_zone"])
    game = tiny_game(alice, bob, per_move=86400)
    with time_machine.travel(datetime(2026, 1, 10, 12, 0, tzinfo=UTC), tick=False):
        vacation.start(bob)
        page = signed_in(alice).get(reverse("game", args=[game.pk])).content.decode()
    ends = Profile.of(bob).vacation_ends_at.astimezone(ZoneInfo("Asia/Tokyo"))
    assert f"bob is on vacation until {ends:%a} {ends.day} {ends:%b, %H:%M} JST; their clock is paused." in page


def test_it_names_each_rules_link_and_says_it_opens_a_new_tab(signed_in, alice, tiny):
    """A screen reader heard "rules, rules, rules…" on the new-game form, one for each game, and
    was not told that they open in a new tab (the form is kept while the rules are read)."""
    c = signed_in(alice)
    game = tiny_game(alice, bots=1)
    for url in (reverse("new-game"), reverse("game", args=[game.pk])):
        page = c.get(url).content.decode()
        links = re.findall(r'<a [^>]*target="_blank"[^>]*>(.*?)</a>', page, re.S)
        names = [re.sub(r"<[^>]+>", "", link) for link in links]
        assert any(n.lower() == "rules of tiny (opens in a new tab)" for n in names), names
        assert all("(opens in a new tab)" in n for n in names), names
        assert len(set(names)) == len(names), f"links with the same name on {url}: {names}"


def test_it_shows_a_join_button_on_a_waiting_game(signed_in, alice, bob, tiny):
    game = services.create_game(creator=bob, kind="tiny", options={}, seats=[{"user": "bob"}, {}])
    page = signed_in(alice).get(reverse("game", args=[game.pk])).content.decode()
    assert "Join game" in page and reverse("game-join", args=[game.pk]) in page


def test_it_shows_unknown_games_as_a_product_404(signed_in, alice):
    r = signed_in(alice).get(reverse("game", args=[999999]))
    assert r.status_code == 404 and "This page is not on the table" in r.content.decode()


@pytest.mark.parametrize("slug", list(kinds()))
def test_it_plays_a_real_kind_through_the_page(signed_in, alice, slug):
    kind = kinds()[slug]
    data = {"kind": slug, "players": str(kind.rules.MIN_PLAYERS), "per_move": "none", "on_timeout": "bot"}
    for i in range(2, kind.rules.MIN_PLAYERS + 1):
        data[f"seat-{i}-type"] = "heuristic"
    c = signed_in(alice)
    r = c.post(reverse("new-game"), data)
    assert r.status_code == 302, r.content.decode()
    game = Game.objects.get()
    page = c.get(r["Location"]).content.decode()
    assert 'id="board"' in page and kind.name in page
    game.refresh_from_db()
    moves = kind.rules.legal_actions(load_state(game), 0)
    if moves:
        before = game.version
        c.post(reverse("game-act", args=[game.pk]), {"notation": moves[0]["notation"], "expected_version": before})
        game.refresh_from_db()
        assert game.version > before


def test_it_says_what_each_number_of_the_final_result_is(signed_in, alice, bob, tiny):
    """The game-over screen showed "+83 1583 0" beside a name: which is the rating, which the
    score? Each number now carries its name, for the eye and for a screen reader."""
    game = tiny_game(alice, bob, rated=True)
    services.resign(game.pk, 1)
    page = signed_in(alice).get(reverse("game", args=[game.pk])).content.decode()
    result = page[page.index('id="result"'):page.index("</section>", page.index('id="result"'))]
    rows = re.findall(r"<li class=.*?</li>", result, re.S)
    assert len(rows) == 2
    for row in rows:
        text = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", row))
        assert re.search(r"Rating [+\u2212]\d+ \u2192 , now \d+", text), text
        assert re.search(r"Score \d+", text), text


# ---------------------------------------------------------------- settings


def test_it_tells_a_player_on_vacation_when_it_ends_in_their_own_time_zone(client, alice):
    """Settings is where the player picks a time zone; the vacation just under it spoke UTC."""
    profile = Profile.of(alice)
    profile.time_zone = "America/Chicago"
    profile.save(update_fields=["time_zone"])
    client.force_login(alice)
    with time_machine.travel(datetime(2026, 1, 10, 12, 0, tzinfo=UTC), tick=False):
        page = client.post(reverse("settings-vacation"), {"vacation": "on"}, follow=True).content.decode()
    ends = Profile.of(alice).vacation_ends_at.astimezone(ZoneInfo("America/Chicago"))
    assert f"at the latest {ends:%a %d %b %Y, %H:%M} CST." in page
    assert "since Sat 10 Jan, 06:00 CST" in page and f"It ends by itself {ends:%a} {ends.day} {ends:%b, %H:%M} CST" in page
    assert "UTC" not in page[page.index('id="vacation"'):]


def test_it_says_when_the_confirmation_link_was_sent_in_the_players_own_time_zone(client, alice, inbox):
    profile = Profile.of(alice)
    profile.time_zone = "Asia/Tokyo"
    profile.save(update_fields=["time_zone"])
    client.force_login(alice)
    with time_machine.travel(datetime(2026, 1, 10, 12, 0, tzinfo=UTC), tick=False):
        client.post(reverse("settings"), {"email": "new-alice@example.com", "time_zone": "Asia/Tokyo"})
        assert inbox()  # the link is sent
        page = client.get(reverse("settings")).content.decode()
    assert "Waiting for confirmation" in page
    assert re.search(r"link sent <time[^>]*>Sat 10 Jan, 21:00 JST</time>", page), page


def test_it_saves_the_turn_email_switch_and_the_address(signed_in, alice, inbox):
    c = signed_in(alice)
    page = c.get(reverse("settings")).content.decode()
    assert "Email me when it is my turn" in page and "alice@example.com" in page
    r = c.post(reverse("settings"), {"email": "new@example.com"})  # the switch unchecked
    assert r.status_code == 302
    alice.refresh_from_db()
    # the new address is used only once its owner follows the link sent to it
    assert Profile.of(alice).email_turns is False and alice.email == "alice@example.com"
    [mail] = inbox()
    assert mail.to == ["new@example.com"]
    link = re.search(r"https?://\S+", mail.body).group(0)
    c.get(link)
    alice.refresh_from_db()
    assert alice.email == "new@example.com"
    c.post(reverse("settings"), {"email": "new@example.com", "email_turns": "on"})
    assert Profile.of(alice).email_turns is True


def test_it_creates_an_api_token_on_demand(signed_in, alice, api):
    from rest_framework.authtoken.models import Token

    c = signed_in(alice)
    assert "Create API token" in c.get(reverse("settings")).content.decode()
    c.post(reverse("settings-token"))
    token = Token.objects.get(user=alice)
    page = c.get(reverse("settings")).content.decode()
    assert token.key in page and "curl -H" in page


def test_it_speaks_of_an_older_token_only_when_it_replaces_one(signed_in, alice):
    c = signed_in(alice)
    first = c.post(reverse("settings-token"), follow=True).content.decode()
    assert "Your API token is ready." in first and "older token" not in first  # there was none
    again = c.post(reverse("settings-token"), follow=True).content.decode()
    assert "Any older token no longer works." in again


def test_it_counts_my_turns_in_the_header(signed_in, alice, bob, tiny):
    tiny_game(alice, bob)
    tiny_game(bob, alice)
    page = signed_in(alice).get(reverse("settings")).content.decode()
    assert re.search(r'class="nav-badge"[^>]*>1<', page)


def test_it_has_error_pages_that_render_without_a_request():
    from django.template.loader import get_template

    html = get_template("500.html").render({})
    assert "Something went wrong on our side" in html and "kinplay.css" in html


@pytest.mark.parametrize("slug", list(kinds()))
def test_it_draws_each_seat_its_own_view_and_spectators_the_public_one(signed_in, alice, bob, charlie, slug):
    from games.selectors import seat_names
    from kinplay.web.board import drawn

    kind = kinds()[slug]
    seats = [{"user": "alice"}, {"user": "bob"}] + [{"bot": "random"}] * (kind.rules.MIN_PLAYERS - 2)
    game = accepted(services.create_game(creator=alice, kind=slug, options={}, seats=seats, per_move=None))
    state, names = load_state(game), seat_names(game)
    for user, seat in ((alice, 0), (bob, 1), (charlie, None)):
        page = signed_in(user).get(reverse("game", args=[game.pk])).content.decode()
        assert drawn(kind, kind.rules.view(state, seat), seat, names)[0] in page  # the drawing, described
        if seat is None:
            assert "Spectating" in page and 'class="move-form"' not in page and "Resign" not in page
            assert game.seed not in page


@pytest.mark.parametrize("slug", list(kinds()))
def test_it_shows_an_aborted_game_that_never_started(signed_in, alice, slug):
    game = services.create_game(creator=alice, kind=slug, options={}, per_move=None,
                                seats=[{"user": "alice"}] + [{}] * (kinds()[slug].rules.MIN_PLAYERS - 1))
    services.abort(game.pk)
    r = signed_in(alice).get(reverse("game", args=[game.pk]))
    page = r.content.decode()
    assert r.status_code == 200 and "This game was cancelled before it started." in page and 'class="move-form"' not in page
    assert "Cancelled" in signed_in(alice).get(reverse("lobby")).content.decode()


def test_it_takes_a_double_click_as_one_move(signed_in, alice, bob, tiny):
    game = tiny_game(alice, bob)
    c = signed_in(alice)
    data = {"notation": legal(game, 0)[0]["notation"], "expected_version": game.version}
    c.post(reverse("game-act", args=[game.pk]), data)
    r = c.post(reverse("game-act", args=[game.pk]), data, follow=True)
    assert Event.objects.filter(game=game, type="played").count() == 1
    assert "flash-warning" not in r.content.decode() and "flash-error" not in r.content.decode()


def test_it_writes_white_on_the_turn_green_readably():
    """The "Your turn" badge and the menu's count of games waiting are white on the turn green
    (3.5:1 before; WCAG AA asks 4.5:1)."""
    import re
    from pathlib import Path

    from tests.games.knonsters.test_data_and_render import _contrast

    css = (Path(__file__).resolve().parents[2] / "static" / "kinplay.css").read_text()
    green = re.search(r"--turn:\s*(#[0-9a-fA-F]{6})", css).group(1)
    assert re.search(r"\.badge-turn \{ background: var\(--turn\); color: #fff; \}", css)
    assert re.search(r"\.nav-badge \{[^}]*background: var\(--turn\); color: #fff;", css)
    assert _contrast(green.lower(), "#ffffff") >= 4.5
