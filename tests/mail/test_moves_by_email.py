import io
import sys

import pytest
from django.core.management import call_command

from games import selectors, services
from games.models import Event
from kinplay.notifications.replies import receive_message
from tests.mail.mails import parse, raw_reply, reply
from tests.play import accepted

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(alice, bob):
    return accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))


def turn_mail(inbox, who):
    return next(m for m in inbox() if m.to == [f"{who}@example.com"] and "Your turn" in m.subject)


def first_move(mail):
    return mail.body.split("Your moves:\n")[1].splitlines()[0].split("  —  ")[0].strip()


def test_it_takes_a_move_from_a_reply_to_the_turn_email(game, inbox):
    mail = turn_mail(inbox, "alice")
    move = first_move(mail)
    inbox().clear()
    body = f"{move}\n\nOn Sunday, kinplay wrote:\n> It is your turn\n"
    assert reply(to=mail.reply_to[0], sender="Alice <Alice@Example.com>", body=body) == "accepted"
    assert Event.objects.filter(game=game, command__by="email", seat=0).exists()
    assert [m.subject for m in inbox()] == [f"Move accepted in Knonsters #{game.pk}"]


def test_it_says_what_the_accepted_move_did_in_the_words_of_the_email(game, alice, inbox):
    mail = turn_mail(inbox, "alice")
    line = mail.body.split("Your moves:\n")[1].splitlines()[0].strip()
    move, label = line.split("  —  ")
    inbox().clear()
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=move.upper()) == "accepted"
    [answer] = inbox()
    assert f"“{move.upper()}” was accepted: {label}." in answer.body


def test_it_ignores_a_reply_from_someone_else(game, inbox):
    mail = turn_mail(inbox, "alice")
    inbox().clear()
    version = Event.objects.filter(game=game).count()
    assert reply(to=mail.reply_to[0], sender="mallory@example.com", body=first_move(mail)) == "wrong-sender"
    assert Event.objects.filter(game=game).count() == version and inbox() == []


def test_it_refuses_a_forged_token(game, inbox):
    alices = turn_mail(inbox, "alice").reply_to[0]
    bobs = turn_mail(inbox, "bob").reply_to[0]
    alice_row, bob_row = (a.split("+")[1].split("-")[0] for a in (alices, bobs))
    forged = alices.replace(f"+{alice_row}-", f"+{bob_row}-")  # alice's signature on bob's email
    version = Event.objects.filter(game=game).count()
    assert reply(to=forged, sender="bob@example.com", body="anything") == "bad-token"
    assert Event.objects.filter(game=game).count() == version


def test_it_explains_a_move_it_cannot_take(game, inbox):
    mail = turn_mail(inbox, "alice")
    inbox().clear()
    version = Event.objects.filter(game=game).count()
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body="fly to the moon") == "refused"
    assert Event.objects.filter(game=game).count() == version
    [answer] = inbox()
    assert "not accepted" in answer.subject and "fly to the moon" in answer.body


def test_it_lists_the_moves_in_the_answer_that_refuses_one(game, alice, inbox):
    """A player who never opens the site picks another move from the answer, and replies again."""
    mail = turn_mail(inbox, "alice")
    inbox().clear()
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body="play the best card\n\nSent from my iPhone") == "refused"
    [answer] = inbox()
    listed = [line.strip() for line in mail.body.split("Your moves:\n")[1].split("\n\n")[0].splitlines()]
    assert "Your moves now:\n" + "\n".join(f"  {line}" for line in listed) in answer.body
    assert "Reply to that email again" in answer.body
    assert "Your moves now:" in answer.alternatives[0][0]
    inbox().clear()
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=listed[0]) == "accepted"


def test_it_reads_a_raw_message_from_an_mta_pipe(game, inbox, monkeypatch, capsys):
    mail = turn_mail(inbox, "bob")
    raw = raw_reply(to=mail.reply_to[0], sender="Bob <bob@example.com>", body=f"{first_move(mail)}\r\n-- \r\nBob")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    call_command("receive_mail")
    assert capsys.readouterr().out.strip() == "accepted"
    assert Event.objects.filter(game=game, command__by="email", seat=1).exists()


