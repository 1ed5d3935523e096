"""The database itself refuses UPDATE and DELETE on events (DESIGN.md, "The event store").

PostgreSQL's TRUNCATE fires no row trigger: only an operator emptying a test database uses it.
"""

CREATE = {
    "sqlite": [
        "CREATE TRIGGER IF NOT EXISTS games_event_no_update BEFORE UPDATE ON games_event "
        "BEGIN SELECT RAISE(ABORT, 'games_event is append-only'); END;",
        "CREATE TRIGGER IF NOT EXISTS games_event_no_delete BEFORE DELETE ON games_event "
        "BEGIN SELECT RAISE(ABORT, 'games_event is append-only'); END;",
    ],
    "postgresql": [
        "CREATE OR REPLACE FUNCTION games_event_append_only() RETURNS trigger AS $$ "
        "BEGIN RAISE EXCEPTION 'games_event is append-only'; END; $$ LANGUAGE plpgsql;",
        "CREATE OR REPLACE TRIGGER games_event_no_change BEFORE UPDATE OR DELETE ON games_event "
        "FOR EACH ROW EXECUTE FUNCTION games_event_append_only();",
    ],
}
DROP = {
    "sqlite": ["DROP TRIGGER IF EXISTS games_event_no_update;", "DROP TRIGGER IF EXISTS games_event_no_delete;"],
    "postgresql": ["DROP TRIGGER IF EXISTS games_event_no_change ON games_event;"],
}


def install(connection):
    statements = CREATE.get(connection.vendor)
    if statements is None:
        raise RuntimeError(f"no append-only trigger for database {connection.vendor}")
    with connection.cursor() as cursor:
        for sql in statements:
            cursor.execute(sql)


def remove(connection):
    with connection.cursor() as cursor:
        for sql in DROP.get(connection.vendor, []):
            cursor.execute(sql)
