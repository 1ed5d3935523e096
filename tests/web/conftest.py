import pytest

from tests.web import tinygame


@pytest.fixture
def tiny():
    """Registers the tiny test game next to the real kinds for one test."""
    from games import registry

    kind = tinygame.TinyKind()
    registry.kinds()["tiny"] = kind
    yield kind
    registry.kinds().pop("tiny", None)


@pytest.fixture
def signed_in(client):
    def as_user(user):
        client.force_login(user)
        return client

    return as_user
