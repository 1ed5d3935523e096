"""The character decks are data files, validated when rules.py is imported."""

import copy
import json

import pytest

from games.karenza import rules

# every ability of both decks, and the scenario test that covers its text
COVERED = {
    "flurry": "test_it_implements_flurry_blocked_only_by_power_two_or_more",
    "sidestep": "test_it_implements_sidestep_always_earning_an_extra_turn",
    "quick-hands": "test_it_implements_quick_hands",
    "echo": "test_it_implements_echo_and_its_order_with_quick_hands",
    "free-flow": "test_it_implements_free_flow",
    "second-wind": "test_it_implements_second_wind",
    "smoke-veil": "test_it_implements_smoke_veil_for_the_opponents_next_turn_only",
    "crushing-blow": "test_it_implements_crushing_blow_denying_every_extra_turn",
    "riposte": "test_it_implements_riposte_bonus_on_the_next_attack",
    "heavy-grip": "test_it_implements_heavy_grip_full_swing_and_anchor",
    "full-swing": "test_it_implements_heavy_grip_full_swing_and_anchor",
    "anchor": "test_it_implements_heavy_grip_full_swing_and_anchor",
    "recall": "test_it_implements_recall",
    "intimidate": "test_it_implements_intimidate_after_add_ons",
}


def _raw(name):
    return json.loads((rules.DATA_DIR / f"{name}.json").read_text(encoding="utf-8"))


def test_it_ships_two_32_card_decks_with_all_four_ability_types():
    assert set(rules.DECKS) == {"michi", "eka"}
    for name, deck in rules.DECKS.items():
        cards = [deck["cards"][c] for c in deck["list"]]
        assert sum(c["copies"] for c in cards) == 32 == len(rules.deck_cards(name))
        abilities = {c["ability"] for c in cards if c["type"] == "ability"}
        assert abilities == {"attack", "defence", "addon", "trick"}
        timings = {c["timing"] for c in cards if c["type"] == "ability" and c["ability"] == "trick"}
        assert timings == {"immediate", "next_turn"}
        for c in cards:
            if c["type"] == "technique":
                a, b = c["trajectory"]
                assert a in rules.CORNERS and b in rules.CORNERS and a != b
                assert c["function"] in ("attack", "defence") and c["power"] >= 0
            else:
                assert c["text"].startswith({"attack": "Attack.", "defence": "Defence.", "addon": "Add-on.",
                                             "trick": "Trick"}[c["ability"]])


def test_it_covers_every_ability_text_with_a_scenario_test():
    from tests.games.karenza import test_rules

    abilities = {code for code, c in rules.CARDS.items() if c["type"] == "ability"}
    assert abilities == set(COVERED)
    for test in COVERED.values():
        assert callable(getattr(test_rules, test))


def test_it_gives_each_character_its_own_style():
    def stats(name):
        deck = rules.DECKS[name]
        techs = [deck["cards"][c] for c in rules.deck_cards(name) if deck["cards"][c]["type"] == "technique"]
        attacks = [c["power"] for c in techs if c["function"] == "attack"]
        return sum(attacks) / len(attacks)

    assert stats("eka") > stats("michi")  # Eka hits harder, Michi chains faster


def _broken(tmp_path, mutate, name="michi"):
    data = copy.deepcopy(_raw(name))
    mutate(data)
    (tmp_path / f"{name}.json").write_text(json.dumps(data), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize("mutate, problem", [
    (lambda d: d["cards"].pop(), "it must have 32"),
    (lambda d: d["cards"][0].update(trajectory=["TL", "TL"]), "trajectory"),
    (lambda d: d["cards"][0].update(trajectory=["TL", "XX"]), "trajectory"),
    (lambda d: d["cards"][0].update(function="dodge"), "function"),
    (lambda d: d["cards"][0].update(power=-1), "power"),
    (lambda d: d["cards"][1].update(code="swallow"), "appears twice"),
    (lambda d: d["cards"][-1].update(effect={"op": "teleport"}), "unknown trick op"),
    (lambda d: d["cards"][-1].update(timing="immediate"), "timing"),
    (lambda d: d["cards"][-1].pop("text"), "text"),
    (lambda d: d["cards"][-3].update(effect={"op": "add"}), "integer"),
    (lambda d: d["cards"][-3].update(applies_to="everything"), "applies_to"),
    (lambda d: d["cards"][-7].update(effect={"min_defence": "two"}), "integer"),
    (lambda d: d["cards"][-7].update(effect={"fly": True}), "unknown attack effect"),
    (lambda d: d["cards"][0].update(type="spell"), "type"),
    (lambda d: d.update(character="eka"), "file is named"),
    (lambda d: d.pop("cards"), "cards"),
])
def test_it_refuses_a_malformed_deck_file_naming_the_problem(tmp_path, mutate, problem):
    _broken(tmp_path, mutate)
    with pytest.raises(ValueError) as exc:
        rules.load_decks(tmp_path)
    assert "michi.json" in str(exc.value) and problem in str(exc.value)


def test_it_refuses_invalid_json_and_duplicate_codes_across_decks(tmp_path):
    (tmp_path / "michi.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ValueError, match="michi.json: not valid JSON"):
        rules.load_decks(tmp_path)
    (tmp_path / "michi.json").write_text(json.dumps(_raw("michi")), encoding="utf-8")
    eka = _raw("eka")
    eka["cards"][0]["code"] = "swallow"
    (tmp_path / "eka.json").write_text(json.dumps(eka), encoding="utf-8")
    with pytest.raises(ValueError, match="already used"):
        rules.load_decks(tmp_path)
    with pytest.raises(ValueError, match="no character deck"):
        rules.load_decks(tmp_path / "empty")


def test_it_loads_the_shipped_files_cleanly(tmp_path):
    for name in ("michi", "eka"):
        (tmp_path / f"{name}.json").write_text(json.dumps(_raw(name)), encoding="utf-8")
    decks = rules.load_decks(tmp_path)
    assert set(decks) == {"michi", "eka"}


def test_it_documents_the_exact_decks_in_rules_md():
    import re
    from pathlib import Path

    # The source folder's, not rules.DATA_DIR's: compiled, the engine and its data live in build/engines/.
    text = (Path(__file__).resolve().parents[3] / "games" / "karenza" / "RULES.md").read_text(encoding="utf-8")
    rows = {}
    for m in re.finditer(r"^\| ([a-z-]+) \| ([^|]+?) \| (attack|defence) \| (\w\w)→(\w\w) \| (\d+) \| (\d+) \|$",
                         text, re.M):
        rows[m.group(1)] = (m.group(2), m.group(3), [m.group(4), m.group(5)], int(m.group(6)), int(m.group(7)))
    for m in re.finditer(r"^\| ([a-z-]+) \| ([^|]+?) \| [^|]+ \| (\d+) \| (.+) \|$", text, re.M):
        rows.setdefault(m.group(1), (m.group(2), int(m.group(3)), m.group(4)))
    for code, c in rules.CARDS.items():
        if c["type"] == "technique":
            assert rows[code] == (c["name"], c["function"], c["trajectory"], c["power"], c["copies"]), code
        else:
            assert rows[code] == (c["name"], c["copies"], c["text"]), code
