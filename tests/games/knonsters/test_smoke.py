from games.registry import Kind
from tests.games.harness import play


def test_it_plays_a_game_for_each_player_count():
    kind = Kind("knonsters")
    for n in (2, 3, 4):
        events, state = play(kind, n, {"win_bet": True, "superpowers": True}, f"smoke{n}")
        assert kind.rules.result(state) is not None
