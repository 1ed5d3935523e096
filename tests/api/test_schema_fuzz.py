"""Schemathesis over the whole OpenAPI schema, in-process against the WSGI app with a player's
token, every check on: no request it can make gets a 500, every answer matches the schema, a
request the schema allows is never refused as malformed (400) and one it forbids is never taken.

The API's rule (docs/api.md#errors): 400 is for what breaks the schema; a well-formed request the
game's or account's state refuses is a 409, one whose parts do not fit together (a seat count the
kind does not take, an unknown player, a weak password) a 422. So positive data may meet 409 and
422, which schemathesis' default list of "accepted" answers lacks only for 422.

Bounded (a few dozen examples per operation, derandomised) so it runs in about two minutes."""

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import CHECKS, load_all_checks

from kinplay.wsgi import application

pytestmark = pytest.mark.django_db

schema = schemathesis.openapi.from_wsgi("/api/schema/", application)  # as the app serves it
schema.config.checks.positive_data_acceptance.expected_statuses.append("422")
load_all_checks()
EVERY_CHECK = list(CHECKS.get_all())


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
@settings(max_examples=50, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
def test_the_api_never_fails_and_answers_as_its_schema_says(case, token):
    case.call_and_validate(headers={"Authorization": f"Token {token}"},
                           checks=EVERY_CHECK)
