"""Turn emails with the whole picture: board, own hand and objective, deadline, every event since
the player last looked, and the moves as reply text; the game-over standings."""

import re

import pytest

from games import selectors, services
from games.kenta import rules as kenta
from games.models import Event
from games.store import load_state
from kinplay.notifications.models import Outbox
from kinplay.notifications.services import compose
from tests.play import accepted, finish, step

pytestmark = pytest.mark.django_db


def turn_mail_to(inbox, who):
    # A reaction window's email says what to answer rather than "Your turn" (selectors.wait_line).
    return [m for m in inbox() if m.to == [f"{who}@example.com"] and (m.subject.startswith("Your turn") or " — your answer: " in m.subject)]


def until_turn_of(game, seat, max_steps=200):
    for _ in range(max_steps):
        game.refresh_from_db()
        if seat in game.to_act:
            return game
        step(game)
    raise AssertionError("the seat never came to act")


def test_it_shows_my_board_hand_objective_deadline_and_moves(alice, bob, inbox):
    game = accepted(services.create_game(creator=alice, kind="kenta", seats=[{"user": "alice"}, {"user": "bob"}],
                                per_move=2 * 86400, on_timeout="bot"))
    game.refresh_from_db()
    seat = game.to_act[0]
    user = (alice, bob)[seat]
    mail = turn_mail_to(inbox, user.username)[-1]
    me = load_state(game)
    view = kenta.view(me, seat)["you"]
    for card in view["hand"]:
        assert kenta.CARDS[card]["name"] in mail.body
    assert "Your secret objective:" in mail.body
    due = "Your answer is due" if selectors.waiting(game, seat)["window"] else "Your move is due"  # a secret vote asks an answer
    assert re.search(due + r" \w{3} \d\d:\d\d UTC, in \d+ \w+; then ", mail.body)
    assert "Finish line: square" in mail.body and "Players:" in mail.body
    for a in selectors.game_for(game, user)["legal_actions"]:
        assert f"  {a['notation']}  —  {a['label']}" in mail.body
    html = mail.alternatives[0][0]
    assert "<svg" in html and due in html
    # Mail clients drop <style> blocks and fetch nothing: every style is inline, nothing is linked.
    assert "<style" not in html and "<link" not in html and 'style="' in html


def test_it_says_what_the_timeout_policy_does(alice, bob, inbox):
    accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}],
                         per_move=3 * 3600, on_timeout="forfeit"))
    turns = [m for m in inbox() if m.subject.startswith("Your turn")]
    assert len(turns) == 2 and all("in 3 hours; then you lose the game by forfeit." in m.body for m in turns)


def test_it_says_which_answer_the_clock_gives_when_a_window_closes(alice, bob, inbox):
    game = accepted(services.create_game(creator=alice, kind="kenta", seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=2 * 86400, on_timeout="bot"))
    for _ in range(100):
        game.refresh_from_db()
        seat = game.to_act[0]
        state = load_state(game)
        entry = kenta.to_act(state)[seat]
        # a window whose default is a move of its own (a vote's "no marker" is not one: issue 13)
        if entry["kind"] == "window" and entry["default"] in [a["action"] for a in kenta.legal_actions(state, seat)]:
            break
        step(game)
    else:
        raise AssertionError("no window")
    user = (alice, bob)[seat]
    label = next(a["label"] for a in selectors.game_for(game, user)["legal_actions"] if a["action"] == entry["default"])
    mail = compose(Outbox.objects.create(kind=Outbox.YOUR_TURN, game=game, user=user, version=game.version))
    assert f"then “{label}” is answered for you." in mail.body and "a bot plays" not in mail.body


def test_it_lists_every_event_since_i_last_looked_not_only_the_last_eight(alice, bob, inbox):
    # "since I last looked": my last move, or my previous email about this game if it came later
    # (its lines were in that email; a game whose bots start mails both players before either moves)
    from django.db.models import Max

    seats = [{"user": "alice"}, {"user": "bob"}] + [{"bot": "heuristic"}] * 3
    game = accepted(services.create_game(creator=alice, kind="kenta", seats=seats, per_move=None))
    checked = 0
    for _ in range(60):
        game.refresh_from_db()
        if game.status != "active":
            break
        inbox().clear()
        before = {seat: Outbox.objects.filter(game=game, user=user, sent_at__isnull=False).aggregate(v=Max("version"))["v"] or 0
                  for seat, user in enumerate((alice, bob))}
        step(game)
        game.refresh_from_db()
        for mail in inbox():
            seat = 0 if mail.to == ["alice@example.com"] else 1
            last_move = Event.objects.filter(game=game, seat=seat).order_by("-seq").values_list("seq", flat=True).first() or 0
            lines = selectors.log_lines(game, seat, after=max(last_move, before[seat]), upto=game.version)
            body = mail.body
            for line in lines:
                assert f"  - {line['text']}" in body
            if len(lines) > 8:
                checked += 1
    assert checked, "no email spoke of more than eight events"


def test_it_lists_only_what_happened_since_my_previous_email(alice, bob, inbox):
    from kinplay.notifications.services import remind

    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=3600))
    game = until_turn_of(game, 1)
    turn_mail = turn_mail_to(inbox, "bob")[-1]
    assert "What happened since you last looked" in turn_mail.body
    remind(game.pk, 1)  # the same version: nothing happened since the turn email
    reminder = inbox()[-1]
    assert "is due soon" in reminder.body and "What happened since you last looked" not in reminder.body


