"""Strangers learn nothing about who has an account (issue 11): on every channel a stranger can
use, a known user or address and an unknown one get the same status and the same words, after
the same work (the same database statements and password hashes: what timing would tell).

Usernames are public by design (player pages, leaderboards, lobby), so registration may say a
name is taken (docs/playing.md#accounts-and-privacy); an email address is never confirmable.
"""

import re

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import MD5PasswordHasher
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from kinplay.notifications.models import Outbox

pytestmark = pytest.mark.django_db

User = get_user_model()


@pytest.fixture
def work(monkeypatch):
    """What a request did that timing could reveal: the SQL it ran (literals left out) and how
    many passwords it hashed."""
    hashes = []
    encode = MD5PasswordHasher.encode
    monkeypatch.setattr(MD5PasswordHasher, "encode", lambda self, *a, **kw: hashes.append(1) or encode(self, *a, **kw))

    def measure(request):
        hashes.clear()
        with CaptureQueriesContext(connection) as queries:
            response = request()
        shape = [re.sub(r"'[^']*'|\d+", "?", q["sql"]) for q in queries.captured_queries]  # savepoint names too
        return response, {"statements": shape, "hashes": len(hashes)}

    return measure


def same_words(a: str, b: str, *pairs) -> bool:
    """Equal once each pair's known/unknown values are swapped for a placeholder (and the
    page's CSRF token, which differs on every page, is left out)."""
    for known, unknown in pairs:
        a, b = a.replace(known, "<x>"), b.replace(unknown, "<x>")
    csrf = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"|"csrfToken": "[^"]+"')
    return csrf.sub("", a) == csrf.sub("", b)


# ---------------------------------------------------------------- signing in


def test_the_login_page_answers_an_unknown_name_like_a_wrong_password(client, alice, work):
    wrong, wrong_work = work(lambda: client.post(reverse("login"), {"username": "alice", "password": "guess"}))
    unknown, unknown_work = work(lambda: client.post(reverse("login"), {"username": "nobody", "password": "guess"}))
    assert wrong.status_code == unknown.status_code == 200
    assert same_words(wrong.content.decode(), unknown.content.decode(), ('value="alice"', 'value="nobody"'))
    assert "That username and password do not match" in wrong.content.decode()
    assert wrong_work == unknown_work and wrong_work["hashes"] == 1


def test_the_token_endpoint_answers_an_unknown_name_like_a_wrong_password(api, alice, work):
    c = api()
    wrong, wrong_work = work(lambda: c.post("/api/accounts/token/", {"username": "alice", "password": "guess"}, format="json"))
    unknown, unknown_work = work(lambda: c.post("/api/accounts/token/", {"username": "nobody", "password": "guess"}, format="json"))
    assert wrong.status_code == unknown.status_code == 401 and wrong.json() == unknown.json()
    assert wrong_work == unknown_work and wrong_work["hashes"] == 1
    assert wrong["WWW-Authenticate"] == unknown["WWW-Authenticate"] == c.get("/api/games/")["WWW-Authenticate"] == "Token"


def test_an_unknown_name_is_locked_out_like_a_known_one(api, client, alice, settings):
    def attempts(name):
        api_codes = [api().post("/api/accounts/token/", {"username": name, "password": "guess"}, format="json").status_code
                     for _ in range(settings.LOGIN_FAILURE_LIMIT + 1)]
        page = client.post(reverse("login"), {"username": name, "password": "guess"})
        return api_codes, page.status_code, page.get("Retry-After")

    assert attempts("alice") == attempts("nobody") == ([401] * settings.LOGIN_FAILURE_LIMIT + [429], 429, "900")


# ---------------------------------------------------------------- registering


def test_registering_with_a_used_address_answers_like_a_fresh_one_by_the_api(api, alice, work, inbox):
    def register(name, email):
        body = {"username": name, "email": email, "password": "a-long-password"}
        return work(lambda: api().post("/api/accounts/register/", body, format="json"))

    fresh, fresh_work = register("dora", "dora@example.com")
    used, used_work = register("erin", "alice@example.com")
    assert fresh.status_code == used.status_code == 201
    f, u = fresh.json(), used.json()
    assert set(f) == set(u) == {"id", "username", "token", "detail"}
    assert same_words(f["detail"], u["detail"], ("dora@example.com", "alice@example.com"))
    assert "We sent a link to alice@example.com" in u["detail"]
    assert fresh_work == used_work
    # what the new accounts can see of themselves is the same too: no address yet
    assert User.objects.get(username="dora").email == User.objects.get(username="erin").email == ""
    mails = {m.to[0]: m for m in inbox()}
    assert "/settings/email/" in mails["dora@example.com"].body
    taken = mails["alice@example.com"]
    assert "already has a kinplay account, “alice”" in taken.body and "/settings/email/" not in taken.body
    assert "/password/reset/" in taken.body


def test_registering_with_a_used_address_answers_like_a_fresh_one_on_the_page(client, alice, work):
    def sign_up(name, email):
        client.logout()
        r, done = work(lambda: client.post(reverse("signup"), {"username": name, "email": email, "password": "a-long-password"}))
        return r, done, client.get(r["Location"]).content.decode(), client.get(reverse("settings")).content.decode()

    fresh, fresh_work, fresh_lobby, fresh_settings = sign_up("dora", "dora@example.com")
    used, used_work, used_lobby, used_settings = sign_up("erin", "alice@example.com")
    assert fresh.status_code == used.status_code == 302 and fresh["Location"] == used["Location"]
    pairs = (("dora@example.com", "alice@example.com"), ("dora", "erin"), ("D<", "E<"), (">D<", ">E<"))
    assert "We sent a link to alice@example.com" in used_lobby
    assert same_words(_messages(fresh_lobby), _messages(used_lobby), *pairs)
    assert same_words(_email_field(fresh_settings), _email_field(used_settings), *pairs)
    assert fresh_work == used_work


def _messages(page: str) -> str:
    return " ".join(re.findall(r'class="[^"]*\bmessage\b[^"]*"[^>]*>(.*?)<', page, re.S))


def _email_field(page: str) -> str:
    return re.search(r'<input[^>]*name="email"[^>]*>', page).group(0)


# ---------------------------------------------------------------- changing the address


def test_changing_to_a_used_address_answers_like_a_fresh_one(client, alice, bob, work, inbox):
    client.force_login(bob)

    def change(email):
        r, done = work(lambda: client.post(reverse("settings"), {"email": email, "email_turns": "on"}, follow=True))
        return r, done

    fresh, fresh_work = change("bob@new.example")
    used, used_work = change("ALICE@example.com")
    assert fresh.status_code == used.status_code == 200
    assert same_words(_messages(fresh.content.decode()), _messages(used.content.decode()),
                      ("bob@new.example", "ALICE@example.com"))
    assert fresh_work == used_work
    mails = {m.to[0]: m for m in inbox()}
    assert "already has a kinplay account" in mails["ALICE@example.com"].body
    bob.refresh_from_db()
    assert bob.email == "bob@example.com"


def test_a_link_for_an_address_another_account_took_meanwhile_changes_nothing(client, alice, bob, inbox):
    client.force_login(bob)
    client.post(reverse("settings"), {"email": "shared@example.com", "email_turns": "on"})
    link = re.search(r"https?://\S+", inbox()[-1].body).group(0)
    alice.email = "shared@example.com"  # alice confirmed it first
    alice.save(update_fields=["email"])
    page = client.get(link, follow=True).content.decode()
    assert "belongs to another kinplay account" in page
    bob.refresh_from_db()
    assert bob.email == "bob@example.com"


# ---------------------------------------------------------------- password reset


def test_the_password_reset_answers_an_unknown_address_like_a_known_one(client, alice, work, monkeypatch, inbox):
    from kinplay.accounts import tasks

    queued = []
    monkeypatch.setattr(tasks.password_reset, "apply_async", lambda args, **kw: queued.append(args))
    known, known_work = work(lambda: client.post(reverse("password_reset"), {"email": "alice@example.com"}))
    unknown, unknown_work = work(lambda: client.post(reverse("password_reset"), {"email": "nobody@example.com"}))
    assert known.status_code == unknown.status_code == 302 and known["Location"] == unknown["Location"]
    assert known_work == unknown_work and not Outbox.objects.exists()  # the request only queued the lookup
    assert queued == [("alice@example.com",), ("nobody@example.com",)]
    assert [tasks.password_reset(email) for (email,) in queued] == [1, 0]  # the worker finds alice only
    [mail] = inbox()
    assert mail.to == ["alice@example.com"] and "/password/reset/" in mail.body


def test_the_password_reset_page_shares_the_sign_in_budget_per_address(client, alice, settings, inbox):
    from django.core.cache import cache

    cache.clear()
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "auth": "2/min"}}
    codes = [client.post(reverse("password_reset"), {"email": "alice@example.com"}).status_code for _ in range(3)]
    assert codes == [302, 302, 429]
    assert len(inbox()) == 2  # nobody floods alice's inbox
    cache.clear()


