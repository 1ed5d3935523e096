"""A WSGI application that answers with the names of its environ's keys, behind kinplay.wsgi's
own RequestOnly, for tests/deploy/test_web_server.py to run under the real server."""

import json

from kinplay.server import RequestOnly


def echo(environ, start_response):
    body = json.dumps(sorted(k for k in environ if isinstance(environ[k], str))).encode()
    start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
    return [body]


application = RequestOnly(echo)
