"""The database itself refuses UPDATE and DELETE on events and chat lines
(docs/architecture.md#the-event-store; table talk is an append-only stream too).

PostgreSQL's TRUNCATE fires no row trigger: only an operator emptying a test database uses it.
"""

# Every append-only stream: games, table talk, tournaments, leagues and ladders (their apps install these
# after their own migrations too, so the set is complete whichever app migrates last).
APPEND_ONLY = ["games_event", "games_chatmessage", "tournaments_tournamentevent", "leagues_leagueevent",
                "ladders_ladderevent"]


def _create(vendor, table):
    if vendor == "sqlite":
        return [
            f"CREATE TRIGGER IF NOT EXISTS {table}_no_update BEFORE UPDATE ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END;",
            f"CREATE TRIGGER IF NOT EXISTS {table}_no_delete BEFORE DELETE ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only'); END;",
        ]
    if vendor == "postgresql":
        return [
            f"CREATE OR REPLACE FUNCTION {table}_append_only() RETURNS trigger AS $$ "
            f"BEGIN RAISE EXCEPTION '{table} is append-only'; END; $$ LANGUAGE plpgsql;",
            f"CREATE OR REPLACE TRIGGER {table}_no_change BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {table}_append_only();",
        ]
    return None


def _drop(vendor, table):
    if vendor == "sqlite":
        return [f"DROP TRIGGER IF EXISTS {table}_no_update;", f"DROP TRIGGER IF EXISTS {table}_no_delete;"]
    if vendor == "postgresql":
        return [f"DROP TRIGGER IF EXISTS {table}_no_change ON {table};"]
    return []


def install(connection):
    """On every append-only table that exists yet (an early migration runs before the later tables)."""
    if _create(connection.vendor, "t") is None:
        raise RuntimeError(f"no append-only trigger for database {connection.vendor}")
    present = set(connection.introspection.table_names())
    with connection.cursor() as cursor:
        for table in APPEND_ONLY:
            if table in present:
                for sql in _create(connection.vendor, table):
                    cursor.execute(sql)


def remove(connection):
    present = set(connection.introspection.table_names())
    with connection.cursor() as cursor:
        for table in APPEND_ONLY:
            if table in present:
                for sql in _drop(connection.vendor, table):
                    cursor.execute(sql)
