"""The infrastructure's tests borrow the real services' fixtures (a private redis-server)."""

from tests.services.conftest import private_redis  # noqa: F401  (a fixture, found by name)
