"""The floor's WSGI application (bench/peer/floor.py): no Django, no rules, nothing but what
any durable move must pay for. FLOOR_MODE=http answers at once; FLOOR_MODE=durable first reads
the game's row and commits one event with the game row's compare-and-set, as kinplay's move
does (BEGIN, SELECT, INSERT+UPDATE in one statement, COMMIT), over psycopg like Django's."""

import os
import threading

import orjson
import psycopg

ANSWER = orjson.dumps({"version": 1, "events": [], "game": {"padding": "x" * 3300}})  # kinplay's answer is ~3.4 KB
MODE = os.environ.get("FLOOR_MODE", "http")
DATABASE_URL = os.environ.get("FLOOR_DATABASE_URL", "")
GAMES = 64
_local = threading.local()

LOAD = "SELECT version, state FROM floor_game WHERE id = %s"
STORE = ("WITH e AS (INSERT INTO floor_event (game_id, seq, data) VALUES (%s, %s, %s)) "
         "UPDATE floor_game SET version = version + 1 WHERE id = %s AND version = %s")


def _connection():
    conn = getattr(_local, "conn", None)
    if conn is None:
        conn = _local.conn = psycopg.connect(DATABASE_URL)
    return conn


def _durable(game, body):
    conn = _connection()
    with conn.transaction():
        version, _state = conn.execute(LOAD, (game,)).fetchone()
        stored = conn.execute(STORE, (game, version + 1, orjson.dumps(body).decode(), game, version)).rowcount
    return stored


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