def test_it_believes_an_unauthenticated_pipe_only_when_told_to(game, inbox, monkeypatch, capsys):
    """`manage.py receive_mail --trust-unauthenticated` is the development path without a mail server."""
    mail = turn_mail(inbox, "bob")
    raw = raw_reply(to=mail.reply_to[0], sender="bob@example.com", body=first_move(mail), authenticated=False)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    call_command("receive_mail")
    assert capsys.readouterr().out.strip() == "unauthenticated"
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))
    call_command("receive_mail", "--trust-unauthenticated")
    assert capsys.readouterr().out.strip() == "accepted"


def test_it_asks_the_mta_to_retry_when_the_database_is_down(game, inbox, monkeypatch):
    from django.db import OperationalError

    from kinplay.notifications.management.commands import receive_mail

    mail = turn_mail(inbox, "bob")
    raw = raw_reply(to=mail.reply_to[0], sender="bob@example.com", body=first_move(mail))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw)))

    def down(*args, **kwargs):
        raise OperationalError("connection refused")

    monkeypatch.setattr(receive_mail, "receive_message", down)
    with pytest.raises(SystemExit) as exit:
        call_command("receive_mail")
    assert exit.value.code == 75  # EX_TEMPFAIL: the MTA keeps the message and tries again


def test_it_puts_no_traceback_in_what_the_mta_may_bounce(game, inbox, monkeypatch, capsys, settings, tmp_path):
    from kinplay.notifications.management.commands import receive_mail

    settings.VAR_DIR = tmp_path

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"From: x@y.z\r\n\r\nhi")))

    def bug(*args, **kwargs):
        raise KeyError("secret internals")

    monkeypatch.setattr(receive_mail, "receive_message", bug)
    with pytest.raises(SystemExit) as exit:
        call_command("receive_mail")
    assert exit.value.code == 75
    out = capsys.readouterr()
    assert "secret internals" not in out.out + out.err and "Traceback" not in out.out + out.err
    assert "secret internals" in (tmp_path / "log" / "receive_mail.log").read_text()  # the operator's copy


def test_it_reads_a_reply_written_only_in_html(game, inbox):
    mail = turn_mail(inbox, "alice")
    move = first_move(mail)
    raw = raw_reply(to=mail.reply_to[0], sender="alice@example.com",
                    body=f"<div dir=\"ltr\">{move}<br></div><br><div class=\"gmail_quote\">On Tue, kinplay wrote:<br>"
                         f"<blockquote>It is your turn</blockquote></div>")
    raw = raw.replace(b"Content-Type: text/plain", b"Content-Type: text/html")
    from kinplay.notifications.replies import receive_message
    from tests.mail.mails import parse

    assert receive_message(parse(raw), raw=raw) == "accepted"


def test_it_reads_html_entities_in_a_reply_written_only_in_html_as_the_characters_they_are(game, inbox):
    # Gmail and Outlook write a typed double space as "&nbsp;", and "&", "'" and "<" as entities.
    from games.models import ChatMessage
    from kinplay.notifications.replies import receive_message
    from tests.mail.mails import parse

    mail = turn_mail(inbox, "alice")
    move = first_move(mail).replace(" ", "&nbsp; ", 1)
    raw = raw_reply(to=mail.reply_to[0], sender="alice@example.com",
                    body=f"<div dir=\"ltr\">{move}&nbsp;</div><div>say: rock &amp; roll, I&#39;m in</div>"
                         "<div class=\"gmail_quote\">On Tue, kinplay wrote:<blockquote>It is your turn</blockquote></div>")
    raw = raw.replace(b"Content-Type: text/plain", b"Content-Type: text/html")
    assert receive_message(parse(raw), raw=raw) == "accepted"
    assert Event.objects.filter(game=game, command__by="email", seat=0).exists()
    assert list(ChatMessage.objects.values_list("text", flat=True)) == ["rock & roll, I'm in"]


def test_it_posts_say_lines_to_the_game_chat_and_plays_the_move(game, inbox):
    from games.models import ChatMessage

    mail = turn_mail(inbox, "alice")
    move = first_move(mail)
    body = f"say: nice try, bob\n{move}\nSAY:  see you at the finish\n\nOn Sunday, kinplay wrote:\n> say: quoted\n"
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=body) == "accepted"
    assert [(m.user.username, m.channel, m.text) for m in ChatMessage.objects.order_by("seq")] == [
        ("alice", "players", "nice try, bob"), ("alice", "players", "see you at the finish")]
    assert Event.objects.filter(game=game, command__by="email", seat=0).exists()


