"""Whatever JSON a client sends as an action, the answer is a clear 4xx or a stored move: never a 500."""

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from games.models import Event
from games.registry import kinds

pytestmark = pytest.mark.django_db

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 70) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


@pytest.mark.parametrize("slug", list(kinds()))
def test_it_answers_any_action_with_a_4xx_or_a_move(slug, api, alice, bob):
    client = api(alice)
    n = kinds()[slug].rules.MIN_PLAYERS
    seats = [{"user": "alice"}] + [{"user": "bob"}] + [{"bot": "random"}] * (n - 2)
    game = client.post("/api/games/", {"kind": slug, "seats": seats, "clock": {"per_move": None}}, format="json").json()
    assert api(bob).post(f"/api/games/{game['id']}/accept/").status_code == 200
    legal = client.get(f"/api/games/{game['id']}/").json()["legal_actions"]
    types = sorted({m["action"]["type"] for m in legal}) or ["play"]

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(action=st.one_of(
        json_values,
        st.fixed_dictionaries({"type": st.sampled_from(types)}, optional={"x": json_values}),
        st.builds(lambda t, extra: {"type": t, **extra}, st.sampled_from(types), st.dictionaries(st.text(max_size=6), json_values, max_size=3)),
    ))
    def check(action):
        before = Event.objects.filter(game_id=game["id"]).count()
        r = client.post(f"/api/games/{game['id']}/actions/", {"action": action}, format="json")
        assert r.status_code in (201, 400, 409), (action, r.status_code, r.content[:300])
        if r.status_code != 201:
            assert r.json()["error"] and r.json()["detail"]
            assert Event.objects.filter(game_id=game["id"]).count() == before

    check()
