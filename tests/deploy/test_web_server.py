"""kinplay/server.py: the web server bin/run starts (granian) hands the application the
request and nothing of the process's environment, keeps connections alive, and refuses a
request whose head is too long."""

import http.client
import json
import os
from pathlib import Path

import pytest

from kinplay.server import HEAD_BYTES, RequestOnly, leave_out_idle_receivers
from tests.conftest import start_server, wait_listening

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def server():
    env = dict(os.environ, WEB_WORKERS="1", DATABASE_URL="postgres://kinplay:s3cret@db.invalid/kinplay",
               HTTP_PROXY="http://proxy.invalid:3128", PYTHONPATH=str(ROOT))
    proc, port = start_server(env, "--app", "tests.deploy.echo_app:application")
    wait_listening(proc, port, seconds=30)
    yield port
    proc.terminate()
    proc.wait(30)


def keys_seen(connection, path="/", headers=None) -> list[str]:
    connection.request("GET", path, headers=headers or {})
    answer = connection.getresponse()
    assert answer.status == 200
    return json.loads(answer.read())


def test_it_hands_the_application_the_request_and_none_of_the_process_environment(server):
    seen = keys_seen(http.client.HTTPConnection("127.0.0.1", server), "/games/?page=2", {"X-Client": "alice"})
    assert {"REQUEST_METHOD", "PATH_INFO", "QUERY_STRING", "REMOTE_ADDR", "HTTP_HOST", "HTTP_X_CLIENT"} <= set(seen)
    assert "DATABASE_URL" not in seen and "PATH" not in seen and "HOME" not in seen
    assert "HTTP_PROXY" not in seen  # httpoxy: the environment's variable is not a Proxy header


def test_it_keeps_a_connection_open_between_requests(server):
    connection = http.client.HTTPConnection("127.0.0.1", server)
    keys_seen(connection)
    first = connection.sock
    keys_seen(connection)
    assert connection.sock is first


def test_it_refuses_a_request_whose_head_is_too_long(server):
    connection = http.client.HTTPConnection("127.0.0.1", server)
    connection.request("GET", "/", headers={"X-Padding": "x" * 3 * HEAD_BYTES})
    assert connection.getresponse().status == 431
    connection = http.client.HTTPConnection("127.0.0.1", server)
    connection.request("GET", "/" + "x" * 16_000, headers={"X-Padding": "x" * 16_000})  # long, but within the limits
    assert connection.getresponse().status == 200


def test_it_keeps_a_header_the_client_sent_with_a_value_of_its_own():
    seen = {}
    app = RequestOnly(lambda environ, start_response: seen.update(environ), {"HTTP_PROXY": "http://proxy.invalid"})
    app({"HTTP_PROXY": "http://client.example", "PATH_INFO": "/"}, None)
    assert seen["HTTP_PROXY"] == "http://client.example"
    app({"HTTP_PROXY": "http://proxy.invalid", "PATH_INFO": "/"}, None)
    assert "HTTP_PROXY" not in seen or seen["HTTP_PROXY"] != "http://proxy.invalid"


def test_it_hands_over_an_answer_in_memory_as_bytes_once_closed():
    from django.http import HttpResponse, StreamingHttpResponse

    closed = []
    answer = HttpResponse(b"{}")
    answer.close = lambda: closed.append(True)
    assert RequestOnly(lambda environ, start_response: answer, {})({}, None) == [b"{}"] and closed == [True]
    streamed = StreamingHttpResponse(iter([b"a", b"b"]))
    assert RequestOnly(lambda environ, start_response: streamed, {})({}, None) is streamed  # the server closes it


@pytest.fixture
def receivers():
    """The request signals' receivers, connected as Django connects them before the test and again after it."""
    from django.core.cache import close_caches
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections, reset_queries

    def present(signal, receiver) -> bool:
        """Whether ``receiver`` is connected to ``signal`` (asked through the public API: disconnect
        says whether it was, and it is connected again as it was)."""
        if signal.disconnect(receiver):
            signal.connect(receiver)
            return True
        return False

    def connected():
        known = (close_caches, reset_queries, close_old_connections)
        return {"started": [r for r in known if present(request_started, r)],
                "finished": [r for r in known if present(request_finished, r)]}

    # as Django connects them, whatever an earlier test did (importing kinplay.wsgi leaves some out)
    request_finished.connect(close_caches)
    request_started.connect(reset_queries)
    yield connected, close_caches, reset_queries, close_old_connections
    request_finished.connect(close_caches)
    request_started.connect(reset_queries)


REDIS = {"BACKEND": "kinplay.infra.cache.RedisCache", "LOCATION": "redis://127.0.0.1:6379/0"}


def test_it_leaves_out_the_request_receivers_with_nothing_to_do(receivers, settings):
    connected, close_caches, reset_queries, close_old_connections = receivers
    settings.DEBUG, settings.CACHES = False, {"default": REDIS, "files": {
        "BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": "/tmp/unused"}}
    leave_out_idle_receivers()
    now = connected()
    assert close_caches not in now["finished"] and reset_queries not in now["started"]
    assert close_old_connections in now["started"] and close_old_connections in now["finished"]  # CONN_MAX_AGE, health checks


def test_it_keeps_them_for_a_cache_that_closes_and_for_debug(receivers, settings):
    connected, close_caches, reset_queries, _ = receivers
    settings.DEBUG, settings.CACHES = True, {"default": REDIS, "memcached": {
        "BACKEND": "django.core.cache.backends.memcached.PyMemcacheCache", "LOCATION": "127.0.0.1:11211"}}
    leave_out_idle_receivers()
    now = connected()
    assert close_caches in now["finished"] and reset_queries in now["started"]
