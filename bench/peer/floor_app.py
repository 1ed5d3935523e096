"""The floor's WSGI application (bench/peer/floor.py): no rules, nothing but what any durable
move must pay for. FLOOR_MODE=http answers at once; FLOOR_MODE=durable first commits one event
with the game row's compare-and-set, as kinplay's usual move does: one statement committed by
itself (no BEGIN or COMMIT round trip), from the row's version this process wrote last (read
again only when another wrote since), over psycopg like Django's. FLOOR_MODE=django does the
same through the stack kinplay is built on: Django's WSGI handler (no middleware), a view in an
atomic block, the statement through Django's connection (kinplay.infra.postgres, as configured in
kinplay/settings.py) and an HttpResponse."""

import functools
import gc
import os
import sys
import threading
import types

import orjson
import psycopg

ANSWER = orjson.dumps({"version": 1, "events": [], "game": {"padding": "x" * 3300}})  # kinplay's answer is ~3.4 KB
MODE = os.environ.get("FLOOR_MODE", "http")
DATABASE_URL = os.environ.get("FLOOR_DATABASE_URL", "")
GAMES = 64
_local = threading.local()
_versions: dict[int, int] = {}  # the row as this process last wrote it: the floor reads nothing before its write

LOAD = "SELECT version FROM floor_game WHERE id = %s"
STORE = ("WITH w AS (UPDATE floor_game SET version = version + 1 WHERE id = %s AND version = %s RETURNING 1) "
         "INSERT INTO floor_event (game_id, seq, data) SELECT %s, %s, %s WHERE EXISTS (SELECT FROM w)")


def _connection():
    conn = getattr(_local, "conn", None)
    if conn is None:
        conn = _local.conn = psycopg.connect(DATABASE_URL, autocommit=True)
    return conn


def _psycopg_store(sql, params):
    return _connection().execute(sql, params).rowcount


def _psycopg_fetch(sql, params):
    return _connection().execute(sql, params).fetchone()


def _durable(game, body, store=_psycopg_store, fetch=_psycopg_fetch):
    data = orjson.dumps(body).decode()
    while True:
        version = _versions.get(game)
        if version is None:
            version = fetch(LOAD, (game,))[0]
        if store(STORE, (game, version, game, version + 1, data)):
            _versions[game] = version + 1
            return
        _versions.pop(game, None)


def _django_application():
    """Django set up with nothing but kinplay's database settings (kinplay/settings.py's own
    DATABASES, for this database) and one route."""
    import importlib

    import django
    from django.conf import settings
    from django.core.wsgi import get_wsgi_application
    from django.db import connection, transaction
    from django.http import HttpResponse
    from django.urls import path

    def move(request, game):
        body = orjson.loads(request.body)
        with transaction.atomic():
            _durable(game, body, connection.execute_last, functools.partial(_fetch, connection))
        return HttpResponse(ANSWER, status=201, content_type="application/json")

    urls = types.ModuleType("floor_urls")
    urls.urlpatterns = [path("<int:game>", move)]
    sys.modules[urls.__name__] = urls
    # kinplay's settings module read as a plain module, for its DATABASES alone (this process is
    # the floor's server and nothing else, so its environment may be set here)
    os.environ.update(DATABASE_URL=DATABASE_URL, SECRET_KEY="floor-only-" + "x" * 50)
    kinplay = importlib.import_module("kinplay.settings")
    settings.configure(
        DEBUG=False, ALLOWED_HOSTS=["*"], ROOT_URLCONF=urls.__name__, MIDDLEWARE=[], INSTALLED_APPS=[],
        SECRET_KEY="floor-only", USE_TZ=True, DATABASES=kinplay.DATABASES)
    django.setup()
    app = get_wsgi_application()
    gc.freeze()  # as kinplay/wsgi.py does
    return app


def _fetch(connection, sql, params):
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchone()


def _plain_application(environ, start_response):
    size = int(environ.get("CONTENT_LENGTH") or 0)
    body = orjson.loads(environ["wsgi.input"].read(size)) if size else {}
    if MODE == "durable":  # /<game>: each client plays its own game, one move at a time
        _durable(int(environ["PATH_INFO"].strip("/")), body)
    start_response("201 Created", [("Content-Type", "application/json"), ("Content-Length", str(len(ANSWER)))])
    return [ANSWER]


application = _django_application() if MODE == "django" else _plain_application


SCHEMA = f"""
CREATE TABLE floor_game (id int PRIMARY KEY, version int NOT NULL, state jsonb NOT NULL);
CREATE TABLE floor_event (game_id int NOT NULL, seq int NOT NULL, data jsonb NOT NULL, PRIMARY KEY (game_id, seq));
INSERT INTO floor_game SELECT i, 0, jsonb_build_object('padding', repeat('x', 3000)) FROM generate_series(1, {GAMES}) i;
"""
