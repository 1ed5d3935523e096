"""Schemathesis over the whole OpenAPI schema, in-process against the WSGI app with a player's
token: no request it can make gets a 500, and every answer matches the schema (issue 11).

Bounded (a few dozen examples per operation, derandomised) so it runs in about a minute."""

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import response_schema_conformance, status_code_conformance

from kinplay.wsgi import application

pytestmark = pytest.mark.django_db

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)  # as the app serves it


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """Like Django's test client: the WSGI handler would close the test's database connection
    at the start and end of every request."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    for signal in (request_started, request_finished):
        signal.disconnect(close_old_connections)
    yield
    for signal in (request_started, request_finished):
        signal.connect(close_old_connections)


@pytest.fixture
def token(alice, bob):
    """Alice's token, with a game between alice and bob (id 1 is the likeliest id to be tried)."""
    from rest_framework.authtoken.models import Token

    from games import services
    from tests.play import accepted

    accepted(services.create_game(creator=alice, kind="knonsters", seats=[{"user": "alice"}, {"user": "bob"}], per_move=None))
    return Token.objects.get_or_create(user=alice)[0].key


@schema.parametrize()
@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_the_api_never_fails_and_answers_as_its_schema_says(case, token):
    case.call_and_validate(headers={"Authorization": f"Token {token}"},
                           checks=[not_a_server_error, status_code_conformance, response_schema_conformance])
