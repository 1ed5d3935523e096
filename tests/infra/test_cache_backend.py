"""kinplay/infra/cache.py: the throttles' Redis cache, with one redis client per pool."""

import time

import pytest

from kinplay.infra.cache import RedisCache

pytestmark = pytest.mark.services


def test_it_keeps_one_client_and_still_counts_a_players_requests(private_redis):
    cache = RedisCache(private_redis.url, {"KEY_PREFIX": "kinplay-test"})
    client = cache._cache.get_client(write=True)
    assert cache._cache.get_client() is client and cache._cache.get_client(write=True) is client
    cache.set("throttle_user_1", [3.0, 2.0, 1.0], 60)
    assert cache.get("throttle_user_1") == [3.0, 2.0, 1.0]
    assert cache.add("throttle_user_1", [], 60) is False
    assert cache.add("n", 1, 60) is True and cache.incr("n") == 2 and cache.get("n") == 2


def test_it_finds_redis_again_after_a_restart(private_redis):
    cache = RedisCache(private_redis.url, {})
    cache.set("alice", 1, 60)
    private_redis.stop()
    private_redis.start()  # an empty server: no persistence
    assert cache.get("alice") is None
    cache.set("alice", 2, 60)
    assert cache.get("alice") == 2


def test_it_counts_a_throttle_window_in_one_call_and_forgets_it_when_it_ends(private_redis):
    cache = RedisCache(private_redis.url, {"KEY_PREFIX": "kinplay-test"})
    assert [cache.hit("throttle_moves_1_100", 1) for _ in range(3)] == [1, 2, 3]
    assert cache.hit("throttle_moves_2_100", 1) == 1  # bob's own counter
    time.sleep(1.1)
    assert cache.hit("throttle_moves_1_100", 1) == 1


def test_it_counts_a_lease_of_many_in_one_call_and_still_forgets_the_window(private_redis):
    cache = RedisCache(private_redis.url, {"KEY_PREFIX": "kinplay-test"})
    assert [cache.hit("throttle_moves_1_101", 1, 12) for _ in range(2)] == [12, 24]
    time.sleep(1.1)
    assert cache.hit("throttle_moves_1_101", 1, 12) == 12  # the first lease gave the counter its time to live
