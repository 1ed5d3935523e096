from tests.web.conftest import signed_in, tiny  # noqa: F401  (the page client; the tiny game, for the new-game form)
