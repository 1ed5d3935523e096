"""DRF's token check in one query, loading only what a request uses of the player: every API
request makes it, so the ORM builds its statement once (kinplay.infra.sql.lookup_statement).
A request about one game (a move, a resignation, the game itself) reads that game in the same
round trip (``GameTokenAuthentication``, ``game_of``).

Nothing of it is kept between requests: a token replaced or deleted (the settings page's "new
token", a new password) or a player deactivated is refused by every web process from the next
request on; the game is read as it is now, like any other read of it."""

from django.contrib.auth import get_user_model
from rest_framework import authentication, exceptions

from games.models import Game
from games.store import game_with_seats, game_with_seats_after
from kinplay.infra import sql

# The rest of the player's fields load on first use (the admin, the settings page).
FIELDS = ("id", "username", "email", "is_active")
READ = "kinplay_game_read"  # where GameTokenAuthentication leaves the game it read on the request


class TokenAuthentication(authentication.TokenAuthentication):
    """``Authorization: Token <key>`` as DRF reads it: the player joined to the token, rather
    than DRF's token row with the whole player."""

    def authenticate_credentials(self, key):
        return self.accept(sql.one(get_user_model(), FIELDS, "auth_token__key", key), key)

    @staticmethod
    def accept(user, key):
        if user is None:
            raise exceptions.AuthenticationFailed("Invalid token.")
        if not user.is_active:
            raise exceptions.AuthenticationFailed("User inactive or deleted.")
        return user, key


class GameTokenAuthentication(TokenAuthentication):
    """The token check of a view about the game its address names (``<id:id>``): the player and
    the game, with its seats, in one statement (games.store.game_with_seats_after). The view takes
    the game with ``game_of``; nothing of it is kept past the request."""

    def authenticate(self, request):
        self.request = request  # a new instance for each request (DRF's get_authenticators)
        return super().authenticate(request)

    def authenticate_credentials(self, key):
        game_id = (self.request.parser_context or {}).get("kwargs", {}).get("id")
        if game_id is None:
            return super().authenticate_credentials(key)
        user_model = get_user_model()
        row, game = game_with_seats_after(sql.lookup_statement(user_model, FIELDS, "auth_token__key", key), game_id)
        user = None if row is None else sql.instance(user_model, FIELDS, row)
        accepted = self.accept(user, key)
        setattr(self.request, READ, game)
        return accepted


def read_with_token(request, game_id) -> Game | None:
    """Game ``game_id`` with its seats as the token check read it (GameTokenAuthentication);
    None when it did not (a session's request, no such game)."""
    game = getattr(request, READ, None)
    return game if game is not None and game.pk == game_id else None


def game_of(request, game_id) -> Game:
    """Game ``game_id`` with its seats: as the token check read it, else read now
    (Game.DoesNotExist when there is none)."""
    return read_with_token(request, game_id) or game_with_seats(game_id)
