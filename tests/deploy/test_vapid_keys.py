"""The Web Push key pair: from the environment, else generated into var/ by `make run`
(bin/vapid-keys) and kept; push is off with neither."""

import json

from tests.deploy.test_settings import KEY, ROOT, run

SHOW = "from kinplay.notifications import push; from django.conf import settings as s; print(push.enabled(), s.VAPID_PUBLIC_KEY)"


def test_it_has_push_off_without_keys(tmp_path):
    r = run(SHOW, tmp_path, SECRET_KEY=KEY)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["False"]


def test_make_run_generates_a_key_pair_once_and_keeps_it(tmp_path):
    assert run([str(ROOT / "bin" / "vapid-keys")], tmp_path).returncode == 0
    path = tmp_path / "var" / "vapid.json"
    assert path.stat().st_mode & 0o077 == 0  # this user's only
    first = run(SHOW, tmp_path, SECRET_KEY=KEY).stdout.split()
    assert first == ["True", json.loads(path.read_text())["public_key"]]
    run([str(ROOT / "bin" / "vapid-keys")], tmp_path)
    assert run(SHOW, tmp_path, SECRET_KEY=KEY).stdout.split() == first


def test_the_generated_pair_signs_what_its_public_key_verifies(tmp_path):
    """What a push service checks: the JWT signed with the private key verifies with the public one."""
    run([str(ROOT / "bin" / "vapid-keys")], tmp_path)
    pair = json.loads((tmp_path / "var" / "vapid.json").read_text())
    from py_vapid import Vapid, jwt

    token = Vapid.from_string(pair["private_key"]).sign({"sub": "mailto:a@example.org", "aud": "https://push.example",
                                                         "exp": 9999999999})["Authorization"]
    t = dict(p.split("=", 1) for p in token.split(" ", 1)[1].split(","))
    assert t["k"] == pair["public_key"]
    assert jwt.decode(t["t"], pair["public_key"])["aud"] == "https://push.example"


def test_the_environment_wins_over_the_file(tmp_path):
    run([str(ROOT / "bin" / "vapid-keys")], tmp_path)
    r = run(SHOW, tmp_path, SECRET_KEY=KEY, VAPID_PRIVATE_KEY="x" * 43, VAPID_PUBLIC_KEY="from-the-environment")
    assert r.stdout.split() == ["True", "from-the-environment"]
