#!/usr/bin/env python3
"""Lists and storage at a million finished games (issue 30), on PostgreSQL.

    .venv/bin/python bench/bigdata.py [--database kp_bigdata] [--games 1000000] [--reuse] [--samples 30]

Fills a database of its own with ``--games`` finished games shaped like real ones (it is
dropped and created again, then migrated, unless ``--reuse`` finds it filled), then measures,
in this process, through the web worker's WSGI application (kinplay.wsgi, handed each request as
the web server hands it; a token for the API, a session's cookie for the pages):

- a move (POST /api/games/{id}/actions/, a bot answering in the same transaction);
- the heavy player's GET /api/games/ under every filter the API takes, and with ``limit=10``;
- the heavy player's lobby, the player API and page, the leaderboard (API pages 1 and 250),
  open games, tournaments and leagues, the events of an 87-event game and a game's chat;

and prints p50 and p99 of the wall time of each, the ``EXPLAIN (ANALYZE, BUFFERS)`` of every
list statement, and the storage: each table's and index's size, bytes per event and per
finished game. ``--reuse`` measures an already filled database again without filling it;
``--no-measure`` stops after the storage figures. Each measure also prints the garbage
collector's time per request and its longest pause; ``--default-gc`` measures with CPython's
own collection, without the web worker's (``kinplay.server.RequestOnly``, ``collect_young``).

How the data is made: a few hundred games are played in process by the engines' bots (as
``games.services`` plays them: the store's ``Appender`` numbers the events, writes each
command on its first event, the idempotency key a web or API client sends, and the snapshots
due), then every finished game copies one of these streams under its own id, players and
times (and the stream's seed, so ``verify_game`` passes on any of them). Games end by a
resignation or at their natural end; the streams are weighted so that a game has about
``--events`` events on average. Everything is written with COPY (``cursor.copy``), with the
big tables' secondary indexes dropped during the copy and rebuilt after it; then the finished
games' streams are compacted (``games.store.compact_over``, as the hourly task does a day after
a game ends) and the database analyzed.
The heavy player's active games against a bot (where the move is measured), the
tournaments and the leagues are made by the services, as a server makes them.
"""

from __future__ import annotations

import argparse
import gc
import io
import itertools
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HEAVY = "heavy"
EPOCH = int(datetime(2024, 1, 1, tzinfo=UTC).timestamp())
KIND_SHARE = {"knonsters": 0.35, "kenta": 0.15, "karenza": 0.2, "project_kin": 0.15, "kinapa": 0.15}
CHUNK = 1 << 20  # bytes handed to COPY at a time


def parse(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--database", default="kp_bigdata", help="the PostgreSQL database (created if missing)")
    ap.add_argument("--server", default="postgres://postgres@127.0.0.1:5432", help="where PostgreSQL listens")
    ap.add_argument("--games", type=int, default=1_000_000, help="finished games")
    ap.add_argument("--players", type=int, default=50_000)
    ap.add_argument("--heavy-games", type=int, default=10_100, help="the heavy player's games, all kinds and states")
    ap.add_argument("--active", type=int, default=3_000, help="active games between people")
    ap.add_argument("--bot-games", type=int, default=300, help="the heavy player's active games against a bot")
    ap.add_argument("--events", type=float, default=23.0, help="events per finished game, on average")
    ap.add_argument("--templates", type=int, default=400, help="games played by the bots, whose streams are copied")
    ap.add_argument("--reuse", action="store_true", help="measure the database as it is, if it is filled")
    ap.add_argument("--samples", type=int, default=30, help="requests per measure")
    ap.add_argument("--no-measure", action="store_true", help="fill (unless reused) and print the storage only")
    ap.add_argument("--default-gc", action="store_true", help="CPython's collection thresholds, not the web worker's")
    ap.add_argument("--seed", type=int, default=30)
    return ap.parse_args(argv)


# ---------------------------------------------------------------- the database


def prepare_database(args) -> bool:
    """Set Django up on the database, migrated; returns whether it is filled already. Unless
    ``--reuse`` finds it filled, it is dropped and created again, empty."""
    server = args.server.split("//", 1)[1]
    user, host = server.split("@") if "@" in server else ("postgres", server)
    host, port = host.split(":") if ":" in host else (host, "5432")
    cli = ["-h", host, "-p", port, "-U", user]
    reuse = args.reuse and finished_games(cli, args.database) >= args.games
    if not reuse:
        subprocess.run(["dropdb", *cli, "--if-exists", "--force", args.database], check=True)
        subprocess.run(["createdb", *cli, args.database], check=True)
    os.environ.update({
        "DATABASE_URL": url_of(args), "KINPLAY_VAR": tempfile.mkdtemp(prefix="kinplay-bigdata-"), "DEBUG": "false",
        "LOG_LEVEL": "WARNING", "SECRET_KEY": "bench-only", "DJANGO_SETTINGS_MODULE": "kinplay.settings",
        "THROTTLE_USER": "10000000/min", "THROTTLE_MOVES": "10000000/min", "ALLOWED_HOSTS": "testserver",
    })
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, check=True)
    import django

    django.setup()
    return reuse


def url_of(args) -> str:
    return f"{args.server}/{args.database}"


