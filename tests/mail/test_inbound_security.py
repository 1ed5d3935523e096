"""Nobody moves for you by email: each attack on the inbound path, reproduced."""

import base64
import json
from datetime import timedelta
from pathlib import Path

import pytest
import time_machine
from django.core import signing
from django.utils import timezone

from games import services
from games.models import Event, Game
from kinplay.notifications import authentication
from kinplay.notifications.models import Outbox
from kinplay.notifications.replies import receive_message
from kinplay.notifications.webhooks import urlpatterns as webhook_urls
from tests.mail.mails import AUTHSERV, parse, raw_reply, reply
from tests.play import accepted, step

pytestmark = pytest.mark.django_db
HERE = Path(__file__).parent


@pytest.fixture
def game(alice, bob):
    return accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))


def turn_mail(inbox, who):
    return [m for m in inbox() if m.to == [f"{who}@example.com"] and "Your turn" in m.subject][-1]


def first_move(mail):
    return mail.body.split("Your moves:\n")[1].splitlines()[0].split("  —  ")[0].strip()


def events(game):
    return Event.objects.filter(game=game).count()


# ---------------------------------------------------------------- webhooks


def webhook_paths(kind="inbound"):
    paths = [str(p.pattern).strip("^$").replace("(_mime)?", "") for p in webhook_urls]
    return [f"/anymail/{p}" for p in paths if kind in p or (kind == "inbound" and p == "mandrill/")]


def postmark_payload(raw: bytes):
    return json.dumps({"RawEmail": raw.decode(), "Headers": [], "OriginalRecipient": ""})


def basic(secret="hook:s3cret"):
    return {"HTTP_AUTHORIZATION": "Basic " + base64.b64encode(secret.encode()).decode()}


def test_it_answers_nothing_on_the_inbound_webhooks_until_a_secret_is_set(game, inbox, client, settings):
    settings.ANYMAIL = {"WEBHOOK_SECRET": ""}
    mail = turn_mail(inbox, "alice")
    forged = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail))
    before = events(game)
    for path in webhook_paths("inbound") + webhook_paths("tracking"):
        response = client.post(path, data=postmark_payload(forged), content_type="application/json")
        assert response.status_code == 404, path
        assert response.json()["error"] == "not_found"
    assert events(game) == before


@pytest.mark.parametrize("body", ["{}", "not json", "[]", "", "[" * 5000])
def test_it_answers_400_to_an_empty_or_malformed_webhook_body(db, client, settings, body):
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:s3cret"}
    for path in webhook_paths("inbound") + webhook_paths("tracking"):
        response = client.post(path, data=body, content_type="application/json", **basic())
        assert response.status_code == 400 and response.json()["error"] == "bad_request", path


@pytest.mark.parametrize("body", ['{"RawEmail": 3}', '{"event-data": []}', '{"mail": {}}', '{"Type": "x"}', "3"])
def test_it_never_answers_500_to_an_unexpected_webhook_body(db, client, settings, body):
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:s3cret"}
    for path in webhook_paths("inbound") + webhook_paths("tracking"):
        response = client.post(path, data=body, content_type="application/json", **basic())
        assert response.status_code < 500, (path, response.status_code)


def test_it_refuses_a_webhook_post_without_the_secret(game, inbox, client, settings):
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:s3cret"}
    mail = turn_mail(inbox, "alice")
    forged = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail))
    before = events(game)
    for credentials in (basic("hook:guess"), {}):
        response = client.post("/anymail/postmark/inbound/", data=postmark_payload(forged),
                               content_type="application/json", **credentials)
        assert response.status_code == 401 and response.json()["error"] == "not_authenticated"
        assert response["WWW-Authenticate"].startswith("Basic")
    for body in ("", "not json"):  # the credentials first, whatever the body
        assert client.post("/anymail/postmark/inbound/", data=body, content_type="application/json",
                           **basic("hook:guess")).status_code == 401
    assert events(game) == before


