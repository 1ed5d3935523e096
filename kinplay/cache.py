"""Django's Redis cache backend with one redis client per connection pool.

Django's RedisCacheClient builds a new redis.Redis for every call; with the API's throttles
(two cache reads and two writes per move) that construction alone was about 5 % of a web
worker's CPU in make bench-peer's profile. A redis.Redis is safe to share between threads (it
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

    def hit(self, key, timeout, version=None) -> int:
        """Count one more on the counter ``key`` (made, living ``timeout`` seconds, by its first
        hit) and return the count: one round trip, where ``add`` then ``incr`` take three."""
        key = self.make_and_validate_key(key, version=version)
        with self._cache.get_client(key, write=True).pipeline(transaction=False) as pipe:
            pipe.set(key, 0, ex=int(timeout), nx=True)
            pipe.incr(key)
            return pipe.execute()[-1]
