"""The game's deterministic random source (DESIGN.md, "Randomness").

Every random outcome is drawn from SHA-256 in counter mode over the game's
secret seed and a context (the version a command was decided at), so anyone
holding the revealed seed re-derives every roll and shuffle. No ``random``
module: its algorithm is not ours to freeze.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterable
from typing import TypeVar

T = TypeVar("T")


def new_seed() -> str:
    return secrets.token_hex(32)


def seed_digest(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


class Rng:
    def __init__(self, seed: str, context: str | int = ""):
        self._key = f"{seed}:{context}".encode()
        self._counter = 0
        self._pool = b""

    def _bytes(self, n: int) -> bytes:
        while len(self._pool) < n:
            block = hashlib.sha256(self._key + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
            self._pool += block
        out, self._pool = self._pool[:n], self._pool[n:]
        return out

    def randbelow(self, n: int) -> int:
        """Uniform in ``0..n-1`` (rejection sampling: no modulo bias)."""
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        k = max(1, (n - 1).bit_length())
        nbytes = (k + 7) // 8
        while True:
            r = int.from_bytes(self._bytes(nbytes), "big") >> (nbytes * 8 - k)
            if r < n:
                return r

    def randint(self, a: int, b: int) -> int:
        """Uniform in ``a..b`` inclusive, like a die."""
        return a + self.randbelow(b - a + 1)

    def choice(self, seq: Iterable[T]) -> T:
        seq = list(seq)
        return seq[self.randbelow(len(seq))]

    def shuffled(self, seq: Iterable[T]) -> list[T]:
        """A new list, Fisher-Yates shuffled."""
        items = list(seq)
        for i in range(len(items) - 1, 0, -1):
            j = self.randbelow(i + 1)
            items[i], items[j] = items[j], items[i]
        return items

    def sample(self, seq: Iterable[T], k: int) -> list[T]:
        return self.shuffled(seq)[:k]
