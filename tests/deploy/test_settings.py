"""Production defaults that fail closed (issue 11): each case starts kinplay's real settings in a
fresh process with the environment an operator would give it."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
KEY = "k" * 30 + "-production-like-secret-" + "z" * 20

# The production environment docs/deploy.md#what-production-needs documents.
PRODUCTION = {
    "SECRET_KEY": KEY, "SITE_URL": "https://play.example.org", "SECURE_PROXY_SSL_HEADER": "HTTP_X_FORWARDED_PROTO,https",
    "PROXY_COUNT": "1", "SECURE_HSTS_PRELOAD": "true",
}


def run(code_or_args, tmp_path, **env):
    """Python in a fresh process with kinplay.settings, only ``env`` and an empty var/."""
    clean = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "PYTHONPATH")}
    clean.update(KINPLAY_VAR=str(tmp_path / "var"), DJANGO_SETTINGS_MODULE="kinplay.settings", **env)
    args = code_or_args if isinstance(code_or_args, list) else ["-c", "import django; django.setup(); " + code_or_args]
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=clean, capture_output=True, text=True, timeout=120)


def test_it_refuses_to_start_without_a_secret_key(tmp_path):
    r = run("print('started')", tmp_path)
    assert r.returncode != 0 and "started" not in r.stdout
    assert "no SECRET_KEY" in r.stderr and "bin/secret-key" in r.stderr


def test_it_refuses_the_old_public_default_key(tmp_path):
    r = run("print('started')", tmp_path, SECRET_KEY="dev-only-insecure-key-change-me-in-production")
    assert r.returncode != 0 and "no SECRET_KEY" in r.stderr


def test_make_run_generates_a_key_once_and_keeps_it(tmp_path):
    show = "from django.conf import settings; print(settings.SECRET_KEY)"
    assert run([str(ROOT / "bin" / "secret-key")], tmp_path).returncode == 0
    first = run(show, tmp_path)
    assert first.returncode == 0, first.stderr
    key = first.stdout.strip()
    assert len(key) >= 50 and (tmp_path / "var" / "secret_key").stat().st_mode & 0o077 == 0  # this user's only
    run([str(ROOT / "bin" / "secret-key")], tmp_path)
    assert run(show, tmp_path).stdout.strip() == key


def test_it_allows_only_its_own_hosts_unless_told(tmp_path):
    show = "from django.conf import settings; print(sorted(settings.ALLOWED_HOSTS))"
    hosts = run(show, tmp_path, SECRET_KEY=KEY, SITE_URL="https://play.example.org").stdout
    assert "play.example.org" in hosts and "'*'" not in hosts
    assert "'*'" in run(show, tmp_path, SECRET_KEY=KEY, ALLOWED_HOSTS="*").stdout


def test_an_https_site_gets_hsts_redirect_and_secure_cookies(tmp_path):
    show = ("from django.conf import settings as s; print(s.SECURE_SSL_REDIRECT, s.SESSION_COOKIE_SECURE, "
            "s.CSRF_COOKIE_SECURE, s.SECURE_HSTS_SECONDS > 0, s.SECURE_PROXY_SSL_HEADER)")
    out = run(show, tmp_path, **PRODUCTION).stdout.split(maxsplit=4)
    assert out[:4] == ["True", "True", "True", "True"] and "HTTP_X_FORWARDED_PROTO" in out[4]
    plain = run(show, tmp_path, SECRET_KEY=KEY, SITE_URL="http://127.0.0.1:8000").stdout.split(maxsplit=4)
    assert plain[:4] == ["False", "False", "False", "False"]  # make run on a laptop: plain http works
    assert run(show, tmp_path, **PRODUCTION, SECURE_SSL_REDIRECT="false").stdout.startswith("False True")


def test_check_deploy_is_clean_with_the_documented_production_settings(tmp_path):
    r = run(["manage.py", "check", "--deploy", "--fail-level", "WARNING"], tmp_path, **PRODUCTION)
    assert r.returncode == 0, r.stdout + r.stderr
