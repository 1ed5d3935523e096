"""The tournament pages: list, create form, a tournament's page with its buttons."""

from django.test import Client

from kinplay.tournaments import services
from kinplay.tournaments.models import Tournament
from tests.tournaments.conftest import run_to_end


def client_for(user):
    c = Client()
    c.force_login(user)
    return c


def test_it_creates_joins_and_starts_a_tournament_from_the_pages(alice, bob):
    page = client_for(alice).get("/tournaments/new/")
    assert page.status_code == 200 and b"Organise a tournament" in page.content
    r = client_for(alice).post("/tournaments/new/", {"name": "Club night", "kind": "karenza", "format": "swiss",
                                                      "best_of": 1, "on_timeout": "forfeit", "rated": "on"})
    t = Tournament.objects.get()
    assert r.status_code == 302 and r["Location"] == f"/tournaments/{t.pk}/"
    for u in (alice, bob):
        client_for(u).post(f"/tournaments/{t.pk}/join/")
    denied = client_for(bob).post(f"/tournaments/{t.pk}/start/", follow=True)
    assert b"Only the organiser" in denied.content
    client_for(alice).post(f"/tournaments/{t.pk}/start/")
    page = client_for(bob).get(f"/tournaments/{t.pk}/")
    assert b"Play your game" in page.content and b"is-mine" in page.content and b"Round 1" in page.content
    listing = client_for(bob).get("/tournaments/")
    assert b"Club night" in listing.content and b"You play" in listing.content
    lobby = client_for(bob).get("/")
    assert b"Club night" in lobby.content  # the lobby names the tournament a game belongs to


def test_it_explains_a_refused_form(alice):
    r = client_for(alice).post("/tournaments/new/", {"name": "Bad", "kind": "knonsters", "format": "round_robin",
                                                      "best_of": 1, "on_timeout": "forfeit", "table_min": 3, "table_max": 4})
    assert r.status_code == 400 and b"Round robin is for duels" in r.content
    assert not Tournament.objects.exists()


def test_it_draws_the_bracket_and_the_crosstable(players):
    ps = players(4)
    ko = services.create(organiser=ps[0], name="Cup", kind="karenza", format="knockout")
    rr = services.create(organiser=ps[0], name="League night", kind="karenza", format="round_robin")
    for t in (ko, rr):
        for u in ps:
            services.join(t.pk, u)
        services.start(t.pk, ps[0])
        run_to_end(t)
    page = Client().get(f"/tournaments/{ko.pk}/")
    assert page.status_code == 200 and b"<svg class=\"bracket-svg\"" in page.content and b"Winner" in page.content
    page = Client().get(f"/tournaments/{rr.pk}/")
    assert b"Crosstable" in page.content and b"verify_tournament" in page.content