def test_it_does_not_take_the_sender_from_the_posted_json_without_the_providers_verdict(game, inbox, client, settings):
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:s3cret"}
    mail = turn_mail(inbox, "alice")
    before = events(game)
    unverified = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail), authenticated=False)
    response = client.post("/anymail/postmark/inbound/", data=postmark_payload(unverified),
                           content_type="application/json", **basic())
    assert response.status_code == 200 and events(game) == before
    # the provider's receiving server vouches for the domain: now it is alice's move
    settings.MAIL_AUTHSERV_ID = ["inbound.postmarkapp.test"]
    vouched = b"Authentication-Results: inbound.postmarkapp.test; dkim=pass header.d=example.com\r\n" + unverified
    response = client.post("/anymail/postmark/inbound/", data=postmark_payload(vouched),
                           content_type="application/json", **basic())
    assert response.status_code == 200 and events(game) > before


def test_it_takes_sendgrids_dkim_verdict_only_for_the_senders_own_domain(game, inbox, client, settings):
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:s3cret"}
    mail = turn_mail(inbox, "alice")
    raw = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail), authenticated=False)
    before = events(game)
    with pytest.warns(Warning):  # anymail: SendGrid is no longer officially supported
        client.post("/anymail/sendgrid/inbound/", data={"email": raw.decode(), "dkim": "{@evil.com : pass}"}, **basic())
    assert events(game) == before
    with pytest.warns(Warning):
        client.post("/anymail/sendgrid/inbound/", data={"email": raw.decode(), "dkim": "{@example.com : pass}"},
                    **basic())
    assert events(game) > before


def test_it_drops_what_the_provider_marked_as_spam(game, inbox, client, settings):
    settings.ANYMAIL = {"WEBHOOK_SECRET": "hook:s3cret"}
    mail = turn_mail(inbox, "alice")
    raw = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail),
                    headers=[("X-Spam-Status", "Yes")])
    before = events(game)
    client.post("/anymail/postmark/inbound/", data=postmark_payload(raw), content_type="application/json", **basic())
    assert events(game) == before


# ---------------------------------------------------------------- the token's key


def test_it_refuses_a_token_signed_with_the_site_key_alone(game, inbox):
    """The old tokens were Django signatures under SECRET_KEY: knowing that key is not enough now."""
    mail = turn_mail(inbox, "alice")
    row = mail.reply_to[0].split("+")[1].split("-")[0]
    old_style = signing.Signer(salt="kinplay.mail-move", sep=".").sign(f"{game.pk}-0")
    for token in (f"{row}-{old_style}", old_style):
        assert reply(to=f"play+{token}@kinplay.local", sender="alice@example.com", body=first_move(mail)) in (
            "bad-token", "no-token")


def test_it_signs_tokens_with_mail_token_key(game, inbox, settings):
    mail = turn_mail(inbox, "alice")
    settings.MAIL_TOKEN_KEY = "a-new-token-key-after-a-leak"  # rotating the key voids every token out there
    before = events(game)
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail)) == "bad-token"
    assert events(game) == before


# ---------------------------------------------------------------- From and authentication


@pytest.mark.parametrize("sender", [
    "alice@example.com <mallory@evil.com>",
    "Alice <alice@example.com>, mallory@evil.com",
    "alice@example.com, mallory@evil.com",
    "<alice@example.com>mallory@evil.com",
    "friends: alice@example.com;",
    "",
])
def test_it_refuses_a_from_that_is_not_exactly_one_mailbox(game, inbox, sender):
    mail = turn_mail(inbox, "alice")
    inbox().clear()
    before = events(game)
    raw = raw_reply(to=mail.reply_to[0], sender=sender, body=first_move(mail), authenticated=False)
    raw = f"Authentication-Results: {AUTHSERV}; dmarc=pass header.from=example.com\r\n".encode() + raw
    assert receive_message(parse(raw), raw=raw) == "bad-from"
    assert events(game) == before and inbox() == []


def test_it_refuses_two_from_headers(game, inbox):
    mail = turn_mail(inbox, "alice")
    raw = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail),
                    headers=[("From", "mallory@evil.com")])
    assert receive_message(parse(raw), raw=raw) == "bad-from"


def test_it_refuses_an_unauthenticated_reply_by_default(game, inbox):
    mail = turn_mail(inbox, "alice")
    before = events(game)
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail), authenticated=False) \
        == "unauthenticated"
    assert events(game) == before


def test_a_default_install_trusts_no_authentication_results_header(game, inbox, settings):
    settings.MAIL_AUTHSERV_ID = []  # nobody told kinplay which server is ours
    mail = turn_mail(inbox, "alice")
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail)) == "unauthenticated"


