"""Celery beat on every node, scheduling on one (settings CELERY_BEAT_SCHEDULER).

Each beat holds the ``beat`` lease (kinplay.clocks.models.Lease) before sending anything and
renews it at every tick; the others look again each tick and take it once it runs out, so when
the node that schedules dies another takes over within BEAT_LEASE_SECONDS and a tick. Nothing
depends on a single beat for correctness: every periodic job claims its rows by compare-and-set,
so even two beats at once would fire no deadline twice; the lease keeps the work and the load
on one. (docs/deploy.md#scheduling)"""

from __future__ import annotations

import logging
import os
import socket

from celery.beat import PersistentScheduler
from django.conf import settings
from django.db import DatabaseError, close_old_connections

from kinplay.clocks.models import Lease

log = logging.getLogger(__name__)
LEASE = "beat"


class LeasedScheduler(PersistentScheduler):
    def __init__(self, *args, **kwargs):
        self.holder = f"{socket.gethostname()}:{os.getpid()}"
        self.leading = False
        super().__init__(*args, **kwargs)

    def tick(self, *args, **kwargs):
        if not self.lead():
            return settings.BEAT_LEASE_RENEW
        return min(super().tick(*args, **kwargs), settings.BEAT_LEASE_RENEW)

    def lead(self) -> bool:
        """Take or renew the lease: whether this beat schedules until its next tick."""
        close_old_connections()  # a database restarted since the last tick: reconnect
        try:
            held = Lease.hold(LEASE, self.holder, settings.BEAT_LEASE_SECONDS)
        except DatabaseError:
            log.exception("could not renew the %s lease: not scheduling", LEASE)
            held = False
        if held != self.leading:
            log.warning("%s the %s lease (%s)", "took" if held else "lost", LEASE, self.holder)
        self.leading = held
        return held

    def close(self):
        if self.leading:
            try:
                Lease.release(LEASE, self.holder)
            except DatabaseError:
                log.exception("could not release the %s lease: it runs out by itself", LEASE)
        super().close()
