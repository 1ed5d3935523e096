"""The database itself refuses UPDATE and DELETE on events and chat lines
(docs/architecture.md#the-event-store; table talk is an append-only stream too).

PostgreSQL's TRUNCATE fires no row trigger: only an operator emptying a test database uses it.
"""

# Every append-only stream: games, table talk, tournaments, leagues and ladders (their apps install these
# after their own migrations too, so the set is complete whichever app migrates last).
APPEND_ONLY = ["games_event", "games_compactedstream", "games_chatmessage", "tournaments_tournamentevent",
               "leagues_leagueevent", "ladders_ladderevent"]
# The one delete let through: a game's events once a compacted stream holds them (games.store.compact).
KEPT_ELSEWHERE = {
    "games_event": "SELECT 1 FROM games_compactedstream s WHERE s.game_id = {row}.game_id AND s.upto >= {row}.seq",
}


def _create(vendor, table, present=()):
    # (before the migration that makes the streams' table, the rule without the exception)
    kept = KEPT_ELSEWHERE.get(table) if "games_compactedstream" in present else None
    if vendor == "sqlite":
        unless = f"WHEN NOT EXISTS ({kept.format(row='OLD')}) " if kept else ""
        return _drop(vendor, table) + [  # made again: the rule may have changed
            f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END;",
            f"CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table} {unless}"
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END;",
        ]
    if vendor == "postgresql":
        made = [
            f"CREATE OR REPLACE FUNCTION {table}_append_only() RETURNS trigger AS $$ "
            f"BEGIN RAISE EXCEPTION '{table} is append-only'; END; $$ LANGUAGE plpgsql;",
            f"CREATE OR REPLACE TRIGGER {table}_no_change BEFORE UPDATE {'' if kept else 'OR DELETE '}ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {table}_append_only();",
        ]
        if kept:  # one check for all the rows a statement deleted, not one a row
            made += [
                f"CREATE OR REPLACE FUNCTION {table}_kept_elsewhere() RETURNS trigger AS $$ BEGIN "
                f"IF EXISTS (SELECT 1 FROM gone WHERE NOT EXISTS ({kept.format(row='gone')})) THEN "
                f"RAISE EXCEPTION '{table} is append-only'; END IF; RETURN NULL; END; $$ LANGUAGE plpgsql;",
                f"CREATE OR REPLACE TRIGGER {table}_no_delete AFTER DELETE ON {table} REFERENCING OLD TABLE AS gone "
                f"FOR EACH STATEMENT EXECUTE FUNCTION {table}_kept_elsewhere();",
            ]
        return made
    return None


def _drop(vendor, table):
    if vendor == "sqlite":
        return [f"DROP TRIGGER IF EXISTS {table}_no_update;", f"DROP TRIGGER IF EXISTS {table}_no_delete;"]
    if vendor == "postgresql":
        return [f"DROP TRIGGER IF EXISTS {table}_no_change ON {table};", f"DROP TRIGGER IF EXISTS {table}_no_delete ON {table};"]
    return []


def install(connection):
    """On every append-only table that exists yet (an early migration runs before the later tables)."""
    if _create(connection.vendor, "t") is None:
        raise RuntimeError(f"no append-only trigger for database {connection.vendor}")
    present = set(connection.introspection.table_names())
    with connection.cursor() as cursor:
        for table in APPEND_ONLY:
            if table in present:
                for sql in _create(connection.vendor, table, present):
                    cursor.execute(sql)


def remove(connection):
    present = set(connection.introspection.table_names())
    with connection.cursor() as cursor:
        for table in APPEND_ONLY:
            if table in present:
                for sql in _drop(connection.vendor, table):
                    cursor.execute(sql)
