from games.registry import Kind
from tests.games.harness import play


def test_it_plays_a_game_for_each_player_count():
    kind = Kind("kenta")
    for n in range(2, 6):
        events, state = play(kind, n, {}, f"smoke-{n}", check_every=3)
        assert kind.rules.result(state) is not None
