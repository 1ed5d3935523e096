"""The embedded broker: kombu's filesystem transport, made to survive a full disk.

A write that failed for lack of space leaves a zero-byte (or cut) file behind; kombu then
fails to decode it on every start of the worker ("Unrecoverable error: JSONDecodeError"), for
ever, even once space is freed. Here an unreadable exchange table is set aside (renamed
``*.broken``) and rebuilt by the worker's next bind, and an unreadable message is logged and
skipped: the sweeps redo whatever it asked for.
"""

from __future__ import annotations

import logging

from kombu.transport import filesystem
from kombu.utils.json import loads

log = logging.getLogger("kinplay.broker")


class Channel(filesystem.Channel):
    def _set_aside_if_unreadable(self, exchange):
        file = self._exchange_file(exchange)
        try:
            loads(file.read_bytes().decode() or "!")
        except FileNotFoundError:
            return
        except (ValueError, UnicodeDecodeError):
            broken = file.with_name(file.name + ".broken")
            log.error("broker: exchange table %s is unreadable (a full disk?); set aside as %s", file, broken.name)
            file.replace(broken)

    def get_table(self, exchange):
        try:
            return super().get_table(exchange)
        except (ValueError, UnicodeDecodeError):
            self._set_aside_if_unreadable(exchange)
            return []

    def _queue_bind(self, exchange, routing_key, pattern, queue):
        self._set_aside_if_unreadable(exchange)
        return super()._queue_bind(exchange, routing_key, pattern, queue)

    def _get(self, queue):
        while True:  # ends with a message, or Empty once the folder holds none for this queue
            try:
                return super()._get(queue)
            except (ValueError, UnicodeDecodeError) as exc:
                # kombu has already taken the file out of the queue's folder
                log.error("broker: skipped an unreadable message on queue %s (a full disk?): %s", queue, exc)


class FilesystemTransport(filesystem.Transport):
    Channel = Channel
