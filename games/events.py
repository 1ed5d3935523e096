"""What happens to games, told to the apps that follow them (Django signals).

games.services sends these; clocks, notifications, ratings, tournaments and ladders connect their
receivers in their AppConfig.ready (kinplay/<app>/receivers.py). The game layer imports none of
them. Every signal is sent with ``sender=Game`` inside the transaction of the change, with
``send`` (not ``send_robust``): a receiver that fails rolls the move back.

Receivers run in the order they were connected, which is INSTALLED_APPS' order (Django calls the
apps' ``ready`` in that order): clocks, notifications, ratings, tournaments, then ladders. Two of them
depend on it and tests/games/test_events.py pins them: the clocks set ``game.deadline`` before
the "your turn" emails are composed, and ratings stamp ``finished_at`` before tournaments read
the finished game.
"""

from django.dispatch import Signal

# New games, dealt but not yet written (games.services.create_games), keywords:
#   games: every game made, Game instances without a primary key yet;
#   opened: (game, state, entries) for each game that started at once (its to-act entries).
# A receiver may set fields on the games (clocks: ``deadline``) and returns a list of rows
# (unsaved model instances that point at the games), written with one INSERT per model after the
# games' rows.
games_dealing = Signal()

# The same games, written (in create_games' transaction), keywords:
#   games: every game made; invited seats are in ``game.seat_list`` (``seat.invited``);
#   opened: (game, entries, acted, bots_owe) for each game that started at once: the to-act
#     entries, the seats bots played for while dealing, whether bot moves are still owed;
#   present: {game pk: seat} of creators looking at their game (no "your turn" email to them).
games_created = Signal()

# A game is about to change (a move, a game's start, bot moves), sent before its row is written,
# keywords:
#   game: the game with its new status, result, to_act and version (row not yet written);
#   state: the rules' state after the change; entries: the new to-act entries by seat;
#   before: the seats that were to act before; acted: the seats that acted;
#   present: the seat of the player looking at the game (None: nobody);
#   had_timers: whether the rules ran timers before the change;
#   bots_owe: bot moves are still owed, left to the worker (games.tasks.play_bots).
# A receiver may set ``game.deadline``: it is written with the row.
game_changing = Signal()

# A game just finished (its row written, same transaction), keyword: game.
game_finished = Signal()

# An invited player answered (keywords: game, seat, outcome "accepted" or "declined").
invitation_answered = Signal()

# A game that had not started was cancelled (keywords: game, why: one of Game.CALLED_OFF, by:
# the user it was called off by or because of).
game_called_off = Signal()

# A line of table talk was posted (games.chat.post_chat, in its transaction), keywords: game,
# message: the ChatMessage written (its channel says who may read it).
chat_posted = Signal()

# A seat was given back before the start (keywords: game, who: the user, expired: the invitation
# lapsed, cancelled: the game was cancelled with it, left: a seated player left).
seat_withdrawn = Signal()
