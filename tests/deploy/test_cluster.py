"""Several machines, on loopback: two web nodes behind HAProxy, three workers (two for deadlines, one for email), two beats,
PgBouncer, PostgreSQL and Redis (tests/cluster.py). Players play through the balancer while a
web node, a worker and the beat holding the lease are killed and started again: no acknowledged
move is lost or doubled, every deadline fires once and within a minute, every email goes once.
Prints moves/s through one node and through the balancer with two."""

from __future__ import annotations

import email
import threading
import time
import uuid
from collections import Counter

import pytest

from tests.cluster import PASSWORD, Cluster, Player
from tests.conftest import wait_for

pytestmark = [pytest.mark.services, pytest.mark.postgresql]  # its own database: run once, in the PostgreSQL run
PLAYERS = 6
IDLE_GAMES = 4  # zed's games against a bot: zed never moves, so the clock moves for zed
SECONDS = 45
LAG = 60


def users(cluster, names) -> dict[str, str]:
    code = ("from django.contrib.auth import get_user_model\n"
            "from rest_framework.authtoken.models import Token\n"
            f"for name in {list(names)!r}:\n"
            f"    user = get_user_model().objects.create_user(name, name + '@example.com', {PASSWORD!r})\n"
            "    print(name, Token.objects.create(user=user).key)\n")
    return dict(line.split() for line in cluster.manage("shell", "-v0", code=code).splitlines())