def finished_games(cli, database) -> int:
    """The finished games in ``database`` (0 if it or its tables are missing)."""
    out = subprocess.run(["psql", *cli, "-tAc", "SELECT count(*) FROM games_game WHERE status = 'finished'",
                          database], capture_output=True, text=True)
    return int(out.stdout.strip()) if out.returncode == 0 and out.stdout.strip().isdigit() else 0


def table(model) -> str:
    return model._meta.db_table


# ---------------------------------------------------------------- the streams copied


class Template:
    """One game played by the bots: its rows as the store writes them, as COPY text."""

    def __init__(self, kind, n, options, seed, bots, rows, snapshots, offsets, result, state_at):
        self.kind, self.n, self.options, self.seed, self.bots = kind, n, options, seed, bots
        self.rows, self.snapshots, self.offsets, self.result = rows, snapshots, offsets, result
        self.state_at = state_at  # command boundaries (version after it) -> to_act seats, for active games

    @property
    def version(self) -> int:
        return len(self.rows)


def play_template(kind, n, rng, *, natural: bool, mean_extra: float, bot_seat: int | None,
                  stop_at: int | None = None) -> Template:
    """One game by the heavy bots through the store's Appender (nothing saved): every command as
    a web, API or email player or a bot sends it, resigning once the game is long enough."""
    from games.engine import decide_and_evolve, replay
    from games.models import Game
    from games.registry import get
    from games.rng import Rng, new_seed
    from games.store import Appender

    k = get(kind)
    rules, options = k.rules, default_options(k.rules)
    seed = new_seed()
    game = Game(kind=kind, seed=seed, options=options)
    appender = Appender(game, 0)
    setup = rules.setup(n, options, Rng(seed, 0))
    state = replay(rules, setup)
    appender.add(setup, state, seat=None, command={"setup": True})
    stop = math.inf if natural else stop_at or len(setup) + 1 + rng.expovariate(1 / mean_extra)
    offsets, state_at, clock = [0] * len(setup), {}, 0
    while rules.result(state) is None:
        to_act = rules.to_act(state)
        state_at[appender.version] = sorted(to_act)
        seat = rng.choice(sorted(to_act))
        resign = appender.version >= stop
        action = {"type": "resign"} if resign else k.bot("heuristic" if rng.random() < .7 else "random")(
            state, seat, Rng(seed, f"bot:{appender.version}"))
        events, state = decide_and_evolve(rules, state, seat, action, Rng(seed, appender.version))
        by, key, command = ("bot", None, {}) if seat == bot_seat else client(rng, action)
        appender.add(events, state, seat=seat, command={"seat": seat, "action": action, "by": by, **command},
                     idempotency_key=key)
        clock += int(rng.expovariate(1 / 3600)) + 5
        offsets += [clock] * len(events)
    return Template(kind, n, options, seed, bot_seat, appender.rows, appender.snapshots, offsets, rules.result(state),
                    state_at)


def client(rng, action) -> tuple[str, str | None, dict]:
    """How a person's move arrives: the web page (a key and the request's fingerprint), an API
    client with an Idempotency-Key, or one without (an email reply, a plain API call)."""
    from games.services import _fingerprint

    roll = rng.random()
    if roll < .6:
        key = "web:" + rng.randbytes(32).hex()
    elif roll < .75:
        key = str(uuid.UUID(int=rng.getrandbits(128), version=4))
    else:
        return "player", None, {}
    return "player", key, {"request": _fingerprint(action, None, None)}


def default_options(rules) -> dict:
    return {k: p["default"] for k, p in rules.OPTIONS_SCHEMA.get("properties", {}).items() if "default" in p}


def templates(args, rng) -> list[Template]:
    """``--templates`` games of every kind and size, a quarter played to their end, and one
    of 87 events (the events measure reads it)."""
    from bench.engine import player_counts
    from games.registry import get

    out, kinds = [], list(KIND_SHARE)
    weights = list(KIND_SHARE.values())
    for i in range(args.templates):
        kind = rng.choices(kinds, weights)[0]
        counts = player_counts(get(kind).rules, default_options(get(kind).rules))
        n = 2 if 2 in counts and rng.random() < .7 else rng.choice(counts)
        bot = n - 1 if rng.random() < .15 else None
        out.append(play_template(kind, n, rng, natural=rng.random() < .25, mean_extra=14, bot_seat=bot))
        if i % 100 == 99:
            print(f"  {i + 1} games played by the bots", flush=True)
    for _ in range(200):  # resigning at the first turn from event 86 on: 87 events, unless a command takes several
        if any(t.version == 87 for t in out):
            break
        t = play_template(rng.choice(kinds), 2, rng, natural=False, mean_extra=1, bot_seat=None, stop_at=86)
        out += [t] if t.version == 87 else []
    return out


def weights_for(lengths: list[int], mean: float) -> list[float]:
    """Weights ∝ exp(-λ·length) (an exponential tilt) whose weighted mean length is ``mean``."""
    def tilted(lam):
        w = [math.exp(-lam * (n - min(lengths))) for n in lengths]
        return sum(a * b for a, b in zip(w, lengths)) / sum(w), w

    low, high = -1.0, 1.0
    for _ in range(100):
        mid = (low + high) / 2
        if tilted(mid)[0] > mean:
            low = mid
        else:
            high = mid
    return tilted((low + high) / 2)[1]


# ---------------------------------------------------------------- COPY text


