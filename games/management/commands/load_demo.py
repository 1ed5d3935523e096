"""Demo users and games for `make run`: safe to run again (nothing is duplicated).

Their passwords are in the README, so they are for a development machine only: the command
refuses unless DEBUG is on or it is told so (``--public-passwords``, which `make run` passes
on the embedded default database only)."""

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from rest_framework.authtoken.models import Token

from games import services
from games.engine import clone
from games.models import Game
from games.registry import get, kinds
from games.rng import Rng
from games.store import load_state

USERS = [("alice", "alice-plays-kin"), ("bob", "bob-plays-kin"), ("charlie", "charlie-plays-kin")]


class Command(BaseCommand):
    help = "Create the demo users (alice, bob, charlie) and demo games, and print the logins."

    def add_arguments(self, parser):
        parser.add_argument("--public-passwords", action="store_true",
                            help="create the demo players although DEBUG is off (their passwords are public)")

    def handle(self, **opts):
        if not (settings.DEBUG or opts["public_passwords"]):
            raise CommandError("load_demo creates players whose passwords are published in the README: it runs "
                               "with DEBUG on, or with --public-passwords on a machine nobody else can reach.")
        User = get_user_model()
        users = {}
        for name, password in USERS:
            user = User.objects.filter(username=name).first()
            if user is None:
                user = User.objects.create_user(name, f"{name}@example.com", password)
            users[name] = user
            Token.objects.get_or_create(user=user)
        if not Game.objects.exists() and kinds():
            self._games(users)
        self.stdout.write("\n  Demo logins (username / password):")
        for name, password in USERS:
            self.stdout.write(f"    {name:8} / {password}")

    def _games(self, users):
        slug = "knonsters" if "knonsters" in kinds() else next(iter(kinds()))
        kind = get(slug)
        n = max(kind.rules.MIN_PLAYERS, min(3, kind.rules.MAX_PLAYERS))
        people = [{"user": u} for u in ("alice", "bob", "charlie")[:n]]
        friends = services.create_game(creator=users["alice"], kind=slug, seats=people)
        # Seating bob and charlie invited them: the demo accepts on their behalf so the game runs.
        for seat in friends.seats.filter(invited=True).select_related("user"):
            services.accept_invitation(friends.pk, seat.user)
        # A few moves in, so the game is visibly under way.
        for _ in range(4):
            friends.refresh_from_db()
            if friends.status != Game.ACTIVE or not friends.to_act:
                break
            seat = friends.to_act[0]
            state = load_state(friends)
            action = kind.bots.heuristic_bot(clone(state), seat, Rng(friends.seed, f"demo:{friends.version}"))
            services.act(friends.pk, seat, action=action)
        bots = [{"user": "alice"}] + [{"bot": "heuristic"}] * (kind.rules.MIN_PLAYERS - 1)
        services.create_game(creator=users["alice"], kind=slug, seats=bots)
        services.create_game(creator=users["bob"], kind=slug, seats=[{"user": "bob"}] + [{}] * (kind.rules.MIN_PLAYERS - 1))
        # And one invitation for alice to answer in her lobby.
        services.create_game(creator=users["charlie"], kind=slug, seats=[{"user": "charlie"}, {"user": "alice"}]
                             + [{"bot": "heuristic"}] * (kind.rules.MIN_PLAYERS - 2))
        self.stdout.write(f"  Demo games of {kind.name}: one between friends, one against bots, one open to join, "
                          "and charlie's invitation to alice.")
        self._finished(users, slug, kind)

    def _finished(self, users, slug, kind):
        """Two rated games played to the end, so the leaderboard and player pages have a story."""
        for a, b in (("alice", "bob"), ("bob", "charlie")):
            game = services.create_game(creator=users[a], kind=slug, seats=[{"user": a}, {"user": b}])
            services.accept_invitation(game.pk, users[b])
            for _ in range(2000):
                game.refresh_from_db()
                if game.status != Game.ACTIVE:
                    break
                seat = game.to_act[0]
                action = kind.bots.heuristic_bot(clone(load_state(game)), seat, Rng(game.seed, f"demo:{game.version}"))
                services.act(game.pk, seat, action=action)
        self.stdout.write("  Two finished rated games: see the ratings at /ratings/.")
