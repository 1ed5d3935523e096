"""The game's deterministic random source (docs/architecture.md#randomness-and-fair-play).

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
_sha256 = hashlib.sha256


def new_seed() -> str:
    return secrets.token_hex(32)


def seed_digest(seed: str) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()


# randbelow's shift for n <= 256: the byte's top k bits, k the bits of n - 1 (at least 1)
_SHIFT = [0] + [8 - ((n - 1).bit_length() or 1) for n in range(1, 257)]


class Rng:
    # Bots and engines build one of these per decision and draw a few numbers from it: the bytes
    # are read from the pool at an offset (no re-slicing) and small draws take a single byte.
    __slots__ = ("_key", "_counter", "_pool", "_at")

    def __init__(self, seed: str, context: str | int = ""):
        self._key = f"{seed}:{context}".encode()
        self._counter = 0
        self._pool = b""
        self._at = 0

    def _fill(self, n: int) -> None:
        """At least ``n`` unread bytes in the pool (the unread ones kept, in order)."""
        counter = self._counter
        if n <= 32 and self._at >= len(self._pool):  # the usual case: all read, one block is enough
            self._pool, self._at, self._counter = _sha256(self._key + counter.to_bytes(8, "big")).digest(), 0, counter + 1
            return
        pool = self._pool[self._at:] if self._pool else b""
        while len(pool) < n:
            pool += _sha256(self._key + counter.to_bytes(8, "big")).digest()
            counter += 1
        self._pool, self._at, self._counter = pool, 0, counter

    def _bytes(self, n: int) -> bytes:
        if self._at + n > len(self._pool):
            self._fill(n)
        at = self._at
        self._at = at + n
        return self._pool[at:at + n]

    def randbelow(self, n: int) -> int:
        """Uniform in ``0..n-1`` (rejection sampling: no modulo bias)."""
        if 0 < n <= 256:  # one byte, its top k bits (k the bits of n - 1, at least 1)
            shift = _SHIFT[n]
            pool, at = self._pool, self._at
            while True:
                if at >= len(pool):
                    self._at = at
                    self._fill(1)
                    pool, at = self._pool, 0
                r = pool[at] >> shift
                at += 1
                if r < n:
                    self._at = at
                    return r
        if n <= 0:
            raise ValueError("randbelow needs n > 0")
        k = (n - 1).bit_length()
        nbytes = (k + 7) // 8
        while True:
            r = int.from_bytes(self._bytes(nbytes), "big") >> (nbytes * 8 - k)
            if r < n:
                return r

    def randint(self, a: int, b: int) -> int:
        """Uniform in ``a..b`` inclusive, like a die."""
        return a + self.randbelow(b - a + 1)

    def choice(self, seq: Iterable[T]) -> T:
        items = seq if isinstance(seq, (list, tuple)) else list(seq)
        return items[self.randbelow(len(items))]

    def shuffled(self, seq: Iterable[T]) -> list[T]:
        """A new list, Fisher-Yates shuffled."""
        items = list(seq)
        randbelow = self.randbelow
        for i in range(len(items) - 1, 0, -1):
            j = randbelow(i + 1)
            items[i], items[j] = items[j], items[i]
        return items

    def sample(self, seq: Iterable[T], k: int) -> list[T]:
        return self.shuffled(seq)[:k]