def text(value) -> str:
    """One value in COPY's text format."""
    if isinstance(value, _Raw):
        return value
    if value is None:
        return "\\N"
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, dict | list):
        value = json.dumps(value)
    return str(value).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def columns(model, skip=()) -> list[str]:
    return [f.column for f in model._meta.concrete_fields if f.attname not in skip]


VARYING = ("id", "game_id", "at")  # an event's own values; the rest is its template's


def event_suffixes(template: Template) -> list[str]:
    """Each event's template part (every column but VARYING), as COPY text, once."""
    from games.models import Event

    names = [f.attname for f in Event._meta.concrete_fields if f.attname not in VARYING]
    return ["\t".join(text(getattr(row, a)) for a in names) + "\n" for row in template.rows]


def event_columns() -> list[str]:
    from games.models import Event

    present = {f.attname for f in Event._meta.concrete_fields}
    return [c for c in VARYING if c in present] + columns(Event, skip=VARYING)


def stamp(seconds: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S+00", time.gmtime(seconds))


class Copier:
    """A COPY into one table, fed rows or ready lines, in chunks of about CHUNK bytes."""

    def __init__(self, cursor, model, cols):
        self.cursor, self.cols = cursor, cols
        quoted = ", ".join(f'"{c}"' for c in cols)
        self.sql = f"COPY {table(model)} ({quoted}) FROM STDIN"
        self.copy, self.parts, self.size, self.rows = None, [], 0, 0

    def __enter__(self):
        self.ctx = self.cursor.copy(self.sql)
        self.copy = self.ctx.__enter__()
        return self

    def row(self, values) -> None:
        self.line("\t".join(text(v) for v in values) + "\n")

    def line(self, line: str) -> None:
        self.parts.append(line)
        self.size += len(line)
        self.rows += 1
        if self.size >= CHUNK:
            self.flush()

    def flush(self) -> None:
        self.copy.write("".join(self.parts).encode())
        self.parts, self.size = [], 0

    def __exit__(self, *exc):
        if exc[0] is None:
            self.flush()
        return self.ctx.__exit__(*exc)


# ---------------------------------------------------------------- the indexes around COPY


def secondary_indexes(cursor, name: str) -> list[tuple[str, str]]:
    """A table's unique constraints and indexes but its primary key: (kind, definition)."""
    cursor.execute("""SELECT conname, pg_get_constraintdef(oid) FROM pg_constraint
                      WHERE conrelid = %s::regclass AND contype = 'u'""", [name])
    found = [("constraint", f'ALTER TABLE {name} ADD CONSTRAINT "{c}" {d}') for c, d in cursor.fetchall()]
    cursor.execute("""SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid) FROM pg_index i
                      WHERE i.indrelid = %s::regclass AND NOT i.indisprimary
                      AND i.indexrelid NOT IN (SELECT conindid FROM pg_constraint WHERE conrelid = %s::regclass)""",
                   [name, name])
    return found + [("index", d) for _, d in cursor.fetchall()]


def drop_indexes(cursor, name: str) -> list[str]:
    """Drop them (COPY then writes the heap only); returns the statements that rebuild them."""
    rebuild = []
    cursor.execute("""SELECT conname FROM pg_constraint WHERE conrelid = %s::regclass AND contype = 'u'""", [name])
    constraints = [c for (c,) in cursor.fetchall()]
    for kind, definition in secondary_indexes(cursor, name):
        rebuild.append(definition)
        if kind == "index":
            cursor.execute(f"DROP INDEX {definition.split(' INDEX ', 1)[1].split(' ON ')[0]}")
    for c in constraints:
        cursor.execute(f'ALTER TABLE {name} DROP CONSTRAINT "{c}"')
    return rebuild


def rebuild_indexes(cursor, statements: list[str]) -> None:
    for s in statements:
        started = time.perf_counter()
        cursor.execute(s)
        print(f"  {s[:110]}: {time.perf_counter() - started:.0f} s", flush=True)


def next_id(cursor, model) -> int:
    cursor.execute(f"SELECT COALESCE(MAX(id), 0) + 1 FROM {table(model)}")
    return cursor.fetchone()[0]


def reset_sequences(cursor, models) -> None:
    for model in models:
        cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table(model)}', 'id'), "
                       f"(SELECT COALESCE(MAX(id), 1) FROM {table(model)}))")


# ---------------------------------------------------------------- filling


def row_of(model, **values) -> list:
    """A row of ``model`` in column order: ``values`` by attname, else each field's default."""
    return [values[f.attname] if f.attname in values else f.get_default() for f in model._meta.concrete_fields]


def connect(url, autocommit=False):
    """A connection of its own for one COPY stream, foreign-key triggers off (the rows are
    made consistent here; the constraints stay, and hold for what follows)."""
    import psycopg

    conn = psycopg.connect(url, autocommit=autocommit)
    conn.execute("SET session_replication_role = replica")
    conn.execute("SET synchronous_commit = off")
    return conn


