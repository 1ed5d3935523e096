"""A web node behind PgBouncer in transaction mode (PG_PREPARE=false): moves are played, a stale
one is refused, a repeated one is answered once, as with a direct connection."""

import uuid

import pytest

from tests.cluster import PASSWORD, Cluster, Player

pytestmark = [pytest.mark.services, pytest.mark.postgresql]  # its own database: run once, in the PostgreSQL run

USERS = ("from django.contrib.auth import get_user_model\n"
         "from rest_framework.authtoken.models import Token\n"
         "for name in ('alice', 'bob'):\n"
         "    user = get_user_model().objects.create_user(name, f'{name}@example.com', '" + PASSWORD + "')\n"
         "    print(name, Token.objects.create(user=user).key)\n")


@pytest.fixture
def cluster(tmp_path):
    cluster = Cluster(tmp_path)
    try:
        cluster.manage("migrate", "--noinput", "-v0", direct=True)
        cluster.pgbouncer()
        yield cluster
    finally:
        cluster.close()


def tokens(cluster) -> dict[str, str]:
    return dict(line.split() for line in cluster.manage("shell", "-v0", code=USERS).splitlines())


def test_it_plays_through_pgbouncer_in_transaction_mode(cluster):
    _, port = cluster.web("web")
    alice = Player(port, "alice", tokens(cluster)["alice"])
    status, game = alice.request("POST", "/api/games/", {"kind": "knonsters", "seats": [{"user": "alice"}, {"bot": "random"}]})
    assert status == 201, game
    for _ in range(6):
        key = uuid.uuid4().hex
        move = {"action": game["legal_actions"][0]["action"], "expected_version": game["version"]}
        status, body = alice.request("POST", f"/api/games/{game['id']}/actions/", move, {"Idempotency-Key": key})
        assert status == 201, body
        again, repeat = alice.request("POST", f"/api/games/{game['id']}/actions/", move, {"Idempotency-Key": key})
        assert again == 201 and repeat["game"]["version"] == body["game"]["version"]
        assert alice.request("POST", f"/api/games/{game['id']}/actions/", move)[0] == 409  # stale now
        game = body["game"]
        if game["status"] != "active":
            break
    rows = cluster.psql(f"SELECT count(*), count(DISTINCT seq), max(seq) FROM games_event WHERE game_id = {game['id']}")
    assert rows[0][0] == rows[0][1] == rows[0][2] == str(game["version"])