@pytest.mark.parametrize("header", [
    "mx.elsewhere.test; dmarc=pass header.from=example.com",  # not our server
    f"{AUTHSERV}; dmarc=fail header.from=example.com",
    f"{AUTHSERV}; dmarc=pass header.from=evil.com",
    f"{AUTHSERV}; dkim=pass header.d=evil.com; spf=pass smtp.mailfrom=example.com",  # not aligned
    f"{AUTHSERV}; dkim=fail header.d=example.com",
    f"{AUTHSERV}; spf=pass smtp.mailfrom=example.com",  # SPF alone says nothing about From
])
def test_it_refuses_a_reply_not_authenticated_for_the_from_domain(game, inbox, header):
    mail = turn_mail(inbox, "alice")
    before = events(game)
    raw = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail), authenticated=False,
                    headers=[("Authentication-Results", header)])
    assert receive_message(parse(raw), raw=raw) == "unauthenticated"
    assert events(game) == before


def test_it_reads_only_the_topmost_header_of_our_server(game, inbox):
    """mallory writes our server's header into her message; ours, added on arrival, sits above it."""
    mail = turn_mail(inbox, "alice")
    raw = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail), authenticated=False,
                    headers=[("Received", "from evil.com by mx.kinplay.test"),
                             ("Authentication-Results", f"{AUTHSERV}; dmarc=pass header.from=example.com")])
    raw = f"Authentication-Results: {AUTHSERV}; dmarc=fail header.from=example.com\r\n".encode() + raw
    assert receive_message(parse(raw), raw=raw) == "unauthenticated"


def test_it_takes_a_dkim_signature_of_the_senders_organisation(game, inbox):
    mail = turn_mail(inbox, "alice")
    raw = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail), authenticated=False,
                    headers=[("Authentication-Results", f"{AUTHSERV}; dkim=pass header.d=mail.example.com")])
    assert receive_message(parse(raw), raw=raw) == "accepted"


def signed(raw: bytes, domain="example.com") -> bytes:
    import dkim

    key = (HERE / "dkim-test-key.pem").read_bytes()
    return dkim.sign(raw, b"test", domain.encode(), key, include_headers=[b"from", b"to", b"subject", b"message-id"]) + raw


def test_it_verifies_dkim_itself_when_asked(game, inbox, settings, monkeypatch):
    settings.MAIL_AUTHSERV_ID = []
    settings.MAIL_VERIFY_DKIM = True
    record = (HERE / "dkim-test-key.txt").read_bytes().strip()
    monkeypatch.setattr(authentication, "DNSFUNC", lambda name, timeout=5: record if name == b"test._domainkey.example.com." else None)
    mail = turn_mail(inbox, "alice")
    move = first_move(mail)
    message = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body=move, authenticated=False)
    tampered = signed(message).replace(move.encode(), b"resign")
    assert receive_message(parse(tampered), raw=tampered) == "unauthenticated"
    other = signed(message, domain="evil.com")  # a valid signature, but not example.com's
    assert receive_message(parse(other), raw=other) == "unauthenticated"
    good = signed(message)
    assert receive_message(parse(good), raw=good) == "accepted"


# ---------------------------------------------------------------- tokens that expire and cannot be replayed


def test_it_refuses_a_reply_for_a_turn_that_has_passed_and_gives_the_moves_now(game, inbox):
    old = turn_mail(inbox, "alice")
    move = first_move(old)
    assert reply(to=old.reply_to[0], sender="alice@example.com", body=move) == "accepted"
    while True:  # the others play until it is alice's turn again: her old move may be legal again
        game.refresh_from_db()
        if 0 in game.to_act or game.is_over:
            break
        step(game)
    assert 0 in game.to_act
    now = first_move(turn_mail(inbox, "alice"))  # the turn email for the game as it is now
    inbox().clear()
    before = events(game)
    outcome = reply(to=old.reply_to[0], sender="alice@example.com", body=move)  # the same words, a new email
    assert outcome == "stale" and events(game) == before
    [answer] = [m for m in inbox() if "not accepted" in m.subject]
    assert "this email was for a turn that has passed, and the game has moved on" in answer.body
    assert f"Where it stands now: Your turn in Knonsters #{game.pk}" in answer.body
    assert "Your moves now:" in answer.body and now in answer.body
    assert answer.extra_headers["Auto-Submitted"] == "auto-replied" and not answer.reply_to
    assert_no_event_counts(answer, old, game)