def copy_users(url, args, rng) -> list[int]:
    """The players (``heavy`` first) and their profiles; returns their ids."""
    from django.contrib.auth import get_user_model

    from kinplay.accounts.models import Profile
    from kinplay.accounts.usernames import key

    user_model = get_user_model()
    with connect(url) as conn, conn.cursor() as cursor:
        first, profile_id = next_id(cursor, user_model), next_id(cursor, Profile)
        names = [HEAVY] + [f"p{i:05d}" for i in range(1, args.players)]
        ids = list(range(first, first + len(names)))
        joined = stamp(EPOCH - 86400)
        with Copier(cursor, user_model, columns(user_model)) as c:
            for uid, name in zip(ids, names):
                c.row(row_of(user_model, id=uid, username=name, email=f"{name}@bigdata.invalid", password="!",
                             date_joined=joined, last_login=None))
        with Copier(cursor, Profile, columns(Profile)) as c:
            for i, (uid, name) in enumerate(zip(ids, names)):
                c.row(row_of(Profile, id=profile_id + i, user_id=uid, username_key=key(name),
                             email_key=f"{name}@bigdata.invalid"))
    print(f"  {len(ids):,} players", flush=True)
    return ids


BIG = ["games.Game", "games.Seat", "games.Event", "games.Snapshot", "games.ChatMessage", "ratings.RatingChange",
       "clocks.Deadline"]


def big_models():
    from django.apps import apps

    return [apps.get_model(m) for m in BIG]


class Fill:
    """The finished and active games, with their seats, events, snapshots, rating changes,
    deadlines and chat, each table through a COPY of its own (the events through two), fed
    in one pass."""

    def __init__(self, url, args, rng, users, temps):
        from games.models import ChatMessage, Event, Game, Seat, Snapshot
        from kinplay.clocks.models import Deadline
        from kinplay.ratings.models import RatingChange

        self.args, self.rng, self.users, self.temps = args, rng, users, temps
        self.heavy = users[0]
        self.conns = {m: connect(url) for m in (Game, Seat, Snapshot, ChatMessage, RatingChange, Deadline, "e0", "e1")}
        cur = {m: c.cursor() for m, c in self.conns.items()}
        self.ids = {m: next_id(cur[m], m) for m in (Game, Seat, Snapshot, ChatMessage, RatingChange, Deadline)}
        self.ids[Event] = next_id(cur["e0"], Event)
        self.copiers = {m: Copier(cur[m], m, columns(m)) for m in (Game, Seat, Snapshot, ChatMessage, RatingChange,
                                                                   Deadline)}
        self.events = [Copier(cur[k], Event, event_columns()) for k in ("e0", "e1")]
        self.suffixes = [event_suffixes(t) for t in temps]
        self.snaps = [[(s.seq, _Raw(text(s.state)), s.rules_version) for s in t.snapshots] for t in temps]
        self.has_at = "at" in self.events[0].cols
        self.played: Counter = Counter()  # (user, kind) -> rated games, for the ratings
        self.models = (Game, Seat, Event, Snapshot, ChatMessage, RatingChange, Deadline)

    def __enter__(self):
        for c in [*self.copiers.values(), *self.events]:
            c.__enter__()
        return self

    def __exit__(self, *exc):
        for c in [*self.copiers.values(), *self.events]:
            c.__exit__(*exc)
        for conn in self.conns.values():
            conn.commit() if exc[0] is None else conn.rollback()
            conn.close()

    def take(self, model) -> int:
        self.ids[model] += 1
        return self.ids[model] - 1

    def players(self, n, heavy: bool) -> list[int]:
        chosen = set()
        if heavy:
            chosen.add(self.heavy)
        while len(chosen) < n:
            chosen.add(self.users[self.rng.randrange(1, len(self.users))])
        out = list(chosen)
        self.rng.shuffle(out)
        return out

    def game(self, t: Template, upto: int, start: int, *, heavy: bool, finished: bool) -> None:
        """One game copying template ``t``'s first ``upto`` events, begun at ``start`` (epoch s)."""
        from games.models import Game

        gid = self.take(Game)
        seated = self.players(t.n - (t.bots is not None), heavy)
        users = seated[:t.bots] + [None] + seated[t.bots:] if t.bots is not None else seated
        end = start + (t.offsets[upto - 1] if upto else 0)
        rated = finished and t.bots is None and self.rng.random() < .9
        to_act = [] if finished else t.state_at[upto]
        self.copiers[Game].row(row_of(
            Game, id=gid, kind=t.kind, options=t.options, status=Game.FINISHED if finished else Game.ACTIVE,
            version=upto, seed=t.seed, seed_sha256=_digest(t.seed), per_move=3 * 86400, to_act=to_act,
            deadline=None if finished else stamp(end + 2 * 86400), result=t.result if finished else None,
            created_by_id=seated[0], rated=rated, finished_at=stamp(end) if finished else None,
            created_at=stamp(start - 60), updated_at=stamp(end)))
        self.seats(gid, t, users, finished)
        self.stream(gid, t, upto, start)
        if finished and rated:
            self.rating_changes(gid, t, users, end)
        if not finished:
            self.deadlines(gid, to_act, upto, end)
        if self.rng.random() < .05 or (heavy and self.rng.random() < .2):
            self.chat(gid, [u for u in users if u is not None], end)

    def seats(self, gid, t, users, over: bool) -> None:
        from games.models import Seat

        for index, uid in enumerate(users):
            self.copiers[Seat].row(row_of(Seat, id=self.take(Seat), game_id=gid, index=index, user_id=uid,
                                          bot="heuristic" if uid is None else "", over=over))

    def stream(self, gid, t, upto, start) -> None:
        """The game's first ``upto`` events (each command's events share its time) and snapshots."""
        from games.models import Event, Snapshot

        out, suffixes = self.events[gid % 2], self.suffixes[t.index]
        first = self.ids[Event]
        self.ids[Event] += upto
        stamps: dict[int, str] = {}
        for i in range(upto):
            offset = t.offsets[i]
            at = stamps.get(offset) or stamps.setdefault(offset, stamp(start + offset))
            out.line(f"{first + i}\t{gid}\t{at}\t{suffixes[i]}" if self.has_at else f"{first + i}\t{gid}\t{suffixes[i]}")
        for seq, state, rules_version in self.snaps[t.index]:
            if seq <= upto:
                self.copiers[Snapshot].row(row_of(Snapshot, id=self.take(Snapshot), game_id=gid, seq=seq,
                                                  state=state, rules_version=rules_version))

    def rating_changes(self, gid, t, users, end) -> None:
        from kinplay.ratings.models import MU, SIGMA, RatingChange

        ranks = (t.result or {}).get("ranks") or list(range(1, t.n + 1))
        for seat, uid in enumerate(users):
            self.played[uid, t.kind] += 1
            games = self.played[uid, t.kind]
            sigma = max(1.0, SIGMA * 0.93 ** games)
            mu = MU + self.rng.gauss(0, 4)
            self.copiers[RatingChange].row(row_of(
                RatingChange, id=self.take(RatingChange), game_id=gid, seat=seat, user_id=uid, kind=t.kind,
                rank=ranks[seat] if seat < len(ranks) else seat + 1, mu_before=mu, sigma_before=sigma / .93,
                mu_after=mu + self.rng.gauss(0, 1), sigma_after=sigma, games=games, finished_at=stamp(end)))

    def deadlines(self, gid, to_act, version, end) -> None:
        from kinplay.clocks.models import Deadline

        for seat in to_act:
            self.copiers[Deadline].row(row_of(Deadline, id=self.take(Deadline), game_id=gid, kind=Deadline.MOVE,
                                              seat=seat, due_at=stamp(end + 2 * 86400), version=version))

    def chat(self, gid, users, end) -> None:
        from games.models import ChatMessage

        for seq in range(1, self.rng.randint(2, 8)):
            self.copiers[ChatMessage].row(row_of(
                ChatMessage, id=self.take(ChatMessage), game_id=gid, channel=ChatMessage.PLAYERS, seq=seq,
                user_id=self.rng.choice(users), text=self.rng.choice(CHAT), at=stamp(end - 600 + seq)))


