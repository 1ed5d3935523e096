"""Django's Redis cache backend with one redis client per connection pool.

Django's RedisCacheClient builds a new redis.Redis for every call, and the API's throttles
call the cache on every request, so that construction alone is a visible share of a web
worker's CPU. A redis.Redis is safe to share between threads (it
takes a connection from the pool for each command), so it is built once per pool.

``hit`` is the API throttles' counter (api/throttles.py).
"""

from django.core.cache.backends import redis


class RedisCacheClient(redis.RedisCacheClient):
    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        clients = self.__dict__.setdefault("_clients", {})
        client = clients.get(id(pool))
        if client is None:
            client = clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(redis.RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = RedisCacheClient

    def hit(self, key, timeout, many=1, version=None) -> int:
        """Count ``many`` more on the counter ``key`` and return the count; the first hit makes it
        and gives it ``timeout`` seconds to live. One command, where ``add`` then ``incr``
        take three round trips (and a pipeline of SET NX and INCR costs more CPU). Were
        the process to die between the two commands the counter would stay for good: the
        throttles' keys name their window, so it would only take a little memory."""
        key = self.make_and_validate_key(key, version=version)
        client = self._cache.get_client(key, write=True)
        count = client.incr(key, many)
        if count == many:
            client.expire(key, int(timeout))
        return count

    def ping(self) -> None:
        """Raise if Redis cannot be reached now (within the cache's socket timeouts)."""
        self._cache.get_client(write=True).ping()
