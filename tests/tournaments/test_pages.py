"""The tournament pages: list, create form, a tournament's page with its buttons."""

import re

from django.db import transaction
from django.test import Client

from games.store import game_with_seats
from kinplay.tournaments import services, stream
from kinplay.tournaments.models import Tournament
from tests.pages import client_for
from tests.tournaments.conftest import run_to_end


def test_it_creates_joins_and_starts_a_tournament_from_the_pages(alice, bob):
    page = client_for(alice).get("/tournaments/new/")
    assert page.status_code == 200 and b"Organise a tournament" in page.content
    r = client_for(alice).post("/tournaments/new/", {"name": "Club night", "kind": "karenza", "format": "swiss",
                                                      "best_of": 1, "clock-on_timeout": "forfeit", "rated": "on"})
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


def test_it_lists_the_tiebreaks_in_the_order_the_format_uses_them(players):
    ps = players(3)
    swiss = services.create(organiser=ps[0], name="Swiss night", kind="karenza", format="swiss", rounds=1)
    rr = services.create(organiser=ps[0], name="Round night", kind="karenza", format="round_robin")
    for t in (swiss, rr):
        for u in ps:
            services.join(t.pk, u)
        services.start(t.pk, ps[0])
    used = {swiss.pk: ["buchholz", "median_buchholz", "sonneborn_berger", "direct", "wins", "lot"],
            rr.pk: ["direct", "sonneborn_berger", "wins", "lot"]}  # docs/tournaments.md#formats, "Points"
    for tid, names in used.items():
        rows = client_for(ps[1]).get(f"/api/tournaments/{tid}/").json()["standings"]
        assert all(list(r["tiebreaks"]) == names for r in rows)
    # The page says them in players' words, whole (it cut them: "sonneborn…", "medianbuc…").
    said = {swiss.pk: ["Buchholz", "Median Buchholz", "Sonneborn-Berger", "Direct encounter", "Wins", "Lot"],
            rr.pk: ["Direct encounter", "Sonneborn-Berger", "Wins", "Lot"]}
    for tid, names in said.items():
        page = client_for(ps[1]).get(f"/tournaments/{tid}/").content.decode()
        assert f"Tiebreaks in order of use: {', '.join(names)} (the lot: a drawing of lots" in page
        assert all(f'<th class="num">{name}</th>' in page for name in names) and "…" not in page


def test_it_writes_a_rounds_days_as_a_person_would(api, alice):
    for days, said in ((7, "7 days a round"), (1, "1 day a round"), (1.5, "1.5 days a round")):
        tid = api(alice).post("/api/tournaments/", {"name": f"Every {days}", "kind": "karenza", "format": "swiss",
                                                    "round_days": days}, format="json").json()["id"]
        page = client_for(alice).get(f"/tournaments/{tid}/").content.decode()
        assert said in page and ".0 day" not in page


def test_it_writes_places_as_ordinals():
    from django.template import Context, Template

    places = Template("{% load kinplay_web %}{% for n in ns %}{{ n|ordinal }} {% endfor %}")
    ns = [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111, 112, 113, 121]
    assert places.render(Context({"ns": ns})).split() == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th", "112th", "113th", "121st"]


def test_it_says_when_a_round_ends_as_a_date_and_a_time_on_the_page_and_in_the_email(players, inbox, time_machine):
    from datetime import UTC, datetime

    time_machine.move_to(datetime(2026, 11, 25, 7, 21, tzinfo=UTC), tick=False)
    alice, bob = players(2)
    t = services.create(organiser=alice, name="Club night", kind="karenza", format="swiss", round_days=7)
    for u in (alice, bob):
        services.join(t.pk, u)
    services.start(t.pk, alice)
    page = client_for(bob).get(f"/tournaments/{t.pk}/").content.decode()
    assert "ends 2 Dec 2026 07:21 UTC" in page
    mail = next(m for m in inbox() if m.to == ["bob@example.com"] and "round 1 started" in m.subject)
    assert "the round ends 2 Dec 2026 07:21 UTC," in mail.body
    assert "The round ends 2 Dec 2026 07:21 UTC;" in mail.alternatives[0][0]


def test_it_leaves_a_player_who_left_before_the_start_out_of_the_count_the_standings_and_the_final_email(players, api, inbox):
    alice, bob, charlie, p4 = players(4)
    t = services.create(organiser=alice, name="Club night", kind="karenza", format="swiss", rounds=1)
    for u in (alice, bob, charlie, p4):
        services.join(t.pk, u)
    services.withdraw(t.pk, p4)  # changed their mind while registration was open
    page = client_for(alice).get(f"/tournaments/{t.pk}/").content.decode()
    assert "3 players" in page and not re.search(r"\bp4\b", page)  # not inside a random CSRF token
    assert [x["players"] for x in api(alice).get("/api/tournaments/").json() if x["id"] == t.pk] == [3]
    services.start(t.pk, alice)
    run_to_end(t)
    t.refresh_from_db()
    assert t.status == "finished"
    standings = api(alice).get(f"/api/tournaments/{t.pk}/").json()["standings"]
    assert sorted(r["player"] for r in standings) == ["alice", "bob", "charlie"]
    page = client_for(alice).get(f"/tournaments/{t.pk}/").content.decode()
    assert "3 players" in page and not re.search(r"\bp4\b", page)  # not inside a random CSRF token
    assert not [m for m in inbox() if m.to == ["p4@example.com"] and "final standings" in m.subject]
    assert [m for m in inbox() if m.to == ["bob@example.com"] and "final standings" in m.subject]