def quoted(text):
    return "\n".join(f"> {line}".rstrip() for line in text.splitlines())


def assert_no_event_counts(answer, old, game):
    """An answer never speaks of versions (event counts): no player knows what "move 221" is."""
    row = Outbox.objects.get(pk=int(old.reply_to[0].split("+")[1].split("-")[0]))
    for text in (answer.body, answer.alternatives[0][0]):
        assert "move " + str(row.version) not in text and "move " + str(game.version) not in text
        assert "version" not in text.lower()


@pytest.mark.usefixtures("tiny_by_mail")
def test_a_reply_for_a_turn_that_has_passed_says_what_happened_since_and_whose_turn_it_is(alice, bob, inbox, monkeypatch):
    """alice played on the page, so her emailed move comes too late: the answer says, in words, what
    happened since that email and that the game now waits for bob."""
    from tests.web import tinygame

    monkeypatch.setattr(tinygame, "setup", lambda n, options, rng: [tinygame.event("dealt", hands=[[1, 2], [4, 5]])])
    game = accepted(services.create_game(creator=alice, kind="tiny", seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=None))
    old = [m for m in inbox() if m.to == ["alice@example.com"]][-1]
    services.act(game.pk, 0, notation="play 1", by="player")
    game.refresh_from_db()
    inbox().clear()
    body = f"Sorry, I was away.\n\nOn Tue, kinplay wrote:\n{quoted(old.body)}\n\nplay 2\n"  # a move the email listed
    assert reply(to=old.reply_to[0], sender="alice@example.com", body=body) == "stale"
    [answer] = inbox()  # not her turn: no fresh turn email
    assert "“play 2” was not applied: this email was for a turn that has passed" in answer.body
    assert f"Where it stands now: Tiny #{game.pk}: waiting for bob." in answer.body
    assert "Since that email:\n  - alice played a 1." in answer.body and "Your moves now" not in answer.body
    assert_no_event_counts(answer, old, game)


def test_it_takes_each_message_id_once(game, inbox):
    mail = turn_mail(inbox, "alice")
    raw = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail),
                    message_id="<same@example.com>")
    assert receive_message(parse(raw), raw=raw) == "accepted"
    inbox().clear()
    before = events(game)
    assert receive_message(parse(raw), raw=raw) == "duplicate"
    assert events(game) == before and inbox() == []


def test_a_deactivated_account_plays_and_changes_nothing_by_email(game, inbox, alice):
    """The API refuses a deactivated account's token; its turn emails' reply tokens are refused too:
    no move, no table talk, no unsubscribing, and no answer."""
    from kinplay.accounts.models import Profile

    mail = turn_mail(inbox, "alice")
    alice.is_active = False
    alice.save()
    inbox().clear()
    before = events(game)
    for body in (first_move(mail), "resign", "say: still here", "unsubscribe"):
        assert reply(to=mail.reply_to[0], sender="alice@example.com", body=body) == "inactive"
    assert events(game) == before and inbox() == [] and Profile.of(alice).email_turns


def test_it_expires_tokens_when_the_game_ends(game, inbox):
    mail = turn_mail(inbox, "alice")
    services.resign(game.pk, 1)
    game.refresh_from_db()
    assert game.is_over
    before = events(game)
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body="resign") == "refused"
    assert events(game) == before


def test_it_expires_old_tokens(game, inbox, settings):
    mail = turn_mail(inbox, "alice")
    before = events(game)
    with time_machine.travel(timezone.now() + timedelta(days=settings.MAIL_TOKEN_MAX_AGE_DAYS + 1)):
        assert reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail)) == "expired"
    assert events(game) == before


