"""The game page's table talk, live updates, rematch, rules pages and play settings."""

import re

import pytest
from django.db import IntegrityError, connection, transaction
from django.urls import reverse
from django.utils.html import escape

from games import chat, services
from games.models import AppendOnly, ChatMessage, Game
from games.registry import kinds
from kinplay.accounts.models import Profile
from kinplay.notifications.models import Outbox
from tests.web.test_pages import legal, tiny_game

pytestmark = pytest.mark.django_db


def test_it_shows_the_players_chat_to_the_other_player(signed_in, alice, bob, tiny):
    game = tiny_game(alice, bob)
    r = signed_in(alice).post(reverse("game-chat", args=[game.pk]), {"text": "  good   luck,\n bob "})
    assert r.status_code == 302 and r["Location"].endswith(f"/games/{game.pk}/#chat")
    page = signed_in(bob).get(reverse("game", args=[game.pk])).content.decode()
    assert "good luck, bob" in page
    line = ChatMessage.objects.get()
    assert (line.channel, line.seq, line.user) == (ChatMessage.PLAYERS, 1, alice)
    game.refresh_from_db()
    assert game.version == Game.objects.get(pk=game.pk).version  # talking is not a move


def test_it_offers_table_talk_by_email_only_while_the_game_runs(signed_in, alice, bob, tiny):
    game = tiny_game(alice, bob)
    hint = "By email: a reply line starting with"
    assert hint in signed_in(alice).get(reverse("game", args=[game.pk])).content.decode()
    services.resign(game.pk, 1)
    page = signed_in(alice).get(reverse("game", args=[game.pk])).content.decode()
    assert 'class="chat-form"' in page  # the page still takes a line
    assert hint not in page  # but no email can: a game's reply tokens die with it


def test_it_keeps_the_spectators_chat_from_the_players_until_the_end(alice, bob, charlie, tiny):
    game = tiny_game(alice, bob)
    chat.post_chat(game.pk, charlie, "bob should play the 3")
    assert ChatMessage.objects.get().channel == ChatMessage.SPECTATORS
    assert chat.lines(game, bob, ChatMessage.SPECTATORS) == []
    assert [m["text"] for m in chat.lines(game, charlie, ChatMessage.SPECTATORS)] == ["bob should play the 3"]
    services.resign(game.pk, 0)
    game.refresh_from_db()
    assert [m["text"] for m in chat.lines(game, bob, ChatMessage.SPECTATORS)] == ["bob should play the 3"]


def test_it_does_not_refresh_a_players_page_for_the_spectators_chat_it_does_not_show(signed_in, alice, bob, charlie,
                                                                                     tiny):
    game = tiny_game(alice, bob)
    url = reverse("game-live", args=[game.pk])
    page = signed_in(bob).get(reverse("game", args=[game.pk])).content.decode()
    player, spectator = signed_in(bob).get(url), signed_in(charlie).get(url)
    assert f'data-chat="{player.json()["chat"]}"' in page  # the page and its poll agree
    chat.post_chat(game.pk, charlie, "bob should play the 3")
    assert signed_in(bob).get(url, HTTP_IF_NONE_MATCH=player["ETag"]).status_code == 304
    assert signed_in(charlie).get(url, HTTP_IF_NONE_MATCH=spectator["ETag"]).status_code == 200
    services.resign(game.pk, 0)
    over = signed_in(bob).get(url)
    assert over.json()["chat"] == ChatMessage.objects.get().id  # once over, the players read it too


def test_it_refuses_empty_and_overlong_lines(alice, bob, tiny):
    game = tiny_game(alice, bob)
    with pytest.raises(chat.ChatRefused, match="Write something"):
        chat.post_chat(game.pk, alice, "   ")
    with pytest.raises(chat.ChatRefused, match="at most 500"):
        chat.post_chat(game.pk, alice, "x" * 501)
    assert not ChatMessage.objects.exists()


