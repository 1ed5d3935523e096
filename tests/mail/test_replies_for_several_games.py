"""Replies that do more than one move: digests, invitations, standing and window answers."""

import pytest

from games import services
from games.models import Event
from kinplay.notifications import tokens
from kinplay.notifications.models import Outbox
from tests.mail.mails import reply
from tests.play import accepted

pytestmark = pytest.mark.django_db


def new_game(alice, bob):
    return accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))


def moves_of(game, user):
    from games import selectors

    game.refresh_from_db()
    return [a["notation"] for a in selectors.game_for(game, user)["legal_actions"]]


@pytest.fixture
def digest(alice, bob):
    """A digest email about two of alice's games (sent already: these tests only answer it)."""
    from django.utils import timezone

    one, two = new_game(alice, bob), new_game(alice, bob)
    for g in (one, two):
        g.refresh_from_db()
    row = Outbox.objects.create(kind=Outbox.DIGEST, game=None, user=alice, version=0, sent_at=timezone.now(),
                                games={str(one.pk): one.version, str(two.pk): two.version})
    return row, one, two


def events(*games):
    return Event.objects.filter(game__in=games).count()


def test_it_applies_a_digest_reply_game_by_game_and_answers_once(digest, alice, inbox):
    row, one, two = digest
    assert 0 in one.to_act and 0 in two.to_act  # Knonsters: the first seat starts
    inbox().clear()
    move = moves_of(one, alice)[0]
    body = f"#{one.pk} {move}\n#{two.pk} fly to the moon\n#999999 {move}\n"
    assert reply(to=tokens.reply_address(row), sender="alice@example.com", body=body) == "refused"
    assert Event.objects.filter(game=one, command__by="email").exists()
    assert not Event.objects.filter(game=two, command__by="email").exists()
    [answer] = inbox()
    assert answer.subject == "Your reply: 1 applied, 2 not applied"
    assert f"#{one.pk}: “{move}” was accepted" in answer.body
    assert f"#{two.pk}: “fly to the moon” was not accepted" in answer.body
    assert "#999999: this email was not about game #999999" in answer.body


def test_it_takes_a_digest_line_copied_whole_as_the_digest_asks(hourly_digest, inbox):
    """The digest says "reply with the whole line": "#12 play 3  —  Play card 3", label and all."""
    digest, second, third = hourly_digest
    assert "reply with the whole line" in digest.body
    listed = [line.strip() for line in digest.body.splitlines() if "  —  " in line]
    body = "\n".join(next(line for line in listed if line.startswith(f"#{g.pk} ")) for g in (second, third))
    inbox().clear()
    assert reply(to=digest.reply_to[0], sender="bob@example.com", body=body + "\n\nSent from my iPhone") == "accepted"
    assert Event.objects.filter(game=second, command__by="email").exists()
    assert Event.objects.filter(game=third, command__by="email").exists()


def test_it_asks_for_one_line_per_game_when_a_digest_reply_names_none(digest, alice, inbox):
    row, one, two = digest
    inbox().clear()
    before = events(one, two)
    assert reply(to=tokens.reply_address(row), sender="alice@example.com", body=moves_of(one, alice)[0]) == "refused"
    assert events(one, two) == before
    [answer] = inbox()
    assert "#12 play 3" in answer.body


def test_it_says_which_game_a_digest_reply_without_a_move_is_refused_for(digest, alice, inbox):
    # The answer names each line's game ("Knonsters #12: …"): the line needs its "#12:" as the others have.
    row, one, two = digest
    inbox().clear()
    reply(to=tokens.reply_address(row), sender="alice@example.com", body="ok")
    [answer] = inbox()
    assert "Knonsters Your reply" not in answer.body
    assert f"Knonsters #{one.pk}: your reply had no move in it" in answer.body


def test_it_says_a_chat_line_without_a_game_number_in_a_digest_reply_was_not_posted(digest, alice, inbox):
    from games.models import ChatMessage

    row, one, two = digest
    inbox().clear()
    body = f"#{one.pk} {moves_of(one, alice)[0]}\nsay: good luck everyone\n"
    assert reply(to=tokens.reply_address(row), sender="alice@example.com", body=body) == "refused"
    assert Event.objects.filter(game=one, command__by="email").exists()
    assert not ChatMessage.objects.filter(game__in=(one, two)).exists()
    [answer] = inbox()
    assert answer.subject == "Your reply: 1 applied, 1 not applied"
    assert "“good luck everyone” was not posted" in answer.body and f"#{one.pk} say: good luck everyone" in answer.body


