"""Ratings: a projection of finished games (OpenSkill Plackett-Luce, one rating per kind).

``Rating`` is each player's current value per kind; ``RatingChange`` is what one rated game
did to one seat (before and after), so history is exact and ``rebuild_ratings`` can be
checked against it.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models

# OpenSkill's defaults: a new player is mu 25, sigma 25/3, so mu - 3 sigma starts at 0.
MU = 25.0
SIGMA = 25.0 / 3
# Shown rating = CENTRE + SCALE * (mu - 3 sigma): everyone starts at 1500, and the initial
# uncertainty (one sigma) is worth 200 points, the width of a chess rating class.
CENTRE = 1500
SCALE = 200 / SIGMA
PROVISIONAL_GAMES = 10


def ordinal(mu: float, sigma: float) -> float:
    """The conservative estimate: 99.7% sure the player is at least this strong."""
    return mu - 3 * sigma


def shown(mu: float, sigma: float) -> int:
    return round(CENTRE + SCALE * ordinal(mu, sigma))


class Rating(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="ratings")
    kind = models.CharField(max_length=32)
    mu = models.FloatField(default=MU)
    sigma = models.FloatField(default=SIGMA)
    ordinal = models.FloatField(default=0.0)  # mu - 3 sigma, kept for the leaderboard's order
    games = models.PositiveIntegerField(default=0)
    updated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "kind"], name="rating_unique_user_kind")]
        indexes = [models.Index(fields=["kind", "-ordinal", "-games", "user"], name="rating_leaderboard")]

    def __str__(self):
        return f"{self.user_id} {self.kind} {self.rating}"

    @property
    def rating(self) -> int:
        return shown(self.mu, self.sigma)

    @property
    def provisional(self) -> bool:
        return self.games < PROVISIONAL_GAMES

    def set(self, mu: float, sigma: float, when) -> None:
        self.mu, self.sigma, self.ordinal = mu, sigma, ordinal(mu, sigma)
        self.games += 1
        self.updated_at = when


class RatingChange(models.Model):
    """One seat of one rated game: the rating before and after it."""

    # db_index=False: the unique (game, seat) index serves every lookup by game.
    game = models.ForeignKey("games.Game", on_delete=models.CASCADE, related_name="rating_changes", db_index=False)
    seat = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="rating_changes")
    kind = models.CharField(max_length=32)
    rank = models.PositiveSmallIntegerField()  # the finishing rank the result gave
    mu_before = models.FloatField()
    sigma_before = models.FloatField()
    mu_after = models.FloatField()
    sigma_after = models.FloatField()
    games = models.PositiveIntegerField()  # the player's rated games of this kind, this one included
    finished_at = models.DateTimeField()

    class Meta:
        # (game, seat) unique: a game is applied once, whoever asks again.
        constraints = [models.UniqueConstraint(fields=["game", "seat"], name="rating_change_unique_seat")]
        indexes = [models.Index(fields=["user", "kind", "finished_at"], name="rating_change_history")]

    @property
    def before(self) -> int:
        return shown(self.mu_before, self.sigma_before)

    @property
    def after(self) -> int:
        return shown(self.mu_after, self.sigma_after)

    @property
    def delta(self) -> int:
        return self.after - self.before