def test_it_takes_a_reply_with_only_table_talk(game, inbox):
    from games.models import ChatMessage

    mail = turn_mail(inbox, "alice")
    inbox().clear()
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body="say: thinking, give me a day") == "accepted"
    assert ChatMessage.objects.get().text == "thinking, give me a day"
    assert not Event.objects.filter(game=game, command__by="email").exists()
    assert "thinking, give me a day" in inbox()[-1].body  # the answer says what was posted


def test_it_takes_table_talk_on_several_lines_as_talk_not_a_refused_move(game, inbox):
    from games.models import ChatMessage

    mail = turn_mail(inbox, "alice")
    inbox().clear()
    body = "say: Nice opening!\nI did not see that coming.\n\nSent from my iPhone"
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=body) == "accepted"
    assert ChatMessage.objects.get().text == "Nice opening!"
    [answer] = inbox()
    assert answer.subject == f"Answer accepted in Knonsters #{game.pk}"
    assert "you said “Nice opening!” at the table. No move was played" in answer.body
    assert "not accepted" not in answer.body


def test_it_takes_a_move_written_as_a_sentence_with_its_full_stop(game, inbox):
    mail = turn_mail(inbox, "alice")
    move = first_move(mail)
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=f"{move.capitalize()}.\n\nThanks") == "accepted"
    assert Event.objects.filter(game=game, command__by="email", seat=0).exists()
    mail = turn_mail(inbox, "bob")
    assert reply(to=mail.reply_to[0], sender="bob@example.com", body="Resign!") == "accepted"
    game.refresh_from_db()
    assert game.status == "finished"


def whole_line(mail, move):
    """The line of the email's move list a player copies: "<move>  —  <what it does>"."""
    return next(line.strip() for line in mail.body.splitlines() if line.strip().startswith(f"{move}  —  "))


def test_it_takes_a_move_copied_with_its_whole_line_from_the_turn_email(game, alice, inbox):
    mail = turn_mail(inbox, "alice")
    move, action, _ = chosen_and_others(game, alice, mail)
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=f"{whole_line(mail, move)}\n\nSent from my iPhone") == "accepted"
    assert played_by_email(game) == [action]
    assert f"“{move}” was accepted" in inbox()[-1].body


@pytest.mark.parametrize("written", ["“{}”", '"{}"', "*{}*", "\u200b{}", "\ufeff{}\u200e"],
                         ids=["curly quotes", "straight quotes", "bold in plain text", "zero-width space", "bom and mark"])
def test_it_takes_a_move_in_quotes_bold_or_with_invisible_characters(game, alice, inbox, written):
    mail = turn_mail(inbox, "alice")
    move, action, _ = chosen_and_others(game, alice, mail)
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=f"Hi!\n{written.format(move)}\n\nAlice") == "accepted"
    assert played_by_email(game) == [action]


def test_it_takes_a_move_with_its_plus_spaced_differently(game, alice, inbox):
    """"play Celya+5" typed "play celya + 5" (Karenza's "defend cliff + full-swing" typed without spaces)."""
    from tests.play import step

    for _ in range(30):
        game.refresh_from_db()
        mail = [m for m in inbox() if m.to == ["alice@example.com"] and m.reply_to][-1]
        plus = [m for m in listed_moves(mail) if "+" in m] if game.to_act == [0] and "Your moves:" in mail.body else []
        if plus:
            break
        step(game)
    assert plus, "alice never had a move with a +"
    actions = {a["notation"]: a["action"] for a in selectors.game_for(game, alice)["legal_actions"]}
    typed = plus[0].replace("+", " + ").lower()
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=typed) == "accepted"
    assert played_by_email(game) == [actions[plus[0]]]


def test_it_says_a_reply_with_only_a_dashed_signature_had_no_move(game, alice, inbox):
    mail = turn_mail(inbox, "alice")
    inbox().clear()
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body="— Alice") == "refused"
    assert "your reply had no move in it" in inbox()[-1].body


def test_it_keeps_a_dash_and_quotes_in_table_talk(game, alice, inbox):
    from games.models import ChatMessage

    mail = turn_mail(inbox, "alice")
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body="say: “well played” — really") == "accepted"
    assert list(ChatMessage.objects.filter(game=game).values_list("text", flat=True)) == ["“well played” — really"]


# ---------------------------------------------------------------- moves written below or between quoted lines

ATTRIBUTION = "On Tue, 24 Nov 2026 at 10:00, kinplay <turns@kinplay.local> wrote:"