def test_it_keeps_chat_lines_append_only_in_the_model_and_the_database(alice, bob, tiny):
    game = tiny_game(alice, bob)
    line = chat.post_chat(game.pk, alice, "hello")
    line.text = "edited"
    with pytest.raises(AppendOnly):
        line.save()
    with pytest.raises(AppendOnly):
        ChatMessage.objects.filter(pk=line.pk).delete()
    for sql in ("UPDATE games_chatmessage SET text = 'edited'", "DELETE FROM games_chatmessage"):
        with pytest.raises(Exception, match="append-only"), transaction.atomic(), connection.cursor() as c:
            c.execute(sql)
    with pytest.raises(IntegrityError), transaction.atomic():  # (game, channel, seq) is unique
        ChatMessage.objects.create(game=game, channel=ChatMessage.PLAYERS, seq=1, user=bob, text="twin")
    assert ChatMessage.objects.get().text == "hello"


def test_it_answers_an_idle_page_304_and_a_changed_one_200(signed_in, alice, bob, tiny):
    game = tiny_game(alice, bob)
    client = signed_in(bob)
    url = reverse("game-live", args=[game.pk])
    first = client.get(url)
    assert first.status_code == 200 and first.json()["version"] == game.version
    etag = first["ETag"]
    idle = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert idle.status_code == 304 and idle.content == b""
    chat.post_chat(game.pk, alice, "your move")
    after_chat = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert after_chat.status_code == 200 and after_chat["ETag"] != etag
    etag = after_chat["ETag"]
    services.act(game.pk, 0, notation=legal(game, 0)[0]["notation"])
    moved = client.get(url, HTTP_IF_NONE_MATCH=etag)
    assert moved.status_code == 200 and moved.json()["version"] > game.version


def talked_then_moved(alice, bob):
    """A Karenza game where alice said something and then moves were made until the turn passed
    to the other seat, so that its turn email is news (a first move may keep the turn: then
    nobody is sent one)."""
    from tests.play import accepted, step

    game = accepted(services.create_game(creator=alice, kind="karenza", options={}, per_move=None,
                                         seats=[{"user": "alice"}, {"user": "bob"}]))
    chat.post_chat(game.pk, alice, "prepare to lose")
    first = game.to_act
    for _ in range(20):
        step(game)
        game.refresh_from_db()
        if game.to_act != first:
            return game
    raise AssertionError("the turn never passed")


def test_it_puts_the_table_talk_in_the_turn_email(alice, bob, inbox):
    talked_then_moved(alice, bob)
    turns = [m for m in inbox() if "Table talk" in m.body]
    assert turns, "no turn email with the table talk"
    assert "alice: prepare to lose" in turns[-1].body
    assert "prepare to lose" in turns[-1].alternatives[0][0]


def test_it_asks_for_a_say_reply_only_in_an_email_that_can_be_answered(alice, bob, inbox):
    game = talked_then_moved(alice, bob)
    turn = [m for m in inbox() if "Table talk" in m.body][-1]
    assert turn.reply_to and 'starting with "say:"' in turn.body  # a turn email: reply to it
    chat.post_chat(game.pk, alice, "good game")
    services.resign(game.pk, 1)
    over = [m for m in inbox() if "is over" in m.subject and "Table talk" in m.body]
    assert over, "no game-over email with the table talk"
    for mail in over:  # no reply address: a "say:" line would go nowhere
        assert not mail.reply_to
        assert "say:" not in mail.body and "say:" not in mail.alternatives[0][0]