def test_it_lists_the_bots_answer_to_my_email_move_in_my_next_turn_email(alice, bob, inbox):
    # The answer to a reply says only "accepted": what the bots did right after my move is
    # still news in my next turn email (alice, then a bot, then bob).
    from tests.mail.mails import reply

    seats = [{"user": "alice"}, {"bot": "heuristic"}, {"user": "bob"}]
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=seats, per_move=None))
    for _ in range(20):
        game.refresh_from_db()
        if game.to_act == [0]:
            break
        inbox().clear()
        step(game)
    mail = turn_mail_to(inbox, "alice")[-1]
    move = mail.body.split("Your moves:\n")[1].splitlines()[0].split("  —  ")[0].strip()
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=move) == "accepted"
    game.refresh_from_db()
    assert game.to_act == [2]
    mine = Event.objects.filter(game=game, command__by="email", seat=0).order_by("-seq").first().seq
    bots = [line for line in selectors.log_lines(game, 0, after=mine, upto=game.version) if line["seat"] == 1]
    assert bots, "the bot did not answer alice's move"
    inbox().clear()
    step(game)  # bob
    body = turn_mail_to(inbox, "alice")[-1].body
    for line in bots:
        assert f"  - {line['text']}" in body


def test_it_does_not_ask_for_table_talk_by_reply_in_an_email_that_cannot_be_replied_to(alice, bob, inbox):
    from games import chat

    game = accepted(services.create_game(creator=alice, kind="karenza", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    chat.post_chat(game.pk, alice, "good game, I give up")
    services.resign(game.pk, 0)
    [over] = [m for m in inbox() if m.to == ["bob@example.com"] and "is over" in m.subject]
    assert "alice: good game, I give up" in over.body and not over.reply_to
    assert "say:" not in over.body and "say:" not in over.alternatives[0][0]


def test_it_tells_everyone_the_final_standings_with_names_scores_and_result_lines(alice, bob, charlie, inbox):
    seats = [{"user": "alice"}, {"user": "bob"}, {"user": "charlie"}]
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=seats, per_move=None))
    finish(game)
    game.refresh_from_db()
    result = game.result
    over = {m.to[0].split("@")[0]: m for m in inbox() if "is over" in m.subject}
    assert set(over) == {"alice", "bob", "charlie"}
    body = over["bob"].body
    assert "Final standings:" in body
    names = ["alice", "bob", "charlie"]
    for i, name in enumerate(names):
        score = result["scores"][i]
        assert re.search(rf"{name} (won|shared the win|finished \d+\w\w) with {score} points?", body), (name, body)
    assert "(you)" in body and re.search(r"bob .*\(you\)", body)
    html = over["bob"].alternatives[0][0]
    for name in names:
        assert f"<strong>{name}</strong>" in html


def test_it_shows_deadlines_in_the_players_time_zone(alice, bob, inbox):
    from kinplay.accounts.models import Profile

    p = Profile.of(bob)
    p.time_zone = "America/New_York"
    p.save()
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=86400))
    game.refresh_from_db()
    mail = turn_mail_to(inbox, "bob")[0]
    local = game.deadline.astimezone(Profile.of(bob).tz)
    assert f"due {local.strftime('%a %H:%M')} {local.tzname()}, in 1 day" in mail.body
    assert "Times are in America/New_York." in mail.body


def test_it_composes_a_row_whose_game_moved_on_without_offering_stale_moves(alice, bob, inbox):
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    row = Outbox.objects.filter(kind=Outbox.YOUR_TURN).first()
    game.refresh_from_db()
    step(game)
    step(game)
    row.refresh_from_db()
    mail = compose(row)
    assert "Your moves" not in mail.body and mail.reply_to == []


def test_it_shows_what_the_clock_played_for_me_while_i_was_away(alice, inbox, time_machine):
    from datetime import timedelta

    from django.utils import timezone

    from kinplay.clocks.services import sweep

    time_machine.move_to(timezone.now(), tick=False)  # time moves only when the test says
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"bot": "heuristic"}], per_move=60))
    step(game, seat=0)  # alice chooses her favourites herself
    game.refresh_from_db()
    assert game.to_act == [0]
    inbox().clear()
    time_machine.shift(timedelta(seconds=61))
    sweep()  # a bot plays for alice, then the other bot
    game.refresh_from_db()
    timed_out = Event.objects.get(game=game, type="timed_out")  # the platform's event, before the bot's move
    lines = selectors.log_lines(game, 0, after=timed_out.seq - 1, upto=game.version)
    assert lines[0]["text"].startswith("alice's time ran out: a bot played for them — alice ")
    mail = turn_mail_to(inbox, "alice")[-1]
    assert lines and all(f"  - {line['text']}" in mail.body for line in lines)


def test_it_does_not_count_a_turn_email_that_was_never_sent_as_one_i_saw(alice, bob, inbox):
    from kinplay.notifications import picture

    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    game = until_turn_of(game, 1)
    assert turn_mail_to(inbox, "bob")  # sent
    mail = Outbox.objects.filter(user=bob, game=game, kind=Outbox.YOUR_TURN).latest("pk")
    assert picture.previous_version(mail, game, 1, game.version) < game.version  # there was news for bob
    # the relay found the turn had passed and never sent it (services.passed marks it so)
    Outbox.objects.filter(pk=mail.pk).update(error="not sent: the turn had passed")
    reminder = Outbox.objects.create(kind=Outbox.REMINDER, game=game, user=bob, version=game.version)
    assert "What happened since you last looked" in compose(reminder).body
