import types

import pytest

from tests.web import tinygame
from tests.web.conftest import signed_in  # noqa: F401  (the web tests' signed-in client)


class _Kind:
    """The web tests' tiny card game under another slug (and up to 4 players): a second kind."""

    def __init__(self, slug, name, max_players):
        rules = types.SimpleNamespace(**{k: v for k, v in vars(tinygame).items() if not k.startswith("__")})
        rules.SLUG, rules.NAME, rules.MAX_PLAYERS = slug, name, max_players
        self.slug, self.name, self.rules, self.bots, self.render = slug, name, rules, rules, tinygame.render

    def bot(self, name):
        return {"random": tinygame.random_bot, "heuristic": tinygame.heuristic_bot}[name]


@pytest.fixture
def tiny():
    from games import registry

    added = {"tiny": _Kind("tiny", "Tiny", 3), "tiny4": _Kind("tiny4", "Tiny Four", 4)}
    registry.kinds().update(added)
    yield added["tiny"]
    for slug in added:
        registry.kinds().pop(slug, None)