def test_it_starts_a_rematch_with_the_seats_rotated_and_the_same_options(signed_in, alice, bob, tiny):
    game = tiny_game(alice, bob, per_move=3600, options={"pace": "wild"})
    services.resign(game.pk, 1)
    r = signed_in(bob).post(reverse("game-rematch", args=[game.pk]))
    new = Game.objects.exclude(pk=game.pk).get()
    assert r["Location"] == reverse("game", args=[new.pk])
    assert [s.user for s in new.seats.order_by("index")] == [bob, alice]  # rotated: bob starts
    assert new.options == game.options and new.per_move == 3600 and new.rematch_of_id == game.pk
    assert new.seats.get(user=alice).invited  # alice is asked again, like any invitation
    again = signed_in(alice).post(reverse("game-rematch", args=[game.pk]))
    assert again["Location"] == reverse("game", args=[new.pk]) and Game.objects.count() == 2
    new.refresh_from_db()
    assert new.status == Game.ACTIVE and not new.seats.get(user=alice).invited  # asking for it was her yes
    assert f'href="/games/{new.pk}/"' in signed_in(alice).get(reverse("game", args=[game.pk])).content.decode()


def test_it_does_not_say_the_opponent_asked_when_i_ask_for_my_rematch_twice(signed_in, alice, bob, tiny):
    game = tiny_game(alice, bob)
    services.resign(game.pk, 1)
    client = signed_in(bob)
    client.post(reverse("game-rematch", args=[game.pk]))
    page = client.post(reverse("game-rematch", args=[game.pk]), follow=True).content.decode()  # a double click
    assert Game.objects.count() == 2
    assert "Your opponent already asked" not in page  # alice did not: bob did, a moment ago
    page = signed_in(alice).post(reverse("game-rematch", args=[game.pk]), follow=True).content.decode()
    assert "Your opponent already asked for the rematch" in page


def test_it_plays_again_with_bots(signed_in, alice, bob, tiny):
    game = tiny_game(alice, bob)
    services.resign(game.pk, 1)
    signed_in(alice).post(reverse("game-rematch", args=[game.pk]), {"with": "bots"})
    new = Game.objects.exclude(pk=game.pk).get()
    seats = list(new.seats.order_by("index"))
    assert seats[0].user == alice and seats[1].bot == "heuristic" and new.status == Game.ACTIVE
    assert new.rematch_of_id is None and not new.rated
    # alice is taken to it: no email says that it is her turn
    assert new.to_act == [0] and not Outbox.objects.filter(kind=Outbox.YOUR_TURN, game=new).exists()


def test_it_refuses_a_rematch_before_the_end_or_to_an_outsider(signed_in, alice, bob, charlie, tiny):
    game = tiny_game(alice, bob)
    signed_in(alice).post(reverse("game-rematch", args=[game.pk]))
    services.resign(game.pk, 1)
    signed_in(charlie).post(reverse("game-rematch", args=[game.pk]))
    assert Game.objects.count() == 1


@pytest.mark.parametrize("slug", list(kinds()))
def test_it_has_a_rules_page_with_every_card(client, slug):
    from kinplay.web import rules_pages

    page = client.get(reverse("rules", args=[slug])).content.decode()
    for section in rules_pages.card_sections(slug):
        for card in section["cards"]:
            assert escape(card["text"]) in page and escape(card["name"]) in page
    assert "how kinplay reads the rulebook" in page
    assert client.get(reverse("rules", args=["nonsense"])).status_code == 404


def test_it_sums_up_kinapa_on_its_rules_page_as_the_rulebook_plays_it(client):
    """Kinapa rulebook p.5: "Raise your hand / Do nothing: «I don't have the card» «Maybe I have it,
    maybe not»", "2 or more players don't raise their hand: The Emperor then designates one of these
    players from whom they take a card at random", and p.9: "The player who lied by raising their
    hand receives the 2 Minister (Fox) cards". The summary said the Emperor takes from a player who
    raised a hand, and that the liar is one who raised a hand without the card: both backwards."""
    page = client.get(reverse("rules", args=["kinapa"])).content.decode()
    assert "from a player who raised a hand" not in page
    assert "raising a hand without the card" not in page
    assert "takes a card at random from one of them" in page
    assert "raised a hand while holding" in page


