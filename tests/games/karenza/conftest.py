"""The engine tests are pure Python: they need neither Django nor Celery.

``tests/conftest.py`` has an autouse fixture that needs pytest-django's ``settings``;
this no-op of the same name keeps ``pytest -p no:django tests/games/karenza`` working.
"""

import pytest


@pytest.fixture(autouse=True)
def _eager_celery():
    yield