def listed_moves(mail):
    """The notations the turn email lists, in order (without resign)."""
    listed = mail.body.split("Your moves:\n")[1].split("\n\n")[0].splitlines()
    return [m for m in (line.split("  —  ")[0].strip() for line in listed) if m and m != "resign"]


def quoted(text, depth=1):
    return "\n".join(f"{'>' * depth} {line}".rstrip() for line in text.splitlines())


def html_reply(mail, body):
    raw = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body=body)
    return receive_message(parse(raw.replace(b"Content-Type: text/plain", b"Content-Type: text/html")), raw=raw)


def chosen_and_others(game, alice, mail):
    """The last move the email lists (the one alice picks) and its action; the quote lists the others too."""
    moves = listed_moves(mail)
    assert len(moves) >= 2  # the quote lists moves other than hers
    actions = {a["notation"]: a["action"] for a in selectors.game_for(game, alice)["legal_actions"]}
    return moves[-1], actions[moves[-1]], moves[:-1]


def played_by_email(game):
    return [e.command["action"] for e in Event.objects.filter(game=game, command__by="email")]


def test_it_takes_a_move_written_below_the_quoted_turn_email(game, alice, inbox):
    mail = turn_mail(inbox, "alice")
    move, action, _ = chosen_and_others(game, alice, mail)
    body = f"{ATTRIBUTION}\n{quoted(mail.body)}\n\n{move}\n\n-- \nAlice\n"
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=body) == "accepted"
    assert played_by_email(game) == [action]


def test_it_takes_a_move_written_between_quoted_lines_after_a_greeting(game, alice, inbox):
    mail = turn_mail(inbox, "alice")
    move, action, _ = chosen_and_others(game, alice, mail)
    top, bottom = mail.body.split("Your moves:\n")
    body = (f"Nice opening, bob.\n\n{ATTRIBUTION}\n{quoted(top)}\n> Your moves:\n\n{move}\n\n"
            f"{quoted(bottom)}\n\nCheers,\nAlice\n")
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=body) == "accepted"
    assert played_by_email(game) == [action]


def test_it_plays_the_first_of_two_moves_in_a_reply_and_says_the_second_was_not_played(game, alice, inbox):
    mail = turn_mail(inbox, "alice")
    moves = listed_moves(mail)
    actions = {a["notation"]: a["action"] for a in selectors.game_for(game, alice)["legal_actions"]}
    inbox().clear()
    body = (f"{moves[0]}\n{moves[0].upper()}\nthen {moves[1]}\n{moves[1]}\n{moves[1]}.\n\nSent from my iPhone\n\n"
            f"{ATTRIBUTION}\n{quoted(mail.body)}")
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=body) == "refused"
    assert played_by_email(game) == [actions[moves[0]]]
    [answer] = inbox()
    assert answer.subject == "Your reply: 1 applied, 1 not applied"
    assert f"“{moves[0]}” was accepted" in answer.body
    assert f"“{moves[1]}” was not played: a reply plays one move, and “{moves[0]}” came first" in answer.body


def test_it_never_plays_a_move_from_the_quoted_email(game, alice, inbox):
    """The quote lists the legal moves (here one even on a line of its own, as an older reply quoted
    in the thread): with nothing of hers but a thank-you, nothing is played."""
    mail = turn_mail(inbox, "alice")
    _, _, others = chosen_and_others(game, alice, mail)
    thread = f"{quoted(mail.body)}\n>\n> On Mon, alice wrote:\n{quoted(others[0], depth=2)}"
    for body in (f"{ATTRIBUTION}\n{thread}\n", f"Thanks!\n\n{ATTRIBUTION}\n{thread}\n\nThanks again!\n",
                 f"Thanks!\n\n{quoted(others[0])}\n"):
        assert reply(to=mail.reply_to[0], sender="alice@example.com", body=body) == "refused"
    assert played_by_email(game) == []


def test_it_never_reads_below_a_quote_outlook_did_not_mark(game, alice, inbox):
    """Outlook quotes without ">": below its "From: … Sent: …" block nothing is hers (here the
    quoted message is her own earlier reply, a move alone on its line, above the turn email)."""
    mail = turn_mail(inbox, "alice")
    _, _, others = chosen_and_others(game, alice, mail)
    body = (f"Thanks!\n\nFrom: alice <alice@example.com>\nSent: Tuesday, November 24, 2026 10:05 AM\n"
            f"To: kinplay <turns@kinplay.local>\nSubject: Re: {mail.subject}\n\n{others[0]}\n\n{mail.body}\n")
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=body) == "refused"
    assert played_by_email(game) == []