def test_it_keeps_a_digest_chat_line_whole_with_its_dash_and_quotes(digest, alice, inbox):
    from games.models import ChatMessage

    row, one, two = digest
    body = f"#{two.pk} say: “gg” — see you next week\n"
    assert reply(to=tokens.reply_address(row), sender="alice@example.com", body=body) == "accepted"
    assert ChatMessage.objects.get(game=two).text == "“gg” — see you next week"


def test_it_reads_only_what_the_player_wrote_above_a_quoted_digest_in_any_language(digest, alice, inbox):
    """Outlook and Gmail in German quote without ">": the digest's own lines must not be replayed."""
    row, one, two = digest
    body = (f"#{one.pk} {moves_of(one, alice)[0]}\n\n"
            "Am Di., 24. Nov. 2026 um 10:00 Uhr schrieb kinplay <turns@kinplay.local>:\n\n"
            f"#{two.pk} {moves_of(two, alice)[0]}\n")
    reply(to=tokens.reply_address(row), sender="alice@example.com", body=body)
    assert Event.objects.filter(game=one, command__by="email").exists()
    assert not Event.objects.filter(game=two, command__by="email").exists()


def test_it_does_not_take_a_french_quote_header_for_a_move(alice, bob, inbox):
    new_game(alice, bob)
    mail = [m for m in inbox() if m.to == ["alice@example.com"]][-1]
    inbox().clear()
    body = "\n\nLe mar. 24 nov. 2026 à 10:00, kinplay <turns@kinplay.local> a écrit :\nplay 4\n"
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=body) == "refused"
    [answer] = inbox()
    assert "had no move in it" in answer.body and "a écrit" not in answer.body


def test_it_passes_window_answers_through_as_moves(alice, bob, inbox, monkeypatch):
    new_game(alice, bob)
    mail = [m for m in inbox() if m.to == ["alice@example.com"]][-1]
    seen = []
    monkeypatch.setattr(services, "act", lambda game_id, seat, **kw: seen.append((game_id, seat, kw["notation"])))
    for word in ("resolve", "stop", "raise", "nothing"):
        reply(to=mail.reply_to[0], sender="alice@example.com", body=f"{word}\n\nSent from my phone")
    assert [n for _, _, n in seen] == ["resolve", "stop", "raise", "nothing"]


@pytest.mark.parametrize("words,value", [
    ("always resolve", "always"), ("Always let it resolve", "always"), ("never raise my hand", "always"),
    ("ask me", "ask"), ("Ask me every time", "ask"), ("pass when unable", "unable"),
    ("pass for me when I cannot react", "unable"),
])
def test_it_sets_a_standing_answer_by_email(alice, bob, inbox, monkeypatch, words, value):
    game = new_game(alice, bob)
    mail = [m for m in inbox() if m.to == ["alice@example.com"]][-1]
    inbox().clear()
    calls = []
    monkeypatch.setattr(services, "set_standing_answer", lambda *a: calls.append(a), raising=False)
    before = events(game)
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=words) == "accepted"
    assert calls == [(game.pk, alice, value)] and events(game) == before
    [answer] = inbox()
    assert "standing answer is now" in answer.body


def test_it_says_why_a_standing_answer_by_email_was_not_accepted(alice, bob, inbox, monkeypatch):
    def refused(*args):
        raise services.BadRequest("The standing answer must be one of ask, resolve.")

    monkeypatch.setattr(services, "set_standing_answer", refused)
    new_game(alice, bob)
    mail = [m for m in inbox() if m.to == ["alice@example.com"]][-1]
    inbox().clear()
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body="always resolve") == "refused"
    [answer] = inbox()
    assert "not accepted: The standing answer must be one of ask, resolve. Nothing was changed." in answer.body


@pytest.mark.parametrize("word", ["accept", "Decline"])
def test_it_answers_an_invitation_by_email(alice, bob, inbox, monkeypatch, word):
    game = new_game(alice, bob)
    invitation = Outbox.objects.create(kind="invitation", game=game, user=bob, version=game.version)
    calls = []
    monkeypatch.setattr(services, "accept_invitation", lambda *a: calls.append(("accept", *a)), raising=False)
    monkeypatch.setattr(services, "decline_invitation", lambda *a: calls.append(("decline", *a)), raising=False)
    inbox().clear()
    assert reply(to=tokens.reply_address(invitation), sender="bob@example.com", body=word) == "accepted"
    no_colour = (None,) if word == "accept" else ()  # "accept" alone keeps the seat's colour
    assert calls == [(word.lower(), game.pk, bob, *no_colour)]
    [answer] = inbox()
    assert "invitation" in answer.body


