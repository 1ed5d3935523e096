"""The random source draws exactly what its published algorithm gives (provably fair play):
anyone holding the revealed seed re-derives every roll and shuffle, so a faster Rng must not
change a single draw."""

import hashlib
import itertools

from games.rng import Rng


def reference_stream(seed, context):
    """The algorithm as documented: SHA-256 of "seed:context" and an 8-byte counter, block after block."""
    for counter in itertools.count():
        yield from hashlib.sha256(f"{seed}:{context}".encode() + counter.to_bytes(8, "big")).digest()


def reference_randbelow(stream, n):
    k = max(1, (n - 1).bit_length())
    nbytes = (k + 7) // 8
    while True:
        r = int.from_bytes(bytes(next(stream) for _ in range(nbytes)), "big") >> (nbytes * 8 - k)
        if r < n:
            return r


def test_it_draws_the_documented_numbers_for_any_mix_of_sizes():
    sizes = [1, 2, 3, 4, 6, 7, 8, 9, 16, 17, 52, 100, 255, 256, 257, 1000, 65536, 65537, 10**9, 2**64 + 3]
    for trial in range(200):
        rng, stream = Rng(f"alice-{trial}", trial), reference_stream(f"alice-{trial}", trial)
        for i in range(120):
            n = sizes[(i * 7 + trial) % len(sizes)]
            assert rng.randbelow(n) == reference_randbelow(stream, n)


def test_it_shuffles_rolls_and_chooses_as_the_documented_draws_say():
    rng, stream = Rng("bob", "bot:3"), reference_stream("bob", "bot:3")
    deck = list(range(40))
    expected = list(deck)
    for i in range(len(expected) - 1, 0, -1):
        j = reference_randbelow(stream, i + 1)
        expected[i], expected[j] = expected[j], expected[i]
    assert rng.shuffled(deck) == expected and deck == list(range(40))
    assert [rng.randint(1, 6) for _ in range(50)] == [1 + reference_randbelow(stream, 6) for _ in range(50)]
    assert rng.choice("abcde") == "abcde"[reference_randbelow(stream, 5)]
    assert rng.choice(["x", "y", "z"]) == ["x", "y", "z"][reference_randbelow(stream, 3)]