def test_it_shows_the_organisers_points_in_the_crosstable_as_in_the_standings(players, api):
    ps = players(3)
    t = services.create(organiser=ps[0], name="Three for a win", kind="karenza", format="round_robin", points=[3, 0])
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, ps[0])
    run_to_end(t)
    live = api(ps[1]).get(f"/api/tournaments/{t.pk}/").json()
    byes = {r["player"]: r["byes"] for r in live["standings"]}
    scored = {row["player"]: sum(sum(v) for v in row["results"].values()) for row in live["crosstable"]}
    # A bye is worth a win (3); the rest of each player's points are their games' in the crosstable.
    assert {r["player"]: r["points"] - 3 * byes[r["player"]] for r in live["standings"]} == scored
    assert max(scored.values()) >= 3


def test_it_says_bye_once_for_a_player_with_a_bye(players):
    import re

    ps = players(3)
    t = services.create(organiser=ps[0], name="Odd night", kind="karenza", format="swiss", rounds=1)
    for u in ps:
        services.join(t.pk, u)
    services.start(t.pk, ps[0])
    page = client_for(ps[1]).get(f"/tournaments/{t.pk}/").content.decode()
    tables = [re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", li)).strip()
              for li in re.findall(r"(?s)<li class=\"[^\"]*\">(.*?)</li>", page.split('id="rounds"')[1])]
    byes = [x for x in tables if "bye" in x]
    assert len(byes) == 1 and byes[0].count("bye") == 1, byes


def test_it_asks_before_a_withdrawal_or_a_cancel_that_cannot_be_undone(players):
    import html

    alice, bob = players(2)
    t = services.create(organiser=alice, name="Club night", kind="karenza", format="swiss")
    for u in (alice, bob):
        services.join(t.pk, u)
    services.start(t.pk, alice)
    # kinplay.js asks with the form's data-confirm before it posts (a click withdrew at once,
    # resigning the running game, or cancelled the tournament for everyone).
    page = html.unescape(client_for(alice).get(f"/tournaments/{t.pk}/").content.decode())
    assert ('data-confirm="Withdraw from Club night? You will not be paired again, and a game of yours still running is resigned."'
            in page)
    assert ('data-confirm="Cancel Club night for everyone? It cannot be undone: every player is emailed, and games still '
            'running go on as friendly games, unrated."' in page)


def test_it_says_why_a_player_is_out_on_the_page_in_the_api_and_to_them_by_email(players, api, time_machine, inbox):
    from datetime import timedelta

    from django.utils import timezone

    from kinplay.clocks.services import sweep as sweep_clocks

    time_machine.move_to(timezone.now(), tick=False)
    alice, bob, charlie = players(3)
    t = services.create(organiser=alice, name="Strict", kind="karenza", format="swiss", rounds=2, max_timeouts=1,
                        clock={"per_move": 60, "on_timeout": "forfeit"})
    for u in (alice, bob, charlie):
        services.join(t.pk, u)
    services.start(t.pk, alice)
    gid = next(tb["games"][0]["game"] for tb in services.load(Tournament.objects.get(pk=t.pk))["rounds"][0]["tables"] if not tb["bye"])
    game = game_with_seats(gid)
    vanished = game.seat_list[game.to_act[0]].user
    other = next(u for u in (alice, bob, charlie) if u.pk != vanished.pk and u.pk in [s.user_id for s in game.seat_list])
    bye = next(u for u in (alice, bob, charlie) if u.pk not in [s.user_id for s in game.seat_list])
    services.withdraw(t.pk, bye)  # asked to leave
    time_machine.shift(timedelta(minutes=2))
    sweep_clocks()  # the vanished player's clock runs out: forfeit, and out at the limit
    services.sweep()
    out = {r["player"]: r["out"] for r in api(other).get(f"/api/tournaments/{t.pk}/").json()["standings"]}
    assert out == {vanished.username: "out: ran out of time too often", bye.username: "withdrew", other.username: None}
    page = client_for(other).get(f"/tournaments/{t.pk}/").content.decode()
    assert f"{vanished.username}</a> <span class=\"muted\">(out: ran out of time too often)</span>" in page
    assert f"{bye.username}</a> <span class=\"muted\">(withdrew)</span>" in page
    told = [m for m in inbox() if "you are out" in m.subject]
    assert [m.to for m in told] == [[f"{vanished.username}@example.com"]]
    assert told[0].subject == "Strict: you are out, your time ran out too often"
    assert "Your time ran out in 1 of your games in Strict (Karenza); 1 is this tournament's limit" in told[0].body


