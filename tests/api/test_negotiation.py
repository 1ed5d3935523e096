"""The usual Accept headers get JSON at once; every other one is DRF's to decide, as before."""

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("accept", [None, "*/*", "application/json"])
def test_it_answers_json_to_the_usual_accept_headers(api, alice, accept):
    headers = {"HTTP_ACCEPT": accept} if accept else {}
    answer = api(alice).get("/api/kinds/", **headers)
    assert answer.status_code == 200 and answer["Content-Type"] == "application/json"
    assert answer.json()


def test_it_leaves_the_browsable_api_and_indentation_and_refusals_to_drf(api, alice):
    client = api(alice)
    assert client.get("/api/kinds/", HTTP_ACCEPT="text/html")["Content-Type"].startswith("text/html")
    assert client.get("/api/kinds/?format=api")["Content-Type"].startswith("text/html")
    assert b"\n    " in client.get("/api/kinds/", HTTP_ACCEPT="application/json; indent=4").content
    refused = client.get("/api/kinds/", HTTP_ACCEPT="image/png")
    assert refused.status_code == 406 and refused.json()["error"] == "not_acceptable"
