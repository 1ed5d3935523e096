from tests.web.conftest import tiny  # noqa: F401  (the tiny game, for the new-game form)
