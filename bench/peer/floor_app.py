"""The floor's WSGI application (bench/peer/floor.py): no Django, no rules, nothing but what
any durable move must pay for. FLOOR_MODE=http answers at once; FLOOR_MODE=durable first
commits one event with the game row's compare-and-set, as kinplay's usual move does: one
statement committed by itself (no BEGIN or COMMIT round trip), from the row's version this
process wrote last (read again only when another wrote since), over psycopg like Django's."""

import os
import threading

import orjson
import psycopg

ANSWER = orjson.dumps({"version": 1, "events": [], "game": {"padding": "x" * 3300}})  # kinplay's answer is ~3.4 KB
MODE = os.environ.get("FLOOR_MODE", "http")
DATABASE_URL = os.environ.get("FLOOR_DATABASE_URL", "")
GAMES = 64
_local = threading.local()
_versions: dict[int, int] = {}  # the row as this process last wrote it (kinplay's RowCache)

LOAD = "SELECT version FROM floor_game WHERE id = %s"
STORE = ("WITH w AS (UPDATE floor_game SET version = version + 1 WHERE id = %s AND version = %s RETURNING 1) "
         "INSERT INTO floor_event (game_id, seq, data) SELECT %s, %s, %s WHERE EXISTS (SELECT FROM w)")


def _connection():
    conn = getattr(_local, "conn", None)
    if conn is None:
        conn = _local.conn = psycopg.connect(DATABASE_URL, autocommit=True)
    return conn


def _durable(game, body):
    conn = _connection()
    data = orjson.dumps(body).decode()
    while True:
        version = _versions.get(game)
        if version is None:
            version = conn.execute(LOAD, (game,)).fetchone()[0]
        if conn.execute(STORE, (game, version, game, version + 1, data)).rowcount:
            _versions[game] = version + 1
            return
        _versions.pop(game, None)


def application(environ, start_response):
    size = int(environ.get("CONTENT_LENGTH") or 0)
    body = orjson.loads(environ["wsgi.input"].read(size)) if size else {}
    if MODE == "durable":  # /<game>: each client plays its own game, one move at a time
        _durable(int(environ["PATH_INFO"].strip("/")), body)
    start_response("201 Created", [("Content-Type", "application/json"), ("Content-Length", str(len(ANSWER)))])
    return [ANSWER]


SCHEMA = f"""
CREATE TABLE floor_game (id int PRIMARY KEY, version int NOT NULL, state jsonb NOT NULL);
CREATE TABLE floor_event (game_id int NOT NULL, seq int NOT NULL, data jsonb NOT NULL, PRIMARY KEY (game_id, seq));
INSERT INTO floor_game SELECT i, 0, jsonb_build_object('padding', repeat('x', 3000)) FROM generate_series(1, {GAMES}) i;
"""