def test_an_invitation_answer_counts_only_from_the_invited_player(alice, bob, charlie, inbox, monkeypatch):
    game = new_game(alice, bob)
    invitation = Outbox.objects.create(kind="invitation", game=game, user=bob, version=game.version)
    calls = []
    monkeypatch.setattr(services, "accept_invitation", lambda *a: calls.append(a), raising=False)
    assert reply(to=tokens.reply_address(invitation), sender="charlie@example.com", body="accept") == "wrong-sender"
    assert calls == []


@pytest.mark.parametrize("word,seated", [("Accept", True), ("decline", False)])
def test_an_invited_player_answers_the_invitation_email(alice, bob, inbox, word, seated):
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None)
    [invitation] = [m for m in inbox() if m.to == ["bob@example.com"]]
    inbox().clear()
    assert reply(to=invitation.reply_to[0], sender="bob@example.com", body=f"{word}\n\n> {invitation.body}") \
        == "accepted"
    game.refresh_from_db()
    assert (game.status == game.ACTIVE) is seated
    answer = next(m for m in inbox() if m.to == ["bob@example.com"] and "Invitation" in m.subject)
    assert answer.subject == f"Invitation {'accepted' if seated else 'declined'} in Knonsters #{game.pk}"
    assert ("accepted the invitation" if seated else "declined the invitation") in answer.body
    # the same words again, in a new email: the invitation is answered already
    again = reply(to=invitation.reply_to[0], sender="bob@example.com", body=word)
    assert again == "refused"


def test_it_says_how_to_answer_an_invitation_to_a_reply_that_is_neither_accept_nor_decline(alice, bob, inbox):
    game = services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None)
    [invitation] = [m for m in inbox() if m.to == ["bob@example.com"]]
    inbox().clear()
    assert reply(to=invitation.reply_to[0], sender="bob@example.com", body="No thanks, busy this week") == "refused"
    game.refresh_from_db()
    assert game.status == game.WAITING
    [answer] = inbox()
    assert answer.subject == f"Answer not accepted in Knonsters #{game.pk}"
    assert "reply with “accept” or “decline” on a line of its own" in answer.body and "has not started" not in answer.body


def test_a_real_digest_is_answered_game_by_game(hourly_digest, inbox):
    from tests.mail.test_digests_and_quiet_hours import to

    digest, second, third = hourly_digest
    assert digest.reply_to and f"#{second.pk}" in digest.body and f"#{third.pk}" in digest.body
    lines = [line.split("  —  ")[0].strip() for line in digest.body.splitlines() if "  —  " in line]
    picks = [next(x for x in lines if x.startswith(f"#{g.pk} ")) for g in (second, third)]
    inbox().clear()
    body = "\n".join(picks) + "\n\n> " + digest.body.replace("\n", "\n> ")
    assert reply(to=digest.reply_to[0], sender="bob@example.com", body=body) == "accepted"
    for g in (second, third):
        assert Event.objects.filter(game=g, command__by="email", seat=1).exists()
    # still inside the hour of the digest: a turn coming back to bob waits for the next one
    [answer] = to(inbox, "bob")
    assert answer.subject == "Your reply: 2 applied, 0 not applied"


@pytest.mark.parametrize("words,value", [("always resolve", "always"), ("ask me", "ask"), ("pass when unable", "unable")])
def test_a_standing_answer_by_email_is_stored_on_the_seat(alice, bob, inbox, words, value):
    from games.models import Seat

    game = new_game(alice, bob)
    mail = [m for m in inbox() if m.to == ["alice@example.com"]][-1]
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=words) == "accepted"
    assert Seat.objects.get(game=game, index=0).standing == value


def test_it_reads_a_game_number_written_close_to_its_move(digest, alice, inbox):
    row, one, two = digest
    body = f"#{one.pk}:{moves_of(one, alice)[0]}\n#{two.pk}: {moves_of(two, alice)[0]}\n"
    assert reply(to=tokens.reply_address(row), sender="alice@example.com", body=body) == "accepted"
    assert Event.objects.filter(game__in=[one, two], command__by="email").count() == 2
