"""A lock held by one process at a time among every process that uses the same database: for
work that must never run twice at once on several nodes (``manage.py migrate``).

PostgreSQL: a session advisory lock, released when its connection ends, so a node killed
mid-way frees it (it needs a direct connection: a pooler in transaction mode, PgBouncer's, does
not keep a session's lock). SQLite (one machine): an exclusive ``flock`` on a file beside the
database, which the kernel frees when the process ends."""

from __future__ import annotations

import fcntl
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.db import connections


@contextmanager
def exclusive(name: str, alias: str = "default") -> Iterator[None]:
    """Wait until no other process holds ``name`` on this database, then hold it."""
    conn = connections[alias]
    if conn.vendor == "postgresql":
        key = zlib.crc32(f"kinplay:{name}".encode())
        with conn.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s)", [key])
        try:
            yield
        finally:
            with conn.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
        return
    database = str(conn.settings_dict["NAME"])
    if conn.vendor != "sqlite" or database == ":memory:" or database.startswith("file:"):
        yield  # a database only this process sees
        return
    with open(Path(database).with_name(Path(database).name + f".{name}.lock"), "a") as file:
        fcntl.flock(file, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(file, fcntl.LOCK_UN)