def test_it_sums_up_project_kins_special_spaces_as_the_rulebook_has_them(client):
    """Project_Kin rulebook, Special Spaces: "Retake: Take another turn." and "Ambush: No special
    rules". The summary said retake and ambush spaces "change who may take whom"."""
    page = client.get(reverse("rules", args=["project_kin"])).content.decode()
    assert "change who may take whom" not in page
    assert "a retake space gives another turn" in page


def test_it_saves_the_confirm_moves_setting(signed_in, alice):
    assert Profile.of(alice).confirm_moves is True
    signed_in(alice).post(reverse("settings"), {"email": alice.email, "email_turns": "on"})
    assert Profile.of(alice).confirm_moves is False
    signed_in(alice).post(reverse("settings"), {"email": alice.email, "confirm_moves": "on"})
    assert Profile.of(alice).confirm_moves is True


def test_it_speaks_to_the_holder_of_a_kenta_colour_objective():
    from games.kenta.render import _objective_text

    assert _objective_text("color-green", "green").startswith("Colour green, your own colour: +5 if you finish second")
    assert "if green is your colour" not in _objective_text("color-green", "red")


def test_it_sorts_the_lobby_by_urgency_and_shows_the_last_move(signed_in, alice, bob, tiny):
    from datetime import timedelta

    import time_machine
    from django.utils import timezone

    later = tiny_game(alice, bob, per_move=86400 * 3)
    with time_machine.travel(timezone.now() + timedelta(hours=1)):
        sooner = tiny_game(alice, bob, per_move=3600 * 2)
    # bob's move in both: the one due first comes first, whatever was created or touched last.
    for g in (sooner, later):  # the later one touched last: "most recent first" would put it first
        services.act(g.pk, 0, notation=legal(g, 0)[0]["notation"])
    page = signed_in(bob).get(reverse("lobby")).content.decode()
    turn = page[page.index('id="games-turn"'):]
    assert turn.index(f"#{sooner.pk}<") < turn.index(f"#{later.pk}<")
    assert "Last:</span> alice played" in page


