from django.apps import AppConfig

from games import events


class Config(AppConfig):
    name = "kinplay.clocks"
    label = "clocks"

    def ready(self):
        # deferred: the receivers import models, which need the app registry ready
        from kinplay.clocks import receivers

        # Connected before notifications' (INSTALLED_APPS' order): the deadline set here is the
        # one the "your turn" emails show (games/events.py).
        events.games_dealing.connect(receivers.games_dealing, dispatch_uid="clocks")
        events.games_created.connect(receivers.games_created, dispatch_uid="clocks")
        events.game_changing.connect(receivers.game_changing, dispatch_uid="clocks")
        events.invitation_answered.connect(receivers.invitation_answered, dispatch_uid="clocks")
        events.game_called_off.connect(receivers.game_called_off, dispatch_uid="clocks")