@pytest.mark.parametrize("html", [False, True], ids=["text", "html"])
def test_it_never_plays_a_listed_move_from_a_quote_whose_header_it_does_not_know(game, alice, inbox, html):
    """Zoho writes "---- On … wrote ----" above an unmarked quote: the turn email's move lines
    ("<move>  —  <what it does>", which a player may also copy whole) are below its own headings."""
    mail = turn_mail(inbox, "alice")
    header = "---- On Tue, 24 Nov 2026 10:00:00 +0000 kinplay &lt;turns@kinplay.local&gt; wrote ----"
    if html:
        body = f"<div>Let me think about it</div><div>{header}</div>{mail.alternatives[0][0]}"
        raw = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body=body)
        outcome = receive_message(parse(raw.replace(b"Content-Type: text/plain", b"Content-Type: text/html")), raw=raw)
    else:
        body = f"Let me think about it\n\n{header.replace('&lt;', '<').replace('&gt;', '>')}\n\n{mail.body}"
        outcome = reply(to=mail.reply_to[0], sender="alice@example.com", body=body)
    assert outcome == "refused"
    assert played_by_email(game) == []


def test_it_takes_a_move_written_below_a_blockquote_in_an_html_only_reply(game, alice, inbox):
    mail = turn_mail(inbox, "alice")
    move, action, others = chosen_and_others(game, alice, mail)
    body = (f'<html><head><style>p {{ margin: 0 }}</style></head><body><div class="moz-cite-prefix">{ATTRIBUTION}'
            f'<br></div><blockquote type="cite">{mail.alternatives[0][0]}<div>{others[0]}</div></blockquote>'
            f'<p>{move}</p><pre class="moz-signature">-- \nAlice</pre></body></html>')
    assert html_reply(mail, body) == "accepted"
    assert played_by_email(game) == [action]


def test_it_never_plays_a_move_from_a_blockquote_in_an_html_only_reply(game, alice, inbox):
    mail = turn_mail(inbox, "alice")
    _, _, others = chosen_and_others(game, alice, mail)
    for body in (f"<div>Thanks!</div><blockquote><div>{others[0]}</div></blockquote>",
                 f'<div dir="ltr">Thanks!</div><div class="gmail_quote">{ATTRIBUTION}<blockquote class="gmail_quote">'
                 f"{mail.alternatives[0][0]}<div>{others[0]}</div></blockquote></div>"):
        assert html_reply(mail, body) == "refused"
    assert played_by_email(game) == []


# ---------------------------------------------------------------- unsubscribing by email


def turn_mails_while_playing_on(game, inbox, who, seat):
    """Bots play both seats until the turn has come back to ``seat``; the turn emails ``who`` got."""
    from tests.play import step

    inbox().clear()
    left = False
    for _ in range(40):
        game.refresh_from_db()
        if seat not in game.to_act:
            left = True
        elif left:
            break
        step(game)
    assert left and seat in game.to_act
    return [m for m in inbox() if m.to == [f"{who}@example.com"] and m.reply_to]


@pytest.mark.parametrize("words", ["Unsubscribe", "Please unsubscribe me.", "Stop emailing me!"])
def test_it_stops_turn_emails_for_a_reply_that_says_unsubscribe(game, alice, inbox, words):
    from kinplay.accounts.models import Profile

    mail = turn_mail(inbox, "alice")
    assert 'To stop turn emails and reminders, reply "unsubscribe".' in mail.body  # what it says, in its words
    assert "reply <code" in mail.alternatives[0][0] and ">unsubscribe</code>" in mail.alternatives[0][0]
    inbox().clear()
    body = f"{words}\n\nSent from my iPhone\n\n{ATTRIBUTION}\n{quoted(mail.body)}"
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=body) == "accepted"
    [answer] = inbox()
    assert "you are unsubscribed: no more turn emails or reminders" in answer.body
    assert not Profile.of(alice).email_turns
    assert not Event.objects.filter(game=game, command__by="email").exists()
    assert turn_mails_while_playing_on(game, inbox, "alice", 0) == []