CHAT = ["good luck!", "gl hf", "nice move", "oh no, I did not see that coming", "well played",
        "thanks for the game, rematch?", "sorry for the slow turns this week, travelling", "gg"]


class _Raw(str):
    """Text already in COPY's format (a JSON value escaped once per template)."""


@cache
def _digest(seed):
    """The seed's digest, once per stream (the games that copy a stream share its seed)."""
    from games.rng import seed_digest

    return seed_digest(seed)


HEAVY_ACTIVE = 100  # of the --active games between people, the heavy player's


def fill(url, args) -> None:
    """Everything but what the services make (make_live), then the indexes and ANALYZE."""
    rng = random.Random(args.seed)
    started = time.perf_counter()
    print(f"playing {args.templates} games with the bots ...", flush=True)
    temps = templates(args, rng)
    for i, t in enumerate(temps):
        t.index = i
    users = copy_users(url, args, rng)
    with connect(url) as conn, conn.cursor() as cursor:
        rebuild = [s for m in big_models() for s in drop_indexes(cursor, table(m))]
    weights = weights_for([t.version for t in temps], args.events)
    with Fill(url, args, rng, users, temps) as f:
        copy_finished(f, args, rng, temps, weights, started)
        copy_active(f, args, rng, temps)
        played = f.played
    print(f"rebuilding {len(rebuild)} indexes ...", flush=True)
    with connect(url) as conn, conn.cursor() as cursor:
        cursor.execute("SET maintenance_work_mem = '1GB'")
        rebuild_indexes(cursor, rebuild)
        copy_ratings(cursor, played)
        reset_sequences(cursor, big_models())
    print(f"filled in {time.perf_counter() - started:.0f} s", flush=True)


