"""Django's PostgreSQL backend with a health check that needs no round trip while the
connection is quiet (settings: ENGINE "kinplay.postgres").

Django checks a kept connection (CONN_HEALTH_CHECKS) with a SELECT 1 at the start of every
request, before the request's transaction: one round trip and one commit of its own per
request, a third of the commits a move made in make bench-peer. A server that restarts,
or ends this backend (pg_terminate_backend, an idle timeout), sends an error and closes the
socket; a server that crashes leaves the socket closed. Either way the socket has something
to read while the connection sits idle between requests, so: nothing to read, usable;
something to read, Django's SELECT 1 decides (and closes the connection if it fails).
"""

import select

from django.db.backends.postgresql import base


class DatabaseWrapper(base.DatabaseWrapper):
    def close_if_health_check_failed(self):
        if self.connection is not None and self.health_check_enabled and not self.health_check_done and self._quiet():
            self.health_check_done = True
            return
        super().close_if_health_check_failed()

    def _quiet(self) -> bool:
        if self.connection.closed or self.connection.broken:
            return False
        try:
            readable, _, _ = select.select([self.connection.fileno()], [], [], 0)
        except (OSError, ValueError):
            return False
        return not readable