def test_it_plays_the_move_of_a_reply_that_also_says_unsubscribe(game, alice, inbox, monkeypatch):
    from kinplay.accounts.models import Profile

    mail = turn_mail(inbox, "alice")
    move = first_move(mail)
    inbox().clear()
    asked = count_calls(monkeypatch, "commands")
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=f"{move}\nunsubscribe\nThanks, Alice",
                 subject=f"Re: {mail.subject}") == "accepted"
    [answer] = inbox()
    assert "you are unsubscribed" in answer.body and f"“{move}” was accepted" in answer.body
    assert not Profile.of(alice).email_turns
    assert Event.objects.filter(game=game, command__by="email").exists()
    assert asked == [1]  # which lines are moves is worked out once


def test_it_posts_the_table_talk_of_a_reply_that_says_unsubscribe(game, alice, inbox, monkeypatch):
    from games.models import ChatMessage
    from kinplay.accounts.models import Profile

    mail = turn_mail(inbox, "alice")
    inbox().clear()
    asked = count_calls(monkeypatch, "commands")
    body = f"say: thanks for the games, bye\nunsubscribe\n\n{ATTRIBUTION}\n{quoted(mail.body)}"
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=body, subject=f"Re: {mail.subject}") == "accepted"
    assert ChatMessage.objects.get().text == "thanks for the games, bye"
    [answer] = inbox()
    assert "you are unsubscribed" in answer.body and "you said “thanks for the games, bye” at the table." in answer.body
    assert "No move was played" not in answer.body  # she was leaving, not playing
    assert not Profile.of(alice).email_turns and played_by_email(game) == []
    assert asked == [1]


def count_calls(monkeypatch, name):
    """How often ``replies.<name>`` is called: a list of one count, read after the call."""
    from kinplay.notifications import replies

    real, calls = getattr(replies, name), [0]

    def counted(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(replies, name, counted)
    return calls


def test_it_unsubscribes_from_the_mail_programs_unsubscribe_button(game, alice, inbox):
    """Gmail, Apple Mail and Outlook show Unsubscribe for a List-Unsubscribe header and send its
    mailto: an email with that subject and a body of their own."""
    from urllib.parse import parse_qs, urlsplit

    from kinplay.accounts.models import Profile

    mail = turn_mail(inbox, "alice")
    mailto = next(link for link in mail.extra_headers["List-Unsubscribe"].split(", ") if link.startswith("<mailto:"))
    target = urlsplit(mailto.strip("<>"))
    assert target.scheme == "mailto"
    [subject] = parse_qs(target.query)["subject"]
    inbox().clear()
    raw = raw_reply(to=target.path, sender="alice@example.com", subject=subject,
                    body="This message was automatically generated by Gmail.")
    assert receive_message(parse(raw), raw=raw) == "accepted"
    assert not Profile.of(alice).email_turns
    assert "you are unsubscribed" in inbox()[-1].body


def test_it_unsubscribes_from_an_email_too_old_to_play_from(game, alice, inbox, settings):
    from datetime import timedelta

    import time_machine
    from django.utils import timezone

    from kinplay.accounts.models import Profile

    mail = turn_mail(inbox, "alice")
    with time_machine.travel(timezone.now() + timedelta(days=settings.MAIL_TOKEN_MAX_AGE_DAYS + 1)):
        assert reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail)) == "expired"
        assert reply(to=mail.reply_to[0], sender="alice@example.com", body="unsubscribe") == "accepted"
    assert not Profile.of(alice).email_turns


# ---------------------------------------------------------------- a move in the subject


@pytest.mark.parametrize("subject, own", [("{move}", ""), ("Re: {move}", "Thanks!\n"), ("AW: {ours} {move}", ""),
                                          ("{move} - Fwd: Re: {ours}", "Thanks!\n"), ("RE: Re:{ours}: {move}", "")])
def test_it_plays_a_move_written_in_the_subject_when_the_body_has_none(game, inbox, subject, own):
    mail = turn_mail(inbox, "alice")
    move = first_move(mail)
    inbox().clear()
    body = f"{own}\n{ATTRIBUTION}\n{quoted(mail.body)}"  # the quote lists every move: none of it is hers
    subject = subject.format(move=move.upper(), ours=mail.subject)
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=body, subject=subject) == "accepted"
    [answer] = inbox()
    assert f"“{move.upper()}” was accepted" in answer.body
    assert len(played_by_email(game)) == 1