def test_a_player_without_an_email_address_never_matches_a_message_without_from(make_user, alice, inbox):
    nomail = make_user("dora", email=False)
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "dora"}, {"user": "alice"}], per_move=None))
    game.refresh_from_db()
    row = Outbox.objects.create(kind=Outbox.YOUR_TURN, game=game, user=nomail, version=game.version)
    from kinplay.notifications.tokens import reply_address

    before = events(game)
    raw = raw_reply(to=reply_address(row), sender="alice@example.com", body="resign")
    without_from = raw.replace(b"From: alice@example.com\r\n", b"")
    for message in (without_from, raw.replace(b"From: alice@example.com", b"From: <>")):
        assert receive_message(parse(message), raw=message, trust_unauthenticated=True) in ("bad-from", "wrong-sender")
    assert events(game) == before and Game.objects.get(pk=game.pk).status == Game.ACTIVE


def test_it_believes_any_from_only_in_development(game, inbox, settings):
    settings.MAIL_TRUST_UNAUTHENTICATED = True
    mail = turn_mail(inbox, "alice")
    settings.DEBUG = False  # a production setting left on by mistake changes nothing
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail), authenticated=False) \
        == "unauthenticated"
    settings.DEBUG = True
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail), authenticated=False) \
        == "accepted"


def test_it_refuses_a_standing_answer_for_a_game_that_is_over(game, inbox, monkeypatch):
    mail = turn_mail(inbox, "alice")
    services.resign(game.pk, 1)
    calls = []
    monkeypatch.setattr(services, "set_standing_answer", lambda *a: calls.append(a), raising=False)
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body="always resolve") == "refused"
    assert calls == []


def test_it_reads_amazon_ses_verdicts_for_the_from_domain():
    from types import SimpleNamespace

    from anymail.inbound import AnymailInboundMessage

    message = AnymailInboundMessage.parse_raw_mime("From: alice@example.com\r\nTo: x@y.z\r\n\r\nplay 3")

    def event(dmarc, spam="PASS"):
        return SimpleNamespace(message=message, esp_event={"receipt": {"dmarcVerdict": {"status": dmarc},
                                                                       "spamVerdict": {"status": spam}}})

    verdict = authentication.provider_verdict("Amazon SES", event("PASS"))
    assert authentication.aligned("example.com", verdict["results"]) and not verdict["spam"]
    assert not authentication.aligned("example.com", authentication.provider_verdict("Amazon SES", event("FAIL"))["results"])
    assert authentication.provider_verdict("Amazon SES", event("PASS", spam="FAIL"))["spam"]


@pytest.mark.usefixtures("tiny_by_mail")
def test_a_reply_in_flight_still_counts_when_only_someone_else_moved(alice, bob, charlie, inbox):
    """bob resigns while alice's reply is on its way: her turn is the same turn, her move stands.
    (A move or a timeout of her own, or a new turn, would make the email stale.)"""
    game = accepted(services.create_game(creator=alice, kind="tiny", seats=[{"user": "alice"}, {"user": "bob"},
                                                                     {"user": "charlie"}], per_move=None))
    mail = [m for m in inbox() if m.to == ["alice@example.com"]][-1]
    move = mail.body.split("Your moves:\n")[1].splitlines()[0].split("  —  ")[0].strip()
    services.resign(game.pk, 1)
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=move) == "accepted"
    assert reply(to=mail.reply_to[0], sender="alice@example.com", body=move) == "stale"  # now she has moved


def test_it_never_fails_on_a_malformed_message_with_a_valid_token(game, inbox):
    """Whatever arrives at a valid address, the pipe answers with an outcome, never a traceback."""
    from hypothesis import HealthCheck, given
    from hypothesis import settings as hsettings
    from hypothesis import strategies as st

    token = turn_mail(inbox, "alice").reply_to[0]
    header = st.sampled_from(["From", "To", "Authentication-Results", "Auto-Submitted", "Content-Type",
                              "Content-Transfer-Encoding", "Message-ID", "Return-Path", "Precedence"])
    junk = st.one_of(st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=60),
                     st.sampled_from(['""@x', "<>", "a@b, c@d", "=?utf-8?q?=FF?= <a@b.c>", "x@y.z (", "multipart/report",
                                      "multipart/mixed; boundary=", "text/plain; charset=x-nope", "base64"]))

    @hsettings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(alice=st.booleans(), headers=st.lists(st.tuples(header, junk), max_size=6), body=st.binary(max_size=200))
    def check(alice, headers, body):
        vouched = f"Authentication-Results: {AUTHSERV}; dmarc=pass header.from=example.com\r\nFrom: alice@example.com\r\n"
        raw = (vouched if alice else "").encode() + f"To: {token}\r\n".encode() + b"".join(
            f"{k}: {v}".replace("\r", " ").replace("\n", " ").encode() + b"\r\n" for k, v in headers) + b"\r\n" + body
        assert isinstance(receive_message(parse(raw), raw=raw), str)

    check()