def test_it_answers_an_unchanged_lobby_304(signed_in, alice, bob, tiny):
    game = tiny_game(alice, bob)
    client = signed_in(bob)
    first = client.get(reverse("lobby-live"))
    assert client.get(reverse("lobby-live"), HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 304
    services.act(game.pk, 0, notation=legal(game, 0)[0]["notation"])
    assert client.get(reverse("lobby-live"), HTTP_IF_NONE_MATCH=first["ETag"]).status_code == 200


def test_it_marks_the_lobby_page_as_its_poll_does_and_badges_the_games_waiting_alike(signed_in, alice, bob, tiny):
    waiting = [tiny_game(alice, bob) for _ in range(3)]  # alice to move in each
    tiny_game(bob, alice)
    services.resign(waiting[0].pk, 0)
    client = signed_in(alice)
    lobby = client.get(reverse("lobby")).content.decode()
    mark = re.search(r'data-mark="([0-9a-f]+)"', lobby).group(1)
    assert client.get(reverse("lobby-live"))["ETag"] == f'"l{mark}"'  # an open lobby does not reload itself
    badge = re.compile(r'title="(\d+) games? waiting for your move"')
    assert badge.search(lobby).group(1) == badge.search(client.get(reverse("tournaments")).content.decode()).group(1) == "2"


def test_it_offers_the_next_game_waiting_for_me(signed_in, alice, bob, tiny):
    mine = tiny_game(alice, bob)  # alice to move
    other = tiny_game(bob, alice)  # bob to move: nothing waits for alice there
    page = signed_in(alice).get(reverse("game", args=[other.pk])).content.decode()
    assert f'Next game waiting for you: Tiny #{mine.pk}' in page
    assert "Next game waiting" not in signed_in(alice).get(reverse("game", args=[mine.pk])).content.decode()


def test_it_replays_with_first_previous_next_last_and_the_event_highlighted(signed_in, alice, bob, tiny):
    game = tiny_game(alice, bob)
    for seat in (0, 1, 0):
        services.act(game.pk, seat, notation=legal(game, seat)[0]["notation"])
    game.refresh_from_db()
    page = signed_in(alice).get(reverse("game", args=[game.pk]) + "?at=2").content.decode()
    assert 'href="?at=1" data-key="Home"' in page and 'href="?at=1" rel="prev" data-key="ArrowLeft"' in page
    assert 'href="?at=3" rel="next" data-key="ArrowRight"' in page and 'data-key="End"' in page
    assert '<li data-seq="2" class="is-current" aria-current="step">' in page


def test_it_changes_and_resets_a_password_with_djangos_views(client, signed_in, alice, inbox):
    import re

    page = signed_in(alice).get(reverse("password_change"))
    assert page.status_code == 200 and "Change your password" in page.content.decode()
    r = signed_in(alice).post(reverse("password_change"), {
        "old_password": "a-long-password", "new_password1": "another-long-pass-77", "new_password2": "another-long-pass-77"})
    assert r.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("another-long-pass-77")

    client.logout()
    client.post(reverse("password_reset"), {"email": alice.email})
    link = re.search(r"https?://[^/]+(/password/reset/\S+/)", inbox()[-1].body).group(1)
    form = client.get(link, follow=True)
    assert "Choose a new password" in form.content.decode()
    client.post(form.redirect_chain[-1][0], {"new_password1": "third-long-pass-99", "new_password2": "third-long-pass-99"})
    alice.refresh_from_db()
    assert alice.check_password("third-long-pass-99")


def test_it_ends_the_api_token_with_the_old_password_changed_or_reset(client, signed_in, api, alice, inbox):
    """Whoever knew the old password may have made a token: a new password ends it, as it ends
    the other sessions."""
    import re

    from rest_framework.authtoken.models import Token

    def token_works(key):
        return client.get("/api/games/", HTTP_AUTHORIZATION=f"Token {key}").status_code == 200

    key = Token.objects.create(user=alice).key
    assert token_works(key)
    r = signed_in(alice).post(reverse("password_change"), {
        "old_password": "a-long-password", "new_password1": "another-long-pass-77", "new_password2": "another-long-pass-77"},
        follow=True)
    assert "Your API token stopped working" in r.content.decode()
    assert not token_works(key)

    key = Token.objects.create(user=alice).key
    client.logout()
    client.post(reverse("password_reset"), {"email": alice.email})
    link = re.search(r"https?://[^/]+(/password/reset/\S+/)", inbox()[-1].body).group(1)
    form = client.get(link, follow=True)
    client.post(form.redirect_chain[-1][0], {"new_password1": "third-long-pass-99", "new_password2": "third-long-pass-99"})
    assert not token_works(key) and not Token.objects.filter(user=alice).exists()


def test_it_explains_each_card_move_where_it_is_offered(signed_in, alice, bob):
    from games.karenza import render
    from kinplay.web.views import _game

    game = services.create_game(creator=alice, kind="karenza", options={}, per_move=None,
                                seats=[{"user": "alice"}, {"bot": "heuristic"}])
    from games.selectors import game_for
    from tests.play import step

    for _ in range(20):  # until alice is offered a card (she may have to draw first)
        game = _game(game.pk)
        offered = [a for a in game_for(game, alice)["legal_actions"] if (a["action"] or {}).get("card")]
        if offered:
            break
        step(game)
    assert offered, "no card move offered"
    page = signed_in(alice).get(reverse("game", args=[game.pk])).content.decode()
    for a in offered:
        assert f'<span class="move-help">{escape(render.explain(a))}</span>' in page
    assert "power" in render.explain(offered[0]) or ":" in render.explain(offered[0])
