#!/usr/bin/env python3
"""Does a failed sign-in tell a known name from an unknown one by its cost? (issue 11)

    python bench/signin.py [--attempts 40]

Posts wrong passwords for a known name and for unknown names to the login page and the API's
token endpoint (the production password hasher, django-axes' lockout counting every failure),
and prints the CPU time of this process per attempt (``time.process_time``: the machine is
shared, so wall time would measure the neighbours). Each attempt uses a fresh name or a fresh
address so that no lockout cuts the run short. Uses ``DATABASE_URL`` if set (give a database
of your own: it is flushed), else a SQLite file in /tmp.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DATABASE_URL", "sqlite:////tmp/kinplay-bench-signin.sqlite3")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "kinplay.settings")
os.environ.setdefault("ALLOWED_HOSTS", "testserver")  # the test client's host (production defaults are closed)
os.environ.setdefault("THROTTLE_AUTH", "100000/min")  # measure the sign-in, not the throttle

import logging  # noqa: E402

import django  # noqa: E402

django.setup()
logging.disable(logging.WARNING)  # one "failed login" line per attempt otherwise

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection  # noqa: E402
from django.test import Client  # noqa: E402


def fresh_database():
    if connection.vendor == "sqlite":
        Path(connection.settings_dict["NAME"]).unlink(missing_ok=True)
    call_command("migrate", verbosity=0)
    call_command("flush", verbosity=0, interactive=False)


def cpu_ms(post, n) -> list[float]:
    out = []
    for i in range(n):
        start = time.process_time()
        post(i)
        out.append((time.process_time() - start) * 1000)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--attempts", type=int, default=40)
    n = parser.parse_args().attempts
    fresh_database()
    get_user_model().objects.create_user("alice", "", "alice-plays-kin")

    def login(name):
        return lambda i: Client(REMOTE_ADDR=f"10.0.{i // 250}.{i % 250}").post(
            "/login/", {"username": name(i), "password": "wrong-password"})

    def token(name):
        return lambda i: Client(REMOTE_ADDR=f"10.1.{i // 250}.{i % 250}").post(
            "/api/accounts/token/", {"username": name(i), "password": "wrong-password"}, content_type="application/json")

    for label, make in (("login page", login), ("token endpoint", token)):
        make(lambda i: "alice")(999)  # warm up
        known = cpu_ms(make(lambda i: "alice"), n)
        unknown = cpu_ms(make(lambda i: f"nobody{i}"), n)
        k, u = statistics.median(known), statistics.median(unknown)
        print(f"{label:15} known name, wrong password: median {k:6.1f} ms CPU;  unknown name: median {u:6.1f} ms CPU;"
              f"  ratio {u / k:.2f}  ({n} attempts each)")
    print(f"load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
