"""The card list is a validated data file: a malformed one fails loudly, naming the problem."""

import json

import pytest

from games.kinapa import rules


def _write(tmp_path, data):
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return str(path)


def _good():
    with open(rules.os.path.join(rules.DATA_DIR, "cards.json")) as fh:
        return json.load(fh)


def test_it_loads_the_shipped_card_list():
    data = rules.load_cards(rules.os.path.join(rules.DATA_DIR, "cards.json"))
    assert len(data["animals"]) == 16 and len(data["objects"]) == 8
    assert rules.card_name("A1") == "1 Maneki-Neko cat"


@pytest.mark.parametrize("breaks, words", [
    (lambda d: d["animals"].pop(), "must hold 16 cards"),
    (lambda d: d["shelters"][3].update(number=9), '"shelters"[3] must have "number": 4'),
    (lambda d: d["animals"][0].update(name=""), 'needs a non-empty "name"'),
    (lambda d: d["objects"][2].update(numbers=[5, 7]), '"objects"[2] must have "numbers": [5, 6]'),
    (lambda d: d.update(ministers=3), '"ministers" must be 2'),
    (lambda d: d.update(sheep=4), '"sheep" must be'),
    (lambda d: d.pop("objects"), '"objects" must be a list'),
])
def test_it_refuses_a_malformed_card_file(tmp_path, breaks, words):
    data = _good()
    breaks(data)
    with pytest.raises(ValueError) as err:
        rules.load_cards(_write(tmp_path, data))
    assert "cards.json" in str(err.value) and words in str(err.value)


def test_it_refuses_a_file_that_is_not_json(tmp_path):
    with pytest.raises(ValueError) as err:
        rules.load_cards(_write(tmp_path, "{not json"))
    assert "cards.json: is not valid JSON" in str(err.value)