# ---------------------------------------------------------------- email


def test_a_stranger_writing_in_gets_no_answer_whoever_they_name(alice, bob, inbox, settings):
    """A reply from an address with no account and one from a player, each to a token that is not
    theirs: neither gets an answer or changes anything."""
    from games import services
    from kinplay.notifications import tokens
    from tests.mail.mails import AUTHSERV, reply
    from tests.play import accepted

    settings.MAIL_AUTHSERV_ID = [AUTHSERV]
    game = accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}],
                                         per_move=None))
    row = Outbox.objects.filter(user=alice, game=game).first()
    inbox().clear()
    before = game.version
    for sender in ("bob@example.com", "mallory@example.com"):
        reply(to=tokens.reply_address(row), sender=sender, body="resign")
        reply(to="play+1-forged@kinplay.local", sender=sender, body="resign")
    game.refresh_from_db()
    assert inbox() == [] and game.version == before


# ---------------------------------------------------------------- player pages


def test_a_deactivated_players_profile_answers_like_an_unknown_name(api, client, alice, bob, work):
    User.objects.filter(pk=alice.pk).update(is_active=False)
    bobs = api(bob)
    bobs.get("/api/players/bob/")  # his token is known from here on: both requests below alike
    for ask in (lambda name: bobs.get(f"/api/players/{name}/"), lambda name: client.get(f"/players/{name}/")):
        gone, gone_work = work(lambda ask=ask: ask("alice"))
        unknown, unknown_work = work(lambda ask=ask: ask("nobody"))
        assert gone.status_code == unknown.status_code == 404
        assert same_words(gone.content.decode(), unknown.content.decode(), ("alice", "nobody"))
        assert gone_work == unknown_work


def test_a_deactivated_player_cannot_be_seated_and_answers_like_an_unknown_name(api, signed_in, alice, bob, tiny,
                                                                                  inbox):
    """Inviting a deactivated player by name (API and the new-game form) is refused in the words
    for a name nobody has: no invitation email goes to the closed account, and nobody learns
    that the name was ever taken."""
    from games.models import Game
    from tests.web.test_pages import form_data

    User.objects.filter(pk=bob.pk).update(is_active=False)
    alices, page = api(alice), signed_in(alice)
    by_api = {name: alices.post("/api/games/", {"kind": "tiny", "seats": [{"user": "alice"}, {"user": name}]},
                                format="json") for name in ("bob", "nemo")}
    by_page = {name: page.post(reverse("new-game"), form_data(**{"seat-2-type": "user", "seat-2-user": name}))
               for name in ("bob", "nemo")}
    for answers, refused in ((by_api, 422), (by_page, 400)):
        assert answers["bob"].status_code == answers["nemo"].status_code == refused
        assert same_words(answers["bob"].content.decode(), answers["nemo"].content.decode(), ("bob", "nemo"))
    assert not Game.objects.exists() and inbox() == []
