from games.registry import Kind
from tests.games.harness import play


def test_it_plays_a_game():
    events, state = play(Kind("karenza"), 2, {}, "smoke")
    assert Kind("karenza").rules.result(state) is not None