def copy_finished(f: Fill, args, rng, temps, weights, started) -> None:
    heavy_finished = args.heavy_games - args.bot_games - HEAVY_ACTIVE
    heavy = set(rng.sample(range(args.games), heavy_finished))
    chosen = rng.choices(temps, weights, k=args.games)
    span = int(time.time()) - EPOCH - 30 * 86400
    for i, t in enumerate(chosen):
        f.game(t, t.version, EPOCH + i * span // args.games, heavy=i in heavy, finished=True)
        if i % 50_000 == 49_999:
            spent = time.perf_counter() - started
            print(f"  {i + 1:,} finished games, {f.ids[f.models[2]] - 1:,} events ({spent:.0f} s)", flush=True)


def copy_active(f: Fill, args, rng, temps) -> None:
    """Active games between people: a finished stream cut at a command where a person is to act."""
    cuts = [(t, v) for t in temps for v, seats in t.state_at.items()
            if 0 < v < t.version and seats and t.bots not in seats]
    now = int(time.time())
    for j in range(args.active):
        t, v = rng.choice(cuts)
        f.game(t, v, now - 86400 - t.offsets[v - 1], heavy=j < HEAVY_ACTIVE, finished=False)
    print(f"  {args.active:,} active games", flush=True)


def copy_ratings(cursor, played: Counter) -> None:
    """Each player's rating per kind they played rated games of (the leaderboards' rows)."""
    from kinplay.ratings.models import MU, SIGMA, Rating, ordinal

    rng = random.Random(1)
    first = next_id(cursor, Rating)
    with Copier(cursor, Rating, columns(Rating)) as c:
        for i, ((uid, kind), games) in enumerate(sorted(played.items())):
            mu, sigma = MU + rng.gauss(0, 5), max(1.0, SIGMA * 0.93 ** games)
            c.row(row_of(Rating, id=first + i, user_id=uid, kind=kind, mu=mu, sigma=sigma, ordinal=ordinal(mu, sigma),
                         games=games, updated_at=stamp(int(time.time()) - 86400)))
    print(f"  {len(played):,} ratings", flush=True)


def make_live(args) -> None:
    """What the services make: the heavy player's token, their active games against a bot,
    tournaments open for entries and leagues taking sign-ups."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from games import services
    from kinplay.leagues import services as leagues
    from kinplay.tournaments import services as tournaments

    users = get_user_model().objects
    heavy = users.get(username=HEAVY)
    Token.objects.get_or_create(user=heavy)
    for i in range(0, args.bot_games, 50):
        services.create_games([dict(creator=heavy, kind="knonsters", seats=[{"user": HEAVY}, {"bot": "random"}])
                               for _ in range(min(50, args.bot_games - i))])
    rng = random.Random(args.seed)
    others = list(users.exclude(username=HEAVY).order_by("pk")[:2000])
    for i in range(40):
        kind = rng.choice(list(KIND_SHARE))
        duels = kind in ("karenza", "project_kin")  # the other formats want duels
        t = tournaments.create(organiser=rng.choice(others), name=f"Open {i}", kind=kind,
                               format=rng.choice(["swiss", "round_robin", "knockout"]) if duels else "swiss")
        for player in rng.sample(others, 6):
            tournaments.join(t.pk, player)
    for i in range(8):
        league = leagues.create(organiser=rng.choice(others), name=f"League {i}", kind=rng.choice(list(KIND_SHARE)))
        for player in rng.sample(others, 30):
            leagues.sign_up(league.pk, player)
    print(f"  {args.bot_games} games against a bot, 40 tournaments, 8 leagues", flush=True)


def compact(url) -> int:
    """What games.tasks.compact_streams does a day after these games ended (games.store's
    ``compact_over``, in bigger batches), then ``VACUUM FULL`` of the events table: the space
    the moved rows left, which a server's new events would fill. Returns the games compacted
    (none in a database filled and compacted before)."""
    from django.utils import timezone

    from games import store

    with connect(url, autocommit=True) as conn:  # the plans of its statements need statistics
        conn.execute("ANALYZE games_event, games_game")
    started, total, batch = time.perf_counter(), 0, 5000
    while done := store.compact_over(timezone.now(), limit=batch):
        total += done
        if total % 100_000 < batch:
            print(f"  {total:,} streams compacted ({time.perf_counter() - started:.0f} s)", flush=True)
    print(f"compacted {total:,} streams in {time.perf_counter() - started:.0f} s", flush=True)
    if total:
        with connect(url, autocommit=True) as conn:
            started = time.perf_counter()
            conn.execute("VACUUM FULL games_event")
            print(f"VACUUM FULL games_event: {time.perf_counter() - started:.0f} s", flush=True)
    return total


def analyze(url) -> None:
    with connect(url, autocommit=True) as conn:
        started = time.perf_counter()
        conn.execute("VACUUM ANALYZE")
        print(f"VACUUM ANALYZE: {time.perf_counter() - started:.0f} s", flush=True)


# ---------------------------------------------------------------- measuring


BUDGET = 20.0  # seconds a measure may take: a slow list gets fewer samples (at least MIN_SAMPLES)
MIN_SAMPLES = 5


class Measure:
    """The requests, each timed in this process through the WSGI application."""

    def __init__(self, args):
        from django.contrib.auth import get_user_model
        from django.test import Client
        from rest_framework.authtoken.models import Token

        self.args = args
        self.heavy = get_user_model().objects.get(username=HEAVY)
        token = Token.objects.get(user=self.heavy).key
        app = worker_app(args.default_gc)
        self.api = Worker(app, HTTP_AUTHORIZATION=f"Token {token}")
        signed_in = Client()
        signed_in.force_login(self.heavy)
        self.page = Worker(app, HTTP_COOKIE="; ".join(f"{k}={c.value}" for k, c in signed_in.cookies.items()))
        self.rows: list[tuple[str, list[float], int, Collections]] = []
        self.plans: list[tuple[str, list[tuple[float, str]]]] = []

    def time(self, label, call, *, explain=True) -> None:
        """p50 and p99 of ``call()`` (which checks its answer), and the statements of one call."""
        from django.db import connection

        call()  # warm: the first answer fills the process's caches
        captured = Statements()
        with connection.execute_wrapper(captured):
            call()
        spent, began = [], time.perf_counter()
        with Collections() as collections:
            while len(spent) < self.args.samples and (len(spent) < MIN_SAMPLES or time.perf_counter() - began < BUDGET):
                started = time.perf_counter()
                call()
                spent.append(time.perf_counter() - started)
        self.rows.append((label, spent, len(captured.statements), collections))
        if explain:
            self.plans.append((label, captured.statements))
        print(f"  {label}: p50 {ms(statistics.median(spent))}, {len(spent)} samples", flush=True)

    def get(self, client, path, status=200):
        def call():
            answer = client.get(path)
            assert answer.status_code == status, (path, answer.status_code, answer.content[:300])
            return answer
        return call


class Answer(NamedTuple):
    status_code: int
    content: bytes

    def json(self):
        return json.loads(self.content)


def worker_app(default_gc: bool):
    """The web worker's application (kinplay.wsgi); with ``default_gc``, the same without its
    collections, under CPython's own thresholds."""
    import kinplay.wsgi
    from kinplay.server import RequestOnly

    if not default_gc:
        return kinplay.wsgi.application
    gc.set_threshold(700, 10, 10)
    return RequestOnly(kinplay.wsgi.django_app, collect=False)


class Worker:
    """Requests handed to ``app``, a web worker's WSGI application, as the web server hands
    them, every one with ``headers`` (a token, or a session's cookie)."""

    def __init__(self, app, **headers):
        self.app = app
        self.headers = headers

    def get(self, path) -> Answer:
        return self.request("GET", path)

    def post(self, path, body) -> Answer:
        return self.request("POST", path, json.dumps(body).encode())

    def request(self, method, path, data=b"") -> Answer:
        path, _, query = path.partition("?")
        environ = {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": query, "SERVER_NAME": "testserver",
                   "SERVER_PORT": "80", "HTTP_HOST": "testserver", "wsgi.url_scheme": "http",
                   "wsgi.input": io.BytesIO(data), "CONTENT_LENGTH": str(len(data)),
                   "CONTENT_TYPE": "application/json", **self.headers}
        status = []
        body = b"".join(self.app(environ, lambda line, headers, exc_info=None: status.append(line)))
        return Answer(int(status[0].split()[0]), body)


class Collections:
    """The garbage collector's passes while it is open: their total and longest time."""

    def __init__(self):
        self.total = self.longest = 0.0
        self._started = 0.0

    def __call__(self, phase, info):
        if phase == "start":
            self._started = time.perf_counter()
        else:
            took = time.perf_counter() - self._started
            self.total += took
            self.longest = max(self.longest, took)

    def __enter__(self):
        gc.callbacks.append(self)
        return self

    def __exit__(self, *_):
        gc.callbacks.remove(self)


class Statements:
    """An execute wrapper that keeps each statement (its parameters in place, as sent) and its
    time. (Django's query log is emptied at the start of every request: no use here.)"""

    def __init__(self):
        self.statements: list[tuple[float, str]] = []

    def __call__(self, execute, sql, params, many, context):
        from django.db import connection

        started = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            sent = sql if many else connection.ops.last_executed_query(context["cursor"], sql, params)
            self.statements.append((time.perf_counter() - started, sent))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def p99(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, math.ceil(len(xs) * .99) - 1)]


