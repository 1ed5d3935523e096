"""Email written as files: every message whole and once, each batch in a file of its own, however
many threads send at once (the email worker's four; tests/deploy/test_cluster.py counts its mail
this way)."""

import email
import threading
from collections import Counter

from django.core.mail import EmailMessage, get_connection


def messages_in(folder) -> Counter:
    found = Counter()
    for path in folder.glob("*"):
        for chunk in path.read_bytes().split(b"\n" + b"-" * 79 + b"\n"):
            if chunk.strip():
                message = email.message_from_bytes(chunk.strip())
                found[(message["Subject"], message.get_payload().strip()[-12:])] += 1
    return found


def test_it_keeps_every_message_whole_while_threads_send_at_once(tmp_path):
    def send(thread):
        for n in range(40):
            body = f"{'x' * 20_000} {thread:03}-{n:04}-end"  # longer than a write buffer
            get_connection("kinplay.infra.mailfiles.EmailBackend", file_path=str(tmp_path)).send_messages(
                [EmailMessage(f"{thread}-{n}", body, "turns@kinplay.local", ["alice@example.org"])])

    threads = [threading.Thread(target=send, args=(t,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert messages_in(tmp_path) == Counter({(f"{t}-{n}", f"{t:03}-{n:04}-end"): 1 for t in range(8) for n in range(40)})
    # each batch in a file of its own: no two writers ever share one (Django's own names a file
    # by the second and an id() that a later connection reuses: a few hundred files for these 320)
    assert len(list(tmp_path.glob("*.log"))) == 8 * 40
