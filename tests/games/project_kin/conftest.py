"""The Project_Kin engine tests are pure Python: they need no Django settings.

tests/conftest.py has an autouse fixture that asks for pytest-django's ``settings``;
with ``-p no:django`` that fixture does not exist, so it is overridden here by a no-op.
"""

import pytest


@pytest.fixture(autouse=True)
def _eager_celery():
    yield