def mover(m: Measure):
    """Moves in the heavy player's games against a bot, one game after the other: each move
    is answered by the bot in the same transaction, so the next is the heavy player's again."""
    from games.models import Game

    games = list(Game.objects.filter(status=Game.ACTIVE, seats__user=m.heavy, seats__index=0, seats__bot="")
                 .filter(seats__bot="random").values_list("pk", flat=True))
    state = {g: m.api.get(f"/api/games/{g}/").json() for g in games}
    turn = itertools.cycle(games)

    def call():
        for _ in range(len(games)):
            g = next(turn)
            game = state.get(g)
            if game and game["legal_actions"]:
                break
        else:
            raise SystemExit("no game left to move in: give more --bot-games")
        body = {"action": game["legal_actions"][0]["action"], "expected_version": game["version"]}
        answer = m.api.post(f"/api/games/{g}/actions/", body)
        assert answer.status_code == 201, answer.content[:300]
        state[g] = answer.json()["game"]
    return call


def measure(args) -> Measure:
    import kinplay.wsgi  # noqa: F401  (the process as a web worker runs it: Django's objects frozen out of the collector's sight)
    from games.models import ChatMessage, Game
    from kinplay.ratings.models import Rating

    m = Measure(args)
    print("measuring ...", flush=True)
    m.time("move (POST /api/games/{id}/actions/, a bot answering)", mover(m), explain=False)
    for query in ("", "?limit=10", "?status=active", "?status=finished", "?status=waiting", "?status=aborted",
                  "?my_turn=true", "?my_turn=false", "?invited=true", "?open=true"):
        m.time(f"GET /api/games/{query} (heavy player)", m.get(m.api, f"/api/games/{query}"))
    m.time("lobby page (heavy player)", m.get(m.page, "/"))
    m.time("GET /api/players/heavy/", m.get(m.api, f"/api/players/{HEAVY}/"))
    m.time("player page /players/heavy/", m.get(m.page, f"/players/{HEAVY}/"))
    m.time("GET /api/ratings/knonsters/ page 1", m.get(m.api, "/api/ratings/knonsters/?page=1"))
    deep = min(250, Rating.objects.filter(kind="knonsters").count() // 50)  # 250 at a million games
    m.time(f"GET /api/ratings/knonsters/ page {deep}", m.get(m.api, f"/api/ratings/knonsters/?page={deep}"))
    m.time(f"leaderboard page /ratings/knonsters/?page={deep}", m.get(m.page, f"/ratings/knonsters/?page={deep}"))
    m.time("GET /api/tournaments/", m.get(m.api, "/api/tournaments/"))
    m.time("tournaments page", m.get(m.page, "/tournaments/"))
    m.time("GET /api/leagues/", m.get(m.api, "/api/leagues/"))
    m.time("leagues page", m.get(m.page, "/leagues/"))
    finished = Game.objects.filter(status=Game.FINISHED, version__gte=87).order_by("version")
    game = finished.filter(seats__user=m.heavy).first() or finished.first()  # 87 events, or the nearest above
    m.time(f"GET /api/games/{{id}}/events/ ({game.version} events)", m.get(m.api, f"/api/games/{game.pk}/events/"))
    chatty = ChatMessage.objects.filter(game__seats__user=m.heavy).values_list("game_id", flat=True).first()
    lines = ChatMessage.objects.filter(game_id=chatty).count()
    m.time(f"GET /api/games/{{id}}/chat/ ({lines} lines)", m.get(m.api, f"/api/games/{chatty}/chat/"))
    return m


def report(m: Measure) -> None:
    print("\n| measure | p50 | p99 | samples | statements | collector per request | longest collection |")
    print("|---|---|---|---|---|---|---|")
    for label, spent, statements, collector in m.rows:
        print(f"| {label} | {ms(statistics.median(spent))} | {ms(p99(spent))} | {len(spent)} | {statements}"
              f" | {ms(collector.total / len(spent))} | {ms(collector.longest)} |")


def explain(m: Measure) -> None:
    """EXPLAIN (ANALYZE, BUFFERS) of each measure's statements that read rows (the slowest first,
    at most three; the others are named with their times)."""
    from django.db import connection

    for label, statements in m.plans:
        reads = sorted(((t, q) for t, q in statements if q.lstrip().upper().startswith(("SELECT", "WITH"))),
                       reverse=True)
        print(f"\n### {label}: {len(statements)} statements, {sum(t for t, _ in statements) * 1000:.1f} ms")
        for spent, query in reads[:3]:
            print(f"\n{spent * 1000:.1f} ms: {query[:600]}{' ...' if len(query) > 600 else ''}")
            with connection.cursor() as cursor:
                cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {query}")
                print("\n".join("    " + line for (line,) in cursor.fetchall()))


def storage() -> None:
    """Each big table's bytes (heap, TOAST, indexes) and rows, each index's size, and the bytes
    per event and per finished game."""
    from django.db import connection

    from games.models import CompactedStream, Event, Game
    from kinplay.ratings.models import Rating

    print("\n| table | rows | heap + TOAST | indexes | total | bytes per row |\n|---|---|---|---|---|---|")
    totals = {}
    with connection.cursor() as cursor:
        for model in [*big_models(), CompactedStream, Rating]:
            name = table(model)
            cursor.execute(f"SELECT count(*), pg_table_size('{name}'), pg_indexes_size('{name}'), "
                           f"pg_total_relation_size('{name}') FROM {name}")
            rows, heap, indexes, total = cursor.fetchone()
            totals[name] = (rows, total)
            print(f"| {name} | {rows:,} | {mb(heap)} | {mb(indexes)} | {mb(total)} | {total / max(rows, 1):,.0f} |")
        print("\n| index | size |\n|---|---|")
        cursor.execute("""SELECT c.relname, i.indexrelid::regclass::text, pg_relation_size(i.indexrelid)
                          FROM pg_index i JOIN pg_class c ON c.oid = i.indrelid
                          WHERE c.relname = ANY(%s) ORDER BY 1, 3 DESC""", [[table(m) for m in big_models()]])
        for _, index, size in cursor.fetchall():
            print(f"| {index} | {mb(size)} |")
        finished = Game.objects.filter(status=Game.FINISHED).count()
        cursor.execute(f"SELECT COALESCE(sum(upto), 0) FROM {table(CompactedStream)}")
        compacted = cursor.fetchone()[0]
    # every event: the rows of the events table and those the compacted streams hold
    events = totals[table(Event)][0] + compacted
    events_bytes = totals[table(Event)][1] + totals[table(CompactedStream)][1]
    game_bytes = sum(total for _, total in totals.values())
    print(f"\nbytes per event: {events_bytes / events:,.1f} ({events:,} events, {compacted:,} of them compacted; "
          f"{mb(events_bytes)} for the events table and the compacted streams, with indexes)")
    print(f"events' bytes per finished game: {events_bytes / finished:,.0f}; all the tables' bytes per finished game: "
          f"{game_bytes / finished:,.0f} ({finished:,} finished games, {events / finished:.1f} events each, "
          "active games' rows included)")


def mb(n: int) -> str:
    return f"{n / 2**20:,.1f} MB"


def main(argv=None):
    args = parse(argv)
    if prepare_database(args):
        print(f"using the filled database {args.database}", flush=True)
    else:
        fill(url_of(args), args)
        make_live(args)
    if compact(url_of(args)):
        analyze(url_of(args))
    storage()
    if args.no_measure:
        return
    m = measure(args)
    report(m)
    explain(m)


if __name__ == "__main__":
    main()
