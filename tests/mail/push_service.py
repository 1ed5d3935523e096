"""A Web Push service run in the test process: it checks each push as a real one does (the VAPID
JWT's signature and claims, RFC 8292) and decrypts the payload as the browser would (RFC 8291,
aes128gcm) with the private key of the subscription the test made."""

from __future__ import annotations

import json
import secrets
import threading
import time
from base64 import urlsafe_b64encode
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import http_ece
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import jwt


def b64(data: bytes) -> str:
    return urlsafe_b64encode(data).decode().rstrip("=")


def vapid_pair() -> dict:
    """A server key pair as settings take it (bin/vapid-keys writes the same)."""
    key = ec.generate_private_key(ec.SECP256R1())
    return {"private_key": b64(key.private_numbers().private_value.to_bytes(32, "big")),
            "public_key": b64(key.public_key().public_bytes(serialization.Encoding.X962,
                                                            serialization.PublicFormat.UncompressedPoint))}


class Browser:
    """One browser's subscription: the keys a browser makes and keeps (the private one never leaves it)."""

    def __init__(self, endpoint: str):
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.auth = secrets.token_bytes(16)
        self.endpoint = endpoint
        public = self.key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.subscription = {"endpoint": endpoint, "keys": {"p256dh": b64(public), "auth": b64(self.auth)}}


class PushService:
    """Endpoints ``/push/<name>``; ``answers[name]`` the statuses to answer, in turn (then 201)."""

    def __init__(self, vapid_public_key: str):
        self.vapid_public_key = vapid_public_key
        self.browsers: dict[str, Browser] = {}
        self.answers: dict[str, list[int]] = {}
        self.received: list[dict] = []  # each push accepted, decrypted: {"to", "payload", "claims", "ttl"}
        self.refused: list[str] = []  # why a push was refused (a bad signature, a payload that does not decrypt)
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's name)
                status = service.take(self)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def browser(self, name: str) -> Browser:
        self.browsers[name] = Browser(f"{self.origin}/push/{name}")
        return self.browsers[name]

    def take(self, request) -> int:
        name = request.path.rsplit("/", 1)[-1]
        body = request.rfile.read(int(request.headers.get("Content-Length", 0)))
        browser = self.browsers.get(name)
        if browser is None:
            return 404
        try:
            claims = self.check_vapid(request.headers.get("Authorization", ""))
            if request.headers.get("Content-Encoding") != "aes128gcm" or request.headers.get("TTL") is None:
                raise ValueError("a push needs Content-Encoding: aes128gcm and a TTL")
            plain = http_ece.decrypt(body, private_key=browser.key, auth_secret=browser.auth, version="aes128gcm")
        except Exception as exc:  # what a push service answers a push it cannot take
            self.refused.append(f"{type(exc).__name__}: {exc}")
            return 401
        answers = self.answers.get(name) or []
        status = answers.pop(0) if answers else 201
        if status < 300:
            self.received.append({"to": name, "payload": json.loads(plain), "claims": claims,
                                  "ttl": int(request.headers["TTL"]),
                                  "topic": request.headers.get("Topic")})
        return status

    def check_vapid(self, header: str) -> dict:
        scheme, _, params = header.partition(" ")
        if scheme.lower() != "vapid":
            raise ValueError(f"not a VAPID authorization: {header[:20]!r}")
        parts = dict(p.strip().split("=", 1) for p in params.split(","))
        if parts["k"] != self.vapid_public_key:
            raise ValueError("signed with another key than the server's public key")
        claims = jwt.decode(parts["t"], parts["k"])  # raises InvalidSignature
        if claims["aud"] != self.origin or not claims["sub"].startswith("mailto:"):
            raise ValueError(f"bad claims {claims}")
        if not time.time() < claims["exp"] <= time.time() + 24 * 3600:
            raise ValueError("expired, or valid for more than 24 hours")
        return claims

    def stop(self):
        self.server.shutdown()
        self.server.server_close()