def test_it_reads_a_reply_of_thousands_of_blank_and_quoted_lines_in_moments(game, inbox):
    """The reply parser's regexes take quadratic time over runs of blank lines (20,000 held a worker
    for about 40 s), and so over a quote's lines once they are taken out: neither reaches them."""
    import time

    mail = turn_mail(inbox, "alice")
    for body in (f"{first_move(mail)}\n" + "\n" * 20000 + "Thanks", f"{first_move(mail)}\n" + ">\n\n" * 20000 + "Thanks"):
        started = time.monotonic()
        reply(to=mail.reply_to[0], sender="alice@example.com", body=body)
        assert time.monotonic() - started < 10
    assert Event.objects.filter(game=game, command__by="email", seat=0).exists()


def test_it_reads_a_subject_of_a_hundred_kilobytes_in_moments(game, inbox):
    """The subject's patterns (our subject, its "Re:") backtrack in quadratic time over a long
    one: 100 kB held a worker for half a minute. A move fits in the subject's first line."""
    import time

    mail = turn_mail(inbox, "alice")
    for subject in (f"Knonsters #{game.pk}: " * 7000, "Re" + " " * 100_000 + "x", "re[1]" * 20_000):
        started = time.monotonic()
        assert reply(to=mail.reply_to[0], sender="alice@example.com", body="", subject=subject) == "refused"
        assert time.monotonic() - started < 10


@pytest.mark.usefixtures("tiny_by_mail")
def test_a_stale_reply_brings_a_fresh_turn_email_when_no_newer_one_was_sent(alice, inbox, monkeypatch):
    from tests.web import tinygame

    monkeypatch.setattr(tinygame, "setup", lambda n, options, rng: [tinygame.event("dealt", hands=[[1, 2], [4, 5]])])
    game = services.create_game(creator=alice, kind="tiny", seats=[{"user": "alice"}, {"bot": "heuristic"}], per_move=None)
    old = [m for m in inbox() if m.to == ["alice@example.com"]][-1]
    first, second = "play 1", "play 2"
    services.act(game.pk, 0, notation=first, by="player")  # on the page; the bot answers at once
    game.refresh_from_db()
    assert game.to_act == [0]  # her turn again, and she was right there: no new turn email
    inbox().clear()
    assert reply(to=old.reply_to[0], sender="alice@example.com", body=second) == "stale"
    assert sorted(m.subject for m in inbox()) == [f"Move not accepted in Tiny #{game.pk}", f"Your turn in Tiny #{game.pk}"]


def test_check_deploy_warns_about_trusting_unauthenticated_mail_in_production(settings):
    from django.core import checks

    settings.MAIL_TRUST_UNAUTHENTICATED, settings.DEBUG = True, False
    assert [m.id for m in authentication.check_trust()] == ["kinplay.W101"]
    settings.MAIL_TRUST_UNAUTHENTICATED = False
    assert authentication.check_trust() == []
    assert authentication.check_trust in checks.registry.registry.get_checks(include_deployment_checks=True)


def test_it_forgets_message_ids_older_than_any_live_token_and_a_replay_still_changes_nothing(game, inbox, settings):
    from kinplay.notifications.models import InboundMail

    mail = turn_mail(inbox, "alice")
    raw = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body=first_move(mail), message_id="<old@example.com>")
    assert receive_message(parse(raw), raw=raw) == "accepted"
    before = events(game)
    with time_machine.travel(timezone.now() + timedelta(days=settings.MAIL_TOKEN_MAX_AGE_DAYS + 2)):
        other = raw_reply(to=mail.reply_to[0], sender="alice@example.com", body="anything")
        receive_message(parse(other), raw=other)  # any later reply tidies up
        assert not InboundMail.objects.filter(message_id="<old@example.com>").exists()
        assert receive_message(parse(raw), raw=raw) == "expired"
    assert events(game) == before