def test_it_tells_a_player_who_leaves_before_the_start_that_they_may_come_back(players):
    alice, bob = players(2)
    t = services.create(organiser=alice, name="Club night", kind="karenza", format="swiss")
    services.join(t.pk, bob)
    page = client_for(bob).post(f"/tournaments/{t.pk}/withdraw/", follow=True).content.decode()
    assert "You have left: you can join again while registration is open." in page and "paired" not in page
    assert ">Join</button>" in page
    services.join(t.pk, bob)
    services.join(t.pk, alice)
    services.start(t.pk, alice)
    page = client_for(bob).post(f"/tournaments/{t.pk}/withdraw/", follow=True).content.decode()
    assert "You have withdrawn: you will not be paired again." in page


def test_it_ranks_players_level_on_everything_by_the_lot_it_shows(players):
    alice, bob = players(2)
    t = services.create(organiser=alice, name="Drawn final", kind="karenza", format="swiss", rounds=1)
    for u in (alice, bob):
        services.join(t.pk, u)
    services.start(t.pk, alice)
    with transaction.atomic():  # the only game is drawn: level on points and every tiebreak
        locked = services._locked(t.pk)
        table = locked.state["rounds"][0]["tables"][0]
        services._append(locked, "game_finished", {"round": 1, "table": 0, "game": table["games"][0]["game"],
                                                   "ranks": [1, 1], "timeouts": []})
        locked.needs_advance = True
        services._save(locked)
    services.advance(t.pk)
    t.refresh_from_db()
    assert t.status == "finished"
    d = client_for(bob).get(f"/api/tournaments/{t.pk}/").json()
    assert [r["rank"] for r in d["standings"]] == [1, 2], "no rank shared: the lot decides, in view"
    assert [r["tiebreaks"]["lot"] for r in d["standings"]] == [1, 2] and d["standings"][0]["player"] == d["winner"]
    assert d["fairness"]["seed"], "the seed the lots were drawn from is revealed at the end"
    page = client_for(bob).get(f"/tournaments/{t.pk}/").content.decode()
    assert f"Winner: <strong>{d['winner']}</strong>" in page and '<th class="num">Lot</th>' in page


def test_it_lists_a_players_tournaments_with_their_place_on_their_player_page(players):
    import re

    alice, bob = players(2)
    done = services.create(organiser=alice, name="Autumn Swiss", kind="karenza", format="swiss", rounds=1)
    going = services.create(organiser=alice, name="Winter Swiss", kind="karenza", format="swiss", rounds=1)
    for t in (done, going):
        for u in (alice, bob):
            services.join(t.pk, u)
        services.start(t.pk, alice)
    run_to_end(done)
    s = services.load(Tournament.objects.get(pk=done.pk))
    rank = {r["player"]: r["rank"] for r in stream.standings(s)}
    for user in (alice, bob):
        said = f"{'1st' if rank[user.pk] == 1 else '2nd'} of 2" + (" — winner" if s["winner"] == user.pk else "")
        page = client_for(alice).get(f"/players/{user.username}/").content.decode()
        block = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", "", page.split('id="tournament-history"')[1].split("</section>")[0]))
        assert f"Autumn Swiss: {said}" in block and "Winter Swiss: playing" in block, block


def test_it_lists_the_players_before_the_start_and_the_standings_after(players):
    alice, bob = players(2)
    t = services.create(organiser=alice, name="Club night", kind="karenza", format="round_robin")
    page = client_for(bob).get(f"/tournaments/{t.pk}/").content.decode()
    assert "Nobody has joined yet." in page and 'id="standings"' not in page
    for u in (alice, bob):
        services.join(t.pk, u)
    # Before round 1 a table of everyone at #1 with nothing played said nothing the list does not.
    page = client_for(bob).get(f"/tournaments/{t.pk}/").content.decode()
    assert 'id="players"' in page and 'id="standings"' not in page and 'id="crosstable"' not in page
    assert '<span class="pname">alice</span>' in page and '<span class="pname">bob</span>' in page
    services.start(t.pk, alice)
    page = client_for(bob).get(f"/tournaments/{t.pk}/").content.decode()
    assert 'id="standings"' in page and 'id="players"' not in page


def test_it_shows_a_deactivated_player_in_the_standings_without_a_link(players):
    alice, bob = players(2)
    t = services.create(organiser=alice, name="Club night", kind="karenza", format="round_robin")
    for u in (alice, bob):
        services.join(t.pk, u)
    services.start(t.pk, alice)
    assert 'href="/players/bob/"' in client_for(alice).get(f"/tournaments/{t.pk}/").content.decode()
    bob.is_active = False
    bob.save()
    page = client_for(alice).get(f"/tournaments/{t.pk}/").content.decode()
    standings = page[page.index('id="standings"'):]
    assert ">bob<" in standings and "/players/bob/" not in page and 'href="/players/alice/"' in standings
