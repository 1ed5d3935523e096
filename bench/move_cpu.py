#!/usr/bin/env python3
"""The server's CPU per durable move without the web server, HTTP or other processes' contention.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/kp_move_cpu REDIS_URL=redis://127.0.0.1:6379/11 \\
        .venv/bin/python bench/move_cpu.py [--moves 600] [--layers | --new-games N | --request-only]

kinplay's WSGI application called in one thread: POST /api/games/{id}/actions/ with a Knonsters
bot answering in the same transaction, as bench/api.py's moves phase sends it (the whole game in
the answer), against a real PostgreSQL (and Redis for the throttles, when REDIS_URL is set).
Prints the process's CPU time (time.process_time) per move, after 100 moves of warm-up,
replacing finished games outside the count. The PostgreSQL backend's and Redis's own CPU are
not in it (make bench-peer counts those). With --new-games N, the CPU per game created instead:
POST /api/games/ as bench/api.py sends it to replace a finished game, after as many games of
warm-up. Every request takes the one path every request takes: settings.MIDDLEWARE and DRF. On a shared machine this figure moves far less
than make bench-peer's CPU per move, which also pays for the web server and for contention.
Creates the database when it does not exist and then drops it.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from bench.api import Postgres  # noqa: E402

WARMUP = 100


def request_environ(token, method, path, data: bytes) -> dict:
    """A WSGI environ for one JSON request sent with ``token``."""
    return {
        "REQUEST_METHOD": method, "PATH_INFO": path, "SERVER_NAME": "localhost", "SERVER_PORT": "80",
        "HTTP_HOST": "localhost", "SERVER_PROTOCOL": "HTTP/1.1", "REMOTE_ADDR": "127.0.0.1",
        "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(data), "wsgi.errors": sys.stderr, "wsgi.version": (1, 0),
        "wsgi.multithread": True, "wsgi.multiprocess": True, "wsgi.run_once": False,
        "CONTENT_LENGTH": str(len(data)), "CONTENT_TYPE": "application/json", "HTTP_AUTHORIZATION": f"Token {token}",
    }


def wsgi_call(application, token, method, path, body=None):
    data = json.dumps(body).encode() if body is not None else b""
    environ = request_environ(token, method, path, data)
    status = []
    answer = application(environ, lambda s, headers, exc_info=None: status.append(int(s.split()[0])))
    content = b"".join(answer)
    if hasattr(answer, "close"):  # as a WSGI server does (kinplay.wsgi hands over a list: closed already)
        answer.close()
    return status[0], json.loads(content)


SERVICE = object()  # --layers: the move made by the service, not through the WSGI application


def service_call(user, game_id, body):
    """What game_action does for a move, less the request: the service, the answer's events and
    game as the caller may see them, encoded and decoded as over HTTP."""
    import orjson

    from api.views import action_body
    from games import services

    outcome = services.act(game_id, user=user, action=body["action"], expected_version=body["expected_version"])
    return 201, json.loads(orjson.dumps(action_body(user, outcome)))  # the view's own body, not rendered by DRF


def request_layers(application, token, game, n):
    """The CPU per request of everything around the service: a real move's answer is made once,
    then the view's service returns that body without running (api.views.move stubbed)."""
    import orjson

    from api import views

    body = {"action": game["legal_actions"][0]["action"], "expected_version": game["version"]}
    status, answer = wsgi_call(application, token, "POST", f"/api/games/{game['id']}/actions/", body)
    assert status == 201, answer
    real, views.move = views.move, lambda *args, **kwargs: answer
    data = json.dumps(body).encode()
    # as granian puts the process environment in every request (kinplay.server.RequestOnly)
    environ = {**os.environ, **request_environ(token, "POST", f"/api/games/{game['id']}/actions/", data)}
    statuses = []

    def start_response(s, headers, exc_info=None):
        statuses.append(s)

    try:
        spent = 0.0
        for i in range(n + n // 10):  # the first tenth warms up
            started = time.process_time()
            application({**environ, "wsgi.input": io.BytesIO(data)}, start_response)
            if i >= n // 10:
                spent += time.process_time() - started
    finally:
        views.move = real
    assert set(statuses) == {"201 Created"}, set(statuses)
    print(f"{1e6 * spent / n:.1f} µs of CPU per move request around the service (in process, one thread, {n} "
          f"requests, a {len(orjson.dumps(answer))}-byte answer; load average {os.getloadavg()[0]:.1f})")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--moves", type=int, default=600)
    ap.add_argument("--layers", action="store_true",
                    help="every other move by games.services.act and the answer's selectors, without HTTP, Django's "
                         "request or DRF (the same work the view asks for, the same JSON out and in): what the "
                         "request layers cost on top of the service")
    ap.add_argument("--new-games", type=int, metavar="N",
                    help="instead of moves, the CPU per POST /api/games/ of bench/api.py's moves phase (N games)")
    ap.add_argument("--request-only", action="store_true",
                    help="instead of moves, the request layers alone (Django's handler and middleware, DRF's dispatch, "
                         "the token check, the throttle, the serializer, the rendering): the service answers a real move's body without "
                         "running, so no rules and no database work")
    args = ap.parse_args(argv)
    pg = Postgres(os.environ.get("DATABASE_URL") or "postgres://postgres@127.0.0.1:5432/kp_move_cpu")
    pg.create()
    try:
        os.environ.update({
            "DATABASE_URL": pg.bench_url, "KINPLAY_VAR": tempfile.mkdtemp(prefix="kinplay-move-cpu-"), "DEBUG": "false",
            "LOG_LEVEL": "WARNING", "SECRET_KEY": "bench-only", "DJANGO_SETTINGS_MODULE": "kinplay.settings",
            "THROTTLE_USER": "10000000/min", "THROTTLE_MOVES": "10000000/min",
        })
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, check=True)
        import django

        django.setup()
        from django.contrib.auth import get_user_model
        from rest_framework.authtoken.models import Token

        from kinplay.wsgi import application

        paths = {"": application}
        if args.layers:
            paths = {"HTTP": application, "service": SERVICE}

        users = get_user_model().objects
        user = users.filter(username="alice").first() or users.create_user("alice", "alice@bench.invalid", "a-long-password")
        token = Token.objects.get_or_create(user=user)[0].key  # an existing database is used as it is

        def new_game():
            status, game = wsgi_call(application, token, "POST", "/api/games/", {
                "kind": "knonsters", "options": {}, "seats": [{"user": "alice"}, {"bot": "random"}],
                "clock": {"per_move": None, "on_timeout": "bot"}})
            assert status == 201, game
            return game

        if args.request_only:
            request_layers(application, token, new_game(), args.moves * 10)
            return
        if args.new_games:
            spent_creating = 0.0
            for n in range(2 * args.new_games):  # the first half warms up
                started = time.process_time()
                new_game()
                if n >= args.new_games:
                    spent_creating += time.process_time() - started
            print(f"{1000 * spent_creating / args.new_games:.2f} ms of CPU per game created (in process, one thread, "
                  f"{args.new_games} games; load average {os.getloadavg()[0]:.1f})")
            return

        rnd, game, moves, spent = random.Random(1), new_game(), 0, dict.fromkeys(paths, 0.0)
        total = WARMUP + args.moves * len(paths)
        while moves < total:
            if game["status"] != "active" or not game["legal_actions"]:
                game = new_game()
                continue
            path = list(paths)[moves % len(paths)]
            body = {"action": rnd.choice(game["legal_actions"])["action"], "expected_version": game["version"]}
            started = time.process_time()
            if paths[path] is SERVICE:
                status, answer = service_call(user, game["id"], body)
            else:
                status, answer = wsgi_call(paths[path], token, "POST", f"/api/games/{game['id']}/actions/", body)
            took = time.process_time() - started
            assert status == 201, answer
            moves += 1
            if moves > WARMUP:
                spent[path] += took
            game = answer["game"]
        for path, seconds in spent.items():
            print(f"{1000 * seconds / args.moves:.2f} ms of CPU per durable move{f' ({path})' if path else ''} (in process, "
                  f"one thread, {args.moves} moves, a bot answering each; load average {os.getloadavg()[0]:.1f})")
    finally:
        from django.db import connections

        connections.close_all()
        pg.drop()


if __name__ == "__main__":
    main()
