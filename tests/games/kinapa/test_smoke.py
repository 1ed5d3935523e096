from games.registry import Kind
from tests.games.harness import play


def test_it_plays_a_four_player_game():
    events, state = play(Kind("kinapa"), 4, {}, "smoke", max_steps=20000)
    assert state["phase"] == "over"
