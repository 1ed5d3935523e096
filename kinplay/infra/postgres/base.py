"""Django's PostgreSQL backend with two savings on round trips (settings: ENGINE "kinplay.infra.postgres"):
a health check that needs none while the connection is quiet, and a transaction's one
statement sent without BEGIN and COMMIT (``execute_last``); and timestamps read by psycopg's
compiled loader (``utc_loader``).

Django checks a connection before reuse, kept (CONN_HEALTH_CHECKS) or borrowed from its pool
(psycopg_pool's check), with a round trip of its own at the start of every request. A server that restarts,
or ends this backend (pg_terminate_backend, an idle timeout), sends an error and closes the
socket; a server that crashes leaves the socket closed. Either way the socket has something
to read while the connection sits idle between requests, so: nothing to read, usable;
something to read, Django's SELECT 1 decides (and closes the connection if it fails).
"""

import select
from functools import cache

import psycopg
from django.db.backends.postgresql import base
from django.db.transaction import TransactionManagementError
from psycopg.adapt import AdaptersMap, Loader
from psycopg.pq import Format, TransactionStatus


class DatabaseWrapper(base.DatabaseWrapper):
    sealed = False  # execute_last committed a statement of the atomic block on its own

    def execute_last(self, sql: str, params) -> int:
        """Run the last statement of the current transaction; its row count.

        When it is also the first (the outermost atomic block has sent nothing yet), it runs
        as a transaction of its own: PostgreSQL commits a lone statement by itself, so the
        BEGIN and COMMIT round trips are saved (a durable move is then one round trip). The atomic block finds nothing left to commit and runs its on_commit hooks as
        ever. A statement after it in that block is refused, since it could no longer be
        undone with this one, unless this one changed no row.
        """
        with self.cursor() as cursor:
            raw = self.connection
            if (len(self.atomic_blocks) != 1 or self.needs_rollback
                    or raw.info.transaction_status != TransactionStatus.IDLE):
                cursor.execute(sql, params)
                return cursor.rowcount
            raw.autocommit = True
            try:
                cursor.execute(sql, params)
            finally:
                if not raw.broken:
                    raw.autocommit = False
            self.sealed = cursor.rowcount > 0
            return cursor.rowcount

    def _cursor(self, name=None):
        if self.sealed:
            raise TransactionManagementError(
                "This transaction's last statement has run (execute_last): nothing may follow it in the atomic block.")
        return super()._cursor(name)

    def _commit(self):
        self.sealed = False
        return super()._commit()

    def _rollback(self):
        self.sealed = False
        return super()._rollback()

    def get_connection_params(self):
        params = super().get_connection_params()
        if "context" in params:
            params["context"] = _with_utc_loader(params["context"], self.timezone)
        return params

    def connect(self):
        self.sealed = False
        super().connect()

    def close_if_health_check_failed(self):
        if self.connection is not None and self.health_check_enabled and not self.health_check_done and quiet(self.connection):
            self.health_check_done = True
            return
        super().close_if_health_check_failed()

    def get_new_connection(self, conn_params):
        """A connection from the pool (settings OPTIONS "pool"), checked as above: one that is
        not quiet is closed and given back (the pool drops it) until a good one comes."""
        connection = super().get_new_connection(conn_params)
        pool = self.pool
        while pool is not None and not quiet(connection) and not _answers(connection):
            connection.close()
            pool.putconn(connection)
            connection = super().get_new_connection(conn_params)
        return connection


def quiet(connection) -> bool:
    """Nothing to read on an idle connection: the server has neither closed it nor sent an error."""
    if connection.closed or connection.broken:
        return False
    try:
        readable, _, _ = select.select([connection.fileno()], [], [], 0)
    except (OSError, ValueError):
        return False
    return not readable


def _answers(connection) -> bool:
    """psycopg_pool's own check, a round trip: for a connection that is not quiet."""
    try:
        connection.execute("")
        return True
    except Exception:  # any failure: the connection is not usable
        return False


TIMESTAMPTZ = psycopg.adapters.types["timestamptz"].oid


@cache
def _with_utc_loader(context: AdaptersMap, timezone) -> AdaptersMap:
    """Django's adapters with ``utc_loader`` for timestamptz, made once per map and timezone."""
    adapters = AdaptersMap(context)
    adapters.register_loader("timestamptz", utc_loader(timezone))
    return adapters


def utc_loader(timezone):
    """A timestamptz loader as Django's (the value in ``timezone``: Django sets the session to
    it), around psycopg's compiled loader: Django's subclasses the pure Python one, whose
    regular expression was the largest cost of reading a list's rows (the compiled class
    cannot be subclassed)."""
    compiled = psycopg.adapters.get_loader(TIMESTAMPTZ, Format.TEXT)

    class UtcLoader(Loader):
        def __init__(self, oid, context=None):
            super().__init__(oid, context)
            self.parse = compiled(oid, context).load

        def load(self, data):
            return self.parse(data).replace(tzinfo=timezone)

    UtcLoader.timezone = timezone  # what Django's create_cursor compares before registering its own
    return UtcLoader
