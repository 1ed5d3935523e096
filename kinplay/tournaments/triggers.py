"""The database refuses UPDATE and DELETE on tournament events, as on game events."""

CREATE = {
    "sqlite": [
        "CREATE TRIGGER IF NOT EXISTS tournaments_event_no_update BEFORE UPDATE ON tournaments_tournamentevent "
        "BEGIN SELECT RAISE(ABORT, 'tournaments_tournamentevent is append-only'); END;",
        "CREATE TRIGGER IF NOT EXISTS tournaments_event_no_delete BEFORE DELETE ON tournaments_tournamentevent "
        "BEGIN SELECT RAISE(ABORT, 'tournaments_tournamentevent is append-only'); END;",
    ],
    "postgresql": [
        "CREATE OR REPLACE FUNCTION tournaments_event_append_only() RETURNS trigger AS $$ "
        "BEGIN RAISE EXCEPTION 'tournaments_tournamentevent is append-only'; END; $$ LANGUAGE plpgsql;",
        "CREATE OR REPLACE TRIGGER tournaments_event_no_change BEFORE UPDATE OR DELETE ON tournaments_tournamentevent "
        "FOR EACH ROW EXECUTE FUNCTION tournaments_event_append_only();",
    ],
}
DROP = {
    "sqlite": ["DROP TRIGGER IF EXISTS tournaments_event_no_update;", "DROP TRIGGER IF EXISTS tournaments_event_no_delete;"],
    "postgresql": ["DROP TRIGGER IF EXISTS tournaments_event_no_change ON tournaments_tournamentevent;"],
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