class Ledger:
    """What the players were told: each move acknowledged (201), and each whose answer never came."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked: Counter = Counter()  # game id -> moves answered 201
        self.unknown: Counter = Counter()  # game id -> moves sent whose answer was lost every time
        self.moves = 0

    def add(self, game_id, acked: bool):
        with self.lock:
            (self.acked if acked else self.unknown)[game_id] += 1
            self.moves += acked


def play(player: Player, until: float, ledger: Ledger):
    game = None
    while time.monotonic() < until:
        if game is None or game["status"] != "active" or not game["legal_actions"]:
            status, game = player.request("POST", "/api/games/", {"kind": "knonsters", "seats": [
                {"user": player.name}, {"bot": "random"}]})
            if status != 201:
                game = None
                time.sleep(0.2)
            continue
        move = {"action": game["legal_actions"][0]["action"], "expected_version": game["version"]}
        key = uuid.uuid4().hex
        for _ in range(20):  # the same move under the same key until an answer comes
            status, body = player.request("POST", f"/api/games/{game['id']}/actions/", move, {"Idempotency-Key": key})
            if status and status < 500:
                break
            time.sleep(0.2)
        if status == 201:
            ledger.add(game["id"], True)
            game = body["game"]
        else:
            if not status or status >= 500:
                ledger.add(game["id"], False)
            status, game = player.request("GET", f"/api/games/{game['id']}/")
            game = game if status == 200 else None


def players(port: int, tokens: dict[str, str], seconds: float) -> tuple[Ledger, list[threading.Thread]]:
    """Each player playing through ``port`` for ``seconds``, a thread each, started."""
    ledger, until = Ledger(), time.monotonic() + seconds
    threads = [threading.Thread(target=play, args=(Player(port, name, token), until, ledger))
               for name, token in tokens.items()]
    for t in threads:
        t.start()
    return ledger, threads


def moves_per_second(port: int, tokens: dict[str, str], seconds: float) -> float:
    ledger, threads = players(port, tokens, seconds)
    for t in threads:
        t.join()
    return ledger.moves / seconds


def test_it_loses_and_doubles_nothing_while_nodes_die(tmp_path):
    cluster = Cluster(tmp_path)
    try:
        cluster.manage("migrate", "--noinput", "-v0", direct=True)
        cluster.pgbouncer()
        run(cluster)
    except BaseException:
        print(cluster.logs())
        raise
    finally:
        cluster.close()


def run(cluster: Cluster):
    (web1, port1), (_, port2) = cluster.web("web1"), cluster.web("web2")
    _, balancer = cluster.haproxy([port1, port2])
    tokens = users(cluster, [f"p{i}" for i in range(PLAYERS)] + ["zed"])
    zed = tokens.pop("zed")
    one = moves_per_second(port1, tokens, 8)
    two = moves_per_second(balancer, tokens, 8)
    print(f"\nmoves/s with {PLAYERS} players: one web node {one:.0f}, two behind HAProxy {two:.0f}")

    workers = [cluster.worker("deadlines1", "deadlines"), cluster.worker("deadlines2", "deadlines"),
               cluster.worker("email1", "email")]
    beats = {b.proc.pid: b for b in (cluster.beat("beat1"), cluster.beat("beat2"))}
    idle = Player(balancer, "zed", zed)
    games = []
    for _ in range(IDLE_GAMES):
        status, game = idle.request("POST", "/api/games/", {"kind": "knonsters", "clock": {"per_move": 2, "on_timeout": "bot"},
                                                            "seats": [{"user": "zed"}, {"bot": "heuristic"}]})
        assert status == 201, game
        games.append(game["id"])

    ledger, threads = players(balancer, tokens, SECONDS)
    try:
        chaos(cluster, web1, port1, workers[0], beats)
    finally:
        for t in threads:
            t.join(SECONDS + 120)
    assert ledger.moves > 100, f"only {ledger.moves} moves acknowledged"
    settle(cluster, games)
    check_moves(cluster, ledger)
    check_deadlines(cluster, games)
    check_emails(cluster)


def chaos(cluster, web1, port1, worker1, beats):
    """A web node, a worker and the scheduling beat killed (no goodbye), then started again."""
    time.sleep(6)
    web1.kill()
    time.sleep(5)
    cluster.web("web1-again", port1)
    time.sleep(3)
    worker1.kill()
    time.sleep(5)
    cluster.worker("deadlines1-again", "deadlines")
    holder = cluster.psql("SELECT holder FROM clocks_lease WHERE name = 'beat'")[0][0]
    beats[int(holder.rsplit(":", 1)[1])].kill()
    time.sleep(5)
    cluster.beat("beat3")


def settle(cluster, games):
    """Until no deadline of these games is in flight or overdue, and the outbox is empty."""
    ids = ",".join(map(str, games))

    def quiet():
        busy = cluster.psql(f"SELECT count(*) FROM clocks_deadline WHERE game_id IN ({ids}) AND "
                            "(outcome = 'claimed' OR (done_at IS NULL AND due_at < now() - interval '5 seconds'))")
        waiting = cluster.psql("SELECT count(*) FROM notifications_outbox WHERE sent_at IS NULL AND failed_at IS NULL "
                             "AND held_at IS NULL")
        return busy[0][0] == "0" and waiting[0][0] == "0"

    wait_for(quiet, "deadlines and emails to settle", timeout=120)


def check_moves(cluster, ledger):
    for game_id in set(ledger.acked) | set(ledger.unknown):
        stored = int(cluster.psql(f"SELECT count(*) FROM games_event WHERE game_id = {game_id} AND seat = 0 "
                                  "AND command->>'by' = 'player'")[0][0])
        acked, unknown = ledger.acked[game_id], ledger.unknown[game_id]
        assert acked <= stored <= acked + unknown, f"game {game_id}: {acked} moves acknowledged, {stored} stored"
        seqs = cluster.psql(f"SELECT count(*), max(seq) FROM games_event WHERE game_id = {game_id}")[0]
        assert seqs[0] == seqs[1], f"game {game_id}: a gap or a double in the stream"


def check_deadlines(cluster, games):
    for game_id in games:
        applied = int(cluster.psql(f"SELECT count(*) FROM clocks_deadline WHERE game_id = {game_id} AND kind = 'move' "
                                   "AND outcome LIKE 'timeout%'")[0][0])
        commands = int(cluster.psql(f"SELECT count(*) FROM games_event WHERE game_id = {game_id} "
                                    "AND command->>'by' LIKE 'timeout%'")[0][0])
        assert applied == commands > 0, f"game {game_id}: {applied} deadlines applied, {commands} timeout moves"
    lags = [float(r[0]) for r in cluster.psql(
        "SELECT extract(epoch FROM done_at - due_at) FROM clocks_deadline WHERE outcome LIKE 'timeout%' ORDER BY 1")]
    assert lags and lags[int(len(lags) * 0.99)] <= LAG and lags[-1] <= LAG, f"lags: {lags[-5:]}"


def check_emails(cluster):
    ids = Counter()
    for path in (cluster.folder / "mail").glob("*"):
        for chunk in path.read_bytes().split(b"\n" + b"-" * 79 + b"\n"):
            if chunk.strip():
                ids[email.message_from_bytes(chunk.strip()).get("Message-ID")] += 1
    ids.pop(None, None)
    assert ids, "no email was sent: the check would prove nothing"
    assert max(ids.values()) == 1, f"sent twice: {[i for i, n in ids.items() if n > 1][:5]}"
    sent = int(cluster.psql("SELECT count(*) FROM notifications_outbox WHERE sent_at IS NOT NULL AND folded_into_id IS NULL "
                           "AND error = ''")[0][0])
    assert sent == len(ids)