@pytest.mark.parametrize("subject", ["Re: {ours}", "Re: Re: AW: {ours}", "{ours}"])
def test_it_plays_nothing_for_a_reply_whose_subject_is_only_ours(game, inbox, subject):
    mail = turn_mail(inbox, "alice")
    inbox().clear()
    body = f"{ATTRIBUTION}\n{quoted(mail.body)}"
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=body, subject=subject.format(ours=mail.subject)) \
        == "refused"
    assert played_by_email(game) == []
    assert "your reply had no move in it" in inbox()[-1].body


def test_it_plays_the_body_s_move_over_the_subject_s(game, inbox):
    mail = turn_mail(inbox, "alice")
    first, *others = listed_moves(mail)
    if not others:
        pytest.skip("one move only")
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=first, subject=f"Re: {others[0]}") == "accepted"
    assert f"“{first}” was accepted" in inbox()[-1].body


def test_it_reads_the_game_and_its_state_once_before_playing_a_reply(game, inbox, monkeypatch):
    """A greeting, the move and thanks: choosing the move, labelling it and playing it need the
    game as it is; only games.services.act reads it again, locked."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    mail = turn_mail(inbox, "alice")
    move = first_move(mail)
    real, before_act = services.act, []

    def act(*args, **kwargs):
        before_act.extend(q["sql"] for q in ctx.captured_queries)
        return real(*args, **kwargs)

    monkeypatch.setattr(services, "act", act)
    with CaptureQueriesContext(connection) as ctx:
        assert reply(to=mail.reply_to[0], sender="alice@example.com", body=f"Hello bob,\n{move}\nThanks") == "accepted"
    assert len([q for q in before_act if 'FROM "games_game"' in q]) == 1
    assert len([q for q in before_act if '"games_snapshot"' in q]) == 1  # the state: snapshot and events, one query


@pytest.mark.parametrize("subject, move", [
    ("Re: Reminder: your move in Knonsters #12 is due soon", ""),
    ("Re: Your turn in Knonsters #12 (due in 1 day)", ""),
    ("Re: Your turn in 2 games: Knonsters #12, Project_Kin #13", ""),
    ("AW: Kinapa #12: alice played the Emperor — answer raise or nothing (closes in 5 hours)", ""),
    ("Re: Reminder: Kenta #12: answer resolve or stop (no time limit)", ""),
    ("Re: alice invites you to play Kenta #4", ""),
    ("accept - Re: alice invites you to play Kenta #4", "accept"),
    ("Re: Your turn in Knonsters #12 (due in 1 day) play 3", "play 3"),
    ("SV: Re[2]: Reminder: your move in Kinapa #7 is due soon — nothing", "nothing"),
])
def test_it_reads_only_what_the_player_added_to_our_subject(subject, move):
    from email.message import EmailMessage

    from kinplay.notifications.replies import subject_command

    msg = EmailMessage()
    msg["Subject"] = subject
    assert subject_command(msg) == move


def test_it_posts_no_table_talk_from_an_old_email_once_the_game_is_over(game, alice, inbox):
    from games.models import ChatMessage

    mail = turn_mail(inbox, "alice")
    services.resign(game.pk, 1)  # bob resigns: the game ends, and the token of alice's email with it
    inbox().clear()
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body="say: good game!") == "refused"
    assert not ChatMessage.objects.exists()
    assert "this game is over" in inbox()[-1].body and "page" in inbox()[-1].body


def test_it_takes_a_resignation_from_the_current_turn_email(game, inbox):
    mail = turn_mail(inbox, "alice")
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body="resign") == "accepted"
    game.refresh_from_db()
    assert game.is_over and Event.objects.filter(game=game, seat=0, command__by="resign").exists()


def test_it_takes_a_resignation_from_an_email_whose_turn_has_passed(game, alice, inbox):
    """Not a move: a player may resign at any moment, so any still-valid email of the game takes
    it (docs/email.md), where a move must answer the turn its email was sent for."""
    old = turn_mail(inbox, "alice")
    reply(to=old.reply_to[0], sender="alice@example.com", body=first_move(old))
    assert reply(to=old.reply_to[0], sender="alice@example.com", body=first_move(old)) == "stale"  # a move: refused
    assert reply(to=old.reply_to[0], sender="alice@example.com", body="resign") == "accepted"
    game.refresh_from_db()
    assert game.is_over and Event.objects.filter(game=game, seat=0, command__by="resign").exists()
