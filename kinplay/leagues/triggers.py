"""The database refuses UPDATE and DELETE on league events, as on game events."""

CREATE = {
    "sqlite": [
        "CREATE TRIGGER IF NOT EXISTS leagues_event_no_update BEFORE UPDATE ON leagues_leagueevent "
        "BEGIN SELECT RAISE(ABORT, 'leagues_leagueevent is append-only'); END;",
        "CREATE TRIGGER IF NOT EXISTS leagues_event_no_delete BEFORE DELETE ON leagues_leagueevent "
        "BEGIN SELECT RAISE(ABORT, 'leagues_leagueevent is append-only'); END;",
    ],
    "postgresql": [
        "CREATE OR REPLACE FUNCTION leagues_event_append_only() RETURNS trigger AS $$ "
        "BEGIN RAISE EXCEPTION 'leagues_leagueevent is append-only'; END; $$ LANGUAGE plpgsql;",
        "CREATE OR REPLACE TRIGGER leagues_event_no_change BEFORE UPDATE OR DELETE ON leagues_leagueevent "
        "FOR EACH ROW EXECUTE FUNCTION leagues_event_append_only();",
    ],
}
DROP = {
    "sqlite": ["DROP TRIGGER IF EXISTS leagues_event_no_update;", "DROP TRIGGER IF EXISTS leagues_event_no_delete;"],
    "postgresql": ["DROP TRIGGER IF EXISTS leagues_event_no_change ON leagues_leagueevent;"],
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
