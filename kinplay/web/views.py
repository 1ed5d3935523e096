"""The web pages: thin views over games.services (writes) and games.selectors (reads)."""

from __future__ import annotations

import hashlib
import logging

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied, ValidationError
from django.db.models import Exists, Max, OuterRef, Subquery
from django.http import Http404, HttpResponseNotModified, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.crypto import salted_hmac
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_POST
from rest_framework.authtoken.models import Token

from games import changes, chat, rematch, selectors, services
from games.engine import RESIGN, IllegalAction
from games.models import ChatMessage, Game, Seat
from games.registry import kinds
from games.store import VersionConflict, game_with_seats, load_states
from kinplay import params
from kinplay.accounts import selectors as account_selectors
from kinplay.accounts import services as account_services
from kinplay.accounts.models import Profile
from kinplay.clocks import vacation
from kinplay.notifications import presence
from kinplay.notifications import push as web_push
from kinplay.notifications.selectors import delivery_problem, quiet_hold
from kinplay.ratings.selectors import rating_changes
from kinplay.tournaments.selectors import names_of_games
from kinplay.web import forms, limits, rules_pages
from kinplay.web.board import DESCRIPTION_ID, drawn
from kinplay.web.templatetags.kinplay_web import duration

log = logging.getLogger("kinplay.web")

LOG_EVENTS = 300
FINISHED_SHOWN = 12
# The games whose rules ask players to answer out of turn (to_act entries of kind "window"):
# their page offers the standing answer.
WINDOW_KINDS = {"kenta", "kinapa", "knonsters"}

STATUS_LABELS = {
    Game.WAITING: "Waiting for players",
    Game.ACTIVE: "In play",
    Game.FINISHED: "Finished",
    Game.ABORTED: "Cancelled",  # before it started: by its creator, a decline, or nobody left
}


# ---------------------------------------------------------------- accounts


def signup(request):
    if request.user.is_authenticated:
        return redirect("lobby")
    refused = limits.over_auth_budget(request, "sign-ups")  # no trying names in bulk
    if refused:
        return refused
    form = forms.SignUpForm(request.POST or None)
    # Where the sign-in page was to lead (a game page shared with a friend who has no account yet)
    back = request.POST.get("next") or request.GET.get("next") or ""
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}, require_https=request.is_secure()):
        back = ""
    user = form.save() if request.method == "POST" and form.is_valid() else None
    if user is not None:
        if form.cleaned_data["time_zone"]:
            profile = Profile.of(user)
            profile.time_zone = form.cleaned_data["time_zone"]
            profile.save(update_fields=["time_zone"])
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, f"Welcome to kinplay, {user.username}! Start a game or join an open one.")
        messages.info(request, account_services.address_sent(form.cleaned_data["email"]))
        return redirect(back or "lobby")
    return render(request, "registration/signup.html", {"form": form, "next": back})


@login_required
def settings_page(request):
    profile = Profile.of(request.user)
    mail_fields = ["email_turns", "email_every", "email_on_site", "time_zone", "quiet_hours", "quiet_from", "quiet_to", "confirm_moves"]
    if request.method == "POST":
        form = forms.SettingsForm(request.POST)
        if form.is_valid():
            new_email = form.cleaned_data["email"]
            if new_email and new_email.lower() != (request.user.email or "").lower():
                # Mail goes to a new address only once its owner follows the link sent there.
                account_services.request_email_change(request.user, new_email)
                messages.info(request, f"{account_services.address_sent(new_email)} Until then they go to "
                                       f"{request.user.email or 'no address'}.")
            elif not new_email and request.user.email:
                request.user.email = ""
                request.user.save(update_fields=["email"])
            for name in mail_fields:
                if form.cleaned_data[name] not in (None, ""):
                    setattr(profile, name, form.cleaned_data[name])
            profile.save(update_fields=mail_fields)
            messages.success(request, "Your settings are saved.")
            return redirect("settings")
    else:
        form = forms.SettingsForm(initial={"email": request.user.email, **{n: getattr(profile, n) for n in mail_fields}})
    token = Token.objects.filter(user=request.user).first()
    return render(request, "web/settings.html", {
        "form": form, "token": token, "delivery_problem": delivery_problem(request.user),
        "quiet_hold": quiet_hold(request.user),
        "api_root": request.build_absolute_uri("/api/"),
        "vacation": vacation.summary(request.user),
        "pending_address": account_selectors.pending_address(request.user),
        "push": web_push.summary(request.user),
    })


@login_required
@require_POST
def settings_email_pending(request):
    """The address waiting for its confirmation (settings): send the link again, or call the change off."""
    pending = account_selectors.pending_address(request.user)
    if pending is None:
        messages.info(request, "No change of address is waiting for confirmation.")
    elif request.POST.get("do") == "cancel":
        account_services.cancel_email_change(request.user)
        messages.success(request, f"Change cancelled: your emails keep going to {request.user.email or 'no address'}.")
    else:
        account_services.request_email_change(request.user, pending["address"])
        messages.info(request, account_services.address_sent(pending["address"]))
    return redirect("settings")


@login_required
def settings_email_confirm(request, token):
    try:
        email = account_services.confirm_email_change(request.user, token)
    except ValidationError as exc:
        messages.error(request, exc.messages[0])
    else:
        messages.success(request, f"Your email address is now {email}.")
    return redirect("settings")


@login_required
@require_POST
def settings_vacation(request):
    """The vacation switch: pauses this player's clocks in friendly games (kinplay.clocks.vacation)."""
    try:
        if request.POST.get("vacation") == "on":
            profile = vacation.start(request.user)
            ends = profile.vacation_ends_at.astimezone(profile.tz)  # in the player's own time, as Settings shows it
            messages.success(request, f"Enjoy your vacation! Your clocks are paused until you come back, "
                                      f"at the latest {ends:%a %d %b %Y, %H:%M} {ends.tzname()}.")
        else:
            vacation.end(request.user)
            messages.success(request, "Welcome back! Your clocks run again, each with the time it had left.")
    except vacation.VacationRefused as exc:
        messages.error(request, str(exc))
    return redirect(reverse("settings") + "#vacation")


@login_required
@require_POST
def settings_token(request):
    replaced, _ = Token.objects.filter(user=request.user).delete()
    Token.objects.create(user=request.user)
    messages.success(request, "Your new API token is ready. Any older token no longer works." if replaced
                     else "Your API token is ready.")
    return redirect(reverse("settings") + "#api")


class LogoutView(auth_views.LogoutView):
    """Django's sign-out, saying so on the sign-in page it leads to."""

    def post(self, request, *args, **kwargs):
        response = super().post(request, *args, **kwargs)
        messages.info(request, "You are signed out.")
        return response


class PasswordResetView(auth_views.PasswordResetView):
    """Django's reset page within the sign-in budget: nobody floods an inbox with reset links."""

    def post(self, request, *args, **kwargs):
        return limits.over_auth_budget(request, "password resets") or super().post(request, *args, **kwargs)


class _EndsToken:
    """Django's password change and reset, ending the API token with the old password."""

    def form_valid(self, form):
        response = super().form_valid(form)
        if account_services.password_set(form.user):
            messages.info(self.request, "Your API token stopped working with the old password: make a new one in "
                                        "Settings if a program of yours uses it.")
        return response


class PasswordChangeView(_EndsToken, auth_views.PasswordChangeView):
    pass


class PasswordResetConfirmView(_EndsToken, auth_views.PasswordResetConfirmView):
    pass


def _password_page(heading, intro="", button="", **extra):
    return {"template_name": "registration/password_page.html",
            "extra_context": {"heading": heading, "intro": intro, "button": button}, **extra}


PASSWORD_PAGES = {
    "change": _password_page("Change your password", "Type your current password, then the new one twice.",
                             "Change password"),
    "change_done": _password_page("Password changed", "Your new password works from now on."),
    "reset": _password_page("Forgot your password?", "Type the email address of your account: we send you a link "
                            "to choose a new password.", "Send the link", form_class=forms.PasswordResetForm),
    "reset_done": _password_page("Check your email", "If an account has this address, a link to choose a new "
                                 "password is on its way. It works once."),
    "reset_confirm": _password_page("Choose a new password", "", "Save the new password"),
    "reset_complete": _password_page("Password saved", "Sign in with your new password."),
}


# ---------------------------------------------------------------- lobby


LAST_BACK = 3  # events read for a card's "last move" (a hidden move may have no line)


def _card(game, user, rows=None, state=None):
    """What the lobby shows of one game (``rows``: its recent events, ``selectors.recent_rows``;
    ``state``: its state when the lobby loaded it with the others')."""
    kind = kinds().get(game.kind)
    seats = list(game.seat_list)
    me = game.seat_of(user)
    invited = selectors.invited_to(game, user)
    return {
        "game": game,
        "wait": selectors.waiting(game, me, state=state) if game.status == Game.ACTIVE else None,
        "kind_name": kind.name if kind else game.kind,
        "status_label": STATUS_LABELS.get(game.status, game.status),
        "called_off": selectors.called_off_line(game) if game.status == Game.ABORTED else "",
        "seats": [{"name": s.name, "bot": bool(s.bot), "open": s.is_open, "you": s.index == me,
                   "to_act": game.status == Game.ACTIVE and s.index in game.to_act,
                   "winner": bool(game.result) and s.index in (game.result.get("winners") or [])}
                  for s in seats],
        "my_turn": selectors.waiting_for(game, user),
        "invited": invited,
        "choices": selectors.seat_choices(game, me) if invited else [],  # the accept form's picker
        "pending": [s.name for s in seats if s.invited] if game.status == Game.WAITING else [],
        "open_seats": sum(1 for s in seats if s.is_open),
        "won": bool(game.result) and me is not None and me in (game.result.get("winners") or []),
        "last": _last_line(game, me, rows) if game.status in (Game.ACTIVE, Game.FINISHED) else None,
    }


def _last_line(game, seat, rows=None):
    """The newest log line of a game as this seat may see it (the lobby's "last move"), said to
    its player ("You played …", not their own name)."""
    if game.version < 1:
        return None
    names = selectors.seat_names(game)
    lines = selectors.log_lines(game, seat, after=max(0, game.version - LAST_BACK), upto=game.version, names=names,
                                rows=rows)
    if not lines:
        return None
    if seat is None:
        return lines[-1]
    return dict(lines[-1], text=selectors.said_to(lines[-1]["text"], names[seat], names))


def _urgency(row):
    """Most urgent first: a running clock by its deadline, then paused or unclocked games, the
    ones that waited longest first."""
    return (row.deadline is None, row.deadline.timestamp() if row.deadline else 0, row.updated_at.timestamp())


# The lobby's sections of running games: key, title, the rows' bucket and status, and whether
# they are sorted by urgency (else the latest moved first).
LIVE_SECTIONS = [
    ("turn", "Your turn", selectors.MY_TURN, Game.ACTIVE, True),
    ("invitations", "Invitations", selectors.INVITED, Game.WAITING, False),
    ("active", "In play", selectors.RUNNING, Game.ACTIVE, True),
    ("waiting", "Waiting for players", selectors.RUNNING, Game.WAITING, False),
]
LIVE_SHOWN = 12  # cards per section of running games; the section's pages show the rest


def _live_sections(request, rows):
    """Each section of running games: (key, title, the rows of its page, how many in all, the
    number of its next page or None, of its page). The rows (``selectors.live_rows``) are
    sorted before any game is read whole, so a page costs its own cards, however many games run."""
    rows = sorted(rows, key=lambda r: (-r.updated_at.timestamp(), -r.pk))
    out = []
    for key, title, bucket, status, urgent in LIVE_SECTIONS:
        mine = [r for r in rows if r.bucket == bucket and r.status == status]
        if urgent:
            mine.sort(key=_urgency)
        page = params.natural(request.GET.get(key, "")) or 1
        shown = mine[(page - 1) * LIVE_SHOWN:page * LIVE_SHOWN]
        out.append((key, title, shown, len(mine), page + 1 if len(mine) > page * LIVE_SHOWN else None, page))
    return out


def lobby(request):
    if not request.user.is_authenticated:
        return render(request, "web/welcome.html", {"kinds": list(kinds().values())})
    presence.looked(request.user)
    running = selectors.live_rows(request.user)
    live = _live_sections(request, running)
    older = params.natural(request.GET.get("older", ""))  # the finished page: games older than this id
    over_ids = selectors.over_ids(request.user, before=older, limit=FINISHED_SHOWN + 1)
    # the cards' games, running and over, read together
    listed = selectors.games_by_id(dict.fromkeys([*(r.pk for _, _, shown, *_ in live for r in shown),
                                                  *over_ids[:FINISHED_SHOWN]]))
    over = [g for g in listed if g.is_over]
    recent = selectors.recent_rows([g for g in listed if g.status in (Game.ACTIVE, Game.FINISHED)], LAST_BACK)
    # a game waiting for the player's move tells from its state whether it is a move or an answer
    held = load_states([g for g in listed if selectors.waiting_for(g, request.user)])
    cards = {g.pk: _card(g, request.user, recent.get(g.pk), held.get(g.pk)) for g in listed}
    in_tournaments = names_of_games(cards)
    for pk, c in cards.items():
        c["tournament"] = in_tournaments.get(pk)
    # What needs the player first: their moves and answers, the soonest deadline first (an
    # invitation lapses only after days), then what waits for others.
    sections = [(key, title, [cards[r.pk] for r in shown if r.pk in cards], total, more, page)
                for key, title, shown, total, more, page in live]
    finished = [cards[g.pk] for g in over]
    sections.append(("finished", "Finished", finished, len(finished), None, 1))
    open_cards = [_card(g, request.user) for g in selectors.open_games(request.user)[:30]]
    turns = sections[0]
    return render(request, "web/lobby.html", {
        "lobby_mark": _lobby_mark(request.user, running, None if older else over),
        "sections": [s for s in sections if s[2]], "has_games": any(s[2] for s in sections),
        "my_turn_count": turns[3], "most_urgent": _most_urgent(turns[2] if turns[5] == 1 else []), "open_games": open_cards,
        "older_games": over_ids[FINISHED_SHOWN - 1] if len(over_ids) > FINISHED_SHOWN else None, "older_page": older is not None,
    })


def _most_urgent(turns):
    """Why the first game of "Your turn" is first: the one whose clock runs out soonest."""
    if not turns or turns[0]["game"].deadline is None:
        return None
    first = turns[0]
    return {"card": first, "left": selectors.time_left(first["game"])}


def _lobby_mark(user, live=None, over=None) -> str:
    """A fingerprint of everything the lobby shows of the user's own games (one query, none
    for what the page read already: ``selectors.lobby_marks``)."""
    rows = selectors.lobby_marks(user, FINISHED_SHOWN, live=live, over=over)
    return hashlib.sha256(repr(rows).encode()).hexdigest()[:20]


@login_required
def lobby_live(request):
    """What an open lobby polls: 304 while none of the player's games changed."""
    presence.looked(request.user)  # on the site: turn emails wait (presence.at_table)
    etag = f'"l{_lobby_mark(request.user)}"'
    if etag in [t.strip().removeprefix("W/") for t in request.headers.get("If-None-Match", "").split(",")]:
        response = HttpResponseNotModified()
    else:
        response = JsonResponse({"mark": etag.strip('"')[1:]})
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    return response


def _next_waiting(user, game):
    """The player's most urgent other game waiting for their move (None if there is none)."""
    waiting = [r for r in selectors.live_rows(user) if r.bucket == selectors.MY_TURN and r.pk != game.pk]
    if not waiting:
        return None
    first = next(iter(selectors.games_by_id([min(waiting, key=_urgency).pk])), None)
    if first is None:
        return None
    kind = kinds().get(first.kind)
    return {"game": first, "name": kind.name if kind else first.kind, "count": len(waiting)}


# ---------------------------------------------------------------- rules


def rules_page(request, slug):
    kind = kinds().get(slug)
    if kind is None:
        raise Http404("No such game.")
    return render(request, "web/rules.html", {
        "kind": kind, "kinds": list(kinds().values()), "summary": rules_pages.SUMMARIES.get(slug, []),
        "sections": rules_pages.card_sections(slug),
        "interpretations": mark_safe(rules_pages.interpretations(slug)),  # our own files, HTML escaped
        "rulebook_players": f"{kind.rules.MIN_PLAYERS}" if kind.rules.MIN_PLAYERS == kind.rules.MAX_PLAYERS
        else f"{kind.rules.MIN_PLAYERS}–{kind.rules.MAX_PLAYERS}",
    })


# ---------------------------------------------------------------- new game


def _kind_choices():
    return [{"slug": slug, "name": k.name, "min": k.rules.MIN_PLAYERS, "max": k.rules.MAX_PLAYERS,
             "options": forms.option_fields(k)} for slug, k in kinds().items()]


@login_required
def new_game(request):
    available = kinds()
    choices = _kind_choices()
    error, error_seat = None, None
    if request.method == "POST":
        form = forms.NewGameForm(request.POST, kinds=available)
        if form.is_valid():
            kind = available[form.cleaned_data["kind"]]
            try:
                options = forms.read_options(kind, request.POST)
                seats = forms.read_seats(request.POST, form.cleaned_data["players"], request.user)
                per_move, on_timeout = form.clock()
                game = services.create_game(creator=request.user, kind=kind.slug, options=options, seats=seats,
                                            per_move=per_move, on_timeout=on_timeout, window=form.window_seconds(),
                                            invite_only=form.cleaned_data["invite_only"], rated=form.cleaned_data["rated"],
                                            looking=True)  # the next page shows it: no "your turn" email
            except forms.OptionError as exc:
                error, error_seat = str(exc), exc.seat
            except services.BadRequest as exc:
                error = str(exc)
            except IllegalAction as exc:
                error = exc.reason
            else:
                if game.status == Game.WAITING:
                    messages.success(request, "Your game is created. It starts when every invited player has accepted "
                                              "and every open seat is taken.")
                return redirect("game", pk=game.pk)
    else:
        first = choices[0] if choices else None
        form = forms.NewGameForm(kinds=available, initial={
            "kind": request.GET.get("kind") or (first and first["slug"]),
            "players": first and first["min"], "per_move": "259200", "on_timeout": "bot",
        })
    data = request.POST if request.method == "POST" else {}
    if request.method != "POST" and request.GET.get("invite"):  # "Challenge" on a player page
        data = {"seat-2-type": "user", "seat-2-user": request.GET["invite"]}
    max_players = max([c["max"] for c in choices] or [1])
    selected_kind = form["kind"].value() or (choices[0]["slug"] if choices else "")
    seat_rows = [{
        "n": i, "type": data.get(f"seat-{i}-type", "heuristic"), "user": data.get(f"seat-{i}-user", ""),
    } for i in range(2, max_players + 1)]
    for c in choices:  # keep what was typed when the form comes back with an error
        forms.fill_options(c["options"], data if request.method == "POST" and c["slug"] == selected_kind else None)
    return render(request, "web/new_game.html", {
        "form": form, "kinds": choices, "error": error, "error_seat": error_seat, "seat_rows": seat_rows,
        "selected_kind": selected_kind, "seat_choices": forms.SEAT_CHOICES,
    }, status=400 if error or (request.method == "POST" and form.errors) else 200)


# ---------------------------------------------------------------- one game


def _game(pk):
    try:
        return game_with_seats(pk)
    except Game.DoesNotExist:
        raise Http404("No such game.") from None


@login_required
def game_page(request, pk):
    if request.method == "POST":
        return act(request, pk)
    game = _game(pk)
    kind = kinds().get(game.kind)
    if kind is None:
        raise Http404("This kind of game is not installed on this server.")
    at = _replay_point(request.GET.get("at"), game)
    data = selectors.game_for(game, request.user, at=at)
    seat = data["you"]
    names = selectors.seat_names(game)
    seen = presence.seen_version(request.user, game.pk) if at is None else 0  # the look before this one
    board, board_text = "", ""
    if game.version > 0:
        try:
            view = selectors.board_view(game, data["view"], at)  # "(out of time)", not "(resigned)"
            board, board_text = drawn(kind, view, seat, names)  # our code, from the view only, described in words
            # what changed since the last look marked (a replay marks nothing)
            board = mark_safe(changes.marked(game, request.user, board, since=seen))
        except Exception:  # a drawing bug must not hide the moves
            log.exception("render failed for game %s", game.pk)
            board, board_text = "", ""
    upto = game.version if at is None else at
    after = max(0, upto - LOG_EVENTS)  # the page shows the recent history; the API has it all
    lines = selectors.log_lines(game, seat, after=after, upto=upto, names=names)
    lines.reverse()  # each line names who did what: the acting seat of its command may be someone else
    own = changes.own_moves(game, seat, after=max(after, seen)) if at is None else set()
    for line in lines:  # never "new since you last looked": the player made it
        line["own"] = line["seq"] in own
    if at is None:
        presence.looked(request.user, game.pk, game.version)
    result = data["result"] if at is None else None  # a replay shows the game as it was then
    standings = []
    if result:
        ranks, scores, winners = result.get("ranks") or [], result.get("scores") or [], result.get("winners") or []
        rated = rating_changes(game)  # the game-over screen shows each seat's rating change
        for s in data["seats"]:
            i = s["index"]
            standings.append({
                "name": s["name"], "you": s["you"], "bot": s["bot"],
                "rank": ranks[i] if i < len(ranks) else None,
                "score": scores[i] if i < len(scores) else None, "winner": i in winners,
                "rating": rated.get(i),
            })
        standings.sort(key=lambda r: (r["rank"] is None, r["rank"] or 0))
    winners = (result or {}).get("winners") or []
    seats = [{"index": s.index, "name": s.name, "bot": s.bot, "you": s.index == seat, "open": s.is_open, "invited": s.invited,
              "to_act": game.status == Game.ACTIVE and s.index in data["to_act"], "winner": s.index in winners}
             for s in game.seat_list]
    # Resigning has its own button, with a confirmation: it is not offered among the moves.
    moves = [a for a in data["legal_actions"] if a.get("action") != RESIGN]
    explain = getattr(kind, "explain", None)
    if explain:  # every move explained where it is offered (the card's or power's text)
        moves = [dict(a, help=explain(a)) for a in moves]
    can_join = game.status == Game.WAITING and seat is None and any(s["open"] for s in seats)
    invited = selectors.invited_to(game, request.user)
    # e.g. a Kenta colour, picked when joining or accepting: the seat's own first, only the free ones
    join_choices = selectors.seat_choices(game, next(s["index"] for s in seats if s["open"])) if can_join else []
    accept_choices = selectors.seat_choices(game, seat) if invited else []
    wait = selectors.waiting(game, seat, names=names, due=False, answers=False) if at is None else {"line": "", "window": False}
    pending = [s.name for s in game.seat_list if s.invited] if game.status == Game.WAITING else []
    channels = chat.visible_channels(game, request.user)
    talk = [{"channel": c, "title": "Players" if c == ChatMessage.PLAYERS else "Spectators",
             "lines": chat.lines(game, request.user, c)} for c in channels]
    return render(request, "web/game.html", {
        "chat": talk, "chat_channel": chat.channel_of(game, request.user), "chat_mark": _chat_mark(game.pk, channels),
        "chat_max": ChatMessage.MAX_LENGTH, "seen": seen,
        "rematch": game.rematches.order_by("pk").first() if game.status == Game.FINISHED else None,
        "wait": wait, "standing": next((s["standing"] for s in data["seats"] if s["you"]), None),
        "standing_choices": Seat.STANDING, "has_windows": _has_windows(kind),
        "game": game, "g": data, "kind": kind, "seat": seat, "seats": seats, "board": board,
        "board_text": board_text, "board_description_id": DESCRIPTION_ID,
        "legend": mark_safe(getattr(kind, "legend", "")) if board else "",  # our code
        "options": _options_summary(kind, game), "lines": lines, "log_cut": after > 0, "standings": standings, "can_join": can_join, "moves": moves,
        "join_choices": join_choices, "accept_choices": accept_choices,
        "invited": invited, "pending": pending,
        "away": vacation.away_at(game),
        "creator": game.created_by.username if game.created_by_id else None,
        "can_cancel": game.status == Game.WAITING and request.user.is_authenticated and game.created_by_id == request.user.pk,
        "can_leave": game.status == Game.WAITING and seat is not None and not invited and game.created_by_id != request.user.pk,
        "long_moves": any(len(a["label"]) > 26 for a in moves),
        "confirm_moves": Profile.of(request.user).confirm_moves,
        "my_turn": selectors.waiting_for(game, request.user),
        "status_label": STATUS_LABELS.get(game.status, game.status),
        "called_off": selectors.called_off_line(game) if game.status == Game.ABORTED else "",
        "playing": seat is not None and game.status == Game.ACTIVE and at is None,
        "i_won": bool(result) and seat is not None and seat in (result.get("winners") or []),
        "next_game": _next_waiting(request.user, game) if at is None else None,
        "replay": None if at is None else _replay_steps(at, game, lines),
    })


def _replay_steps(at, game, lines):
    """The replay bar: what had just happened, as this seat saw it (``lines``: its log up to the
    point, newest first), and its links; none back from the table as dealt (every earlier point
    shows it)."""
    first = selectors.first_viewable(game)
    return {
        "last": lines[0]["text"] if lines else "",
        "at": at, "of": game.version, "previous": at - 1 if at > first else None,
        "next": at + 1 if at + 1 < game.version else None, "first": 1 if at > first else None,
    }


def _chat_mark(pk, channels) -> int:
    """The newest line of the chats the viewer reads (the page and its live poll agree on it)."""
    return ChatMessage.objects.filter(game_id=pk, channel__in=channels).aggregate(m=Max("id"))["m"] or 0


@login_required
def live(request, pk):
    """What an open game page polls: the game's version and status and the newest line of the
    chats the viewer reads (a player's page does not fetch itself again for the spectators'
    chat, which it does not show), under an ETag. An idle tab's request is answered 304 with no
    body after one query (no state, no view, no rendering); the page fetches itself again only
    on a change."""
    lines = ChatMessage.objects.filter(game_id=OuterRef("pk")).order_by("-id").values("id")
    row = (Game.objects.filter(pk=pk)
           .annotate(seated=Exists(Seat.objects.filter(game_id=OuterRef("pk"), user_id=request.user.pk)),
                     players_mark=Subquery(lines.filter(channel=ChatMessage.PLAYERS)[:1]), all_mark=Subquery(lines[:1]))
           .values("version", "status", "seated", "players_mark", "all_mark").first())
    if row is None:
        raise Http404("No such game.")
    presence.looked(request.user, pk)  # the page is open: no turn email about it for now
    channels = chat.channels_for(seated=row["seated"], over=row["status"] in Game.OVER)
    mark = (row["all_mark"] if ChatMessage.SPECTATORS in channels else row["players_mark"]) or 0
    etag = f'"g{row["version"]}-{row["status"]}-c{mark}"'
    if etag in [t.strip().removeprefix("W/") for t in request.headers.get("If-None-Match", "").split(",")]:
        response = HttpResponseNotModified()
    else:
        response = JsonResponse({"version": row["version"], "status": row["status"], "chat": mark})
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    return response


@login_required
@require_POST
def rematch_post(request, pk):
    bots = request.POST.get("with") == "bots"
    try:
        game, created = rematch.rematch(_game(pk).pk, request.user, with_bots=bots)
    except (rematch.RematchRefused, services.BadRequest, IllegalAction) as exc:
        messages.error(request, getattr(exc, "reason", None) or str(exc))
        return redirect("game", pk=pk)
    if bots:
        messages.success(request, "A new game against bots: your move when the page says so.")
    elif not created and game.created_by_id == request.user.pk:  # asked twice (a double click)
        messages.info(request, "Here is the rematch you asked for.")
    elif not created:
        messages.info(request, "Your opponent already asked for the rematch: you are in" + (
            ", and it has started!" if game.status == Game.ACTIVE else "; it starts when everyone invited has accepted."))
    elif game.status == Game.WAITING:
        messages.success(request, "Rematch! It starts when everyone invited has accepted.")
    return redirect("game", pk=game.pk)


@login_required
@require_POST
def chat_post(request, pk):
    try:
        chat.post_chat(_game(pk).pk, request.user, request.POST.get("text", ""))
    except chat.ChatRefused as exc:
        messages.error(request, str(exc))
    return redirect(reverse("game", args=[pk]) + "#chat")


def _has_windows(kind) -> bool:
    return kind.slug in WINDOW_KINDS


def _replay_point(raw, game):
    """``?at=N``: the page as this player saw it after event N; else live. A point inside the
    game's setup shows the table as dealt (there is nothing to see before)."""
    at = params.natural(raw)
    if at is None or not 1 <= at < game.version:
        return None
    at = max(at, selectors.first_viewable(game))
    return at if at < game.version else None


def _options_summary(kind, game):
    """The game's options in words, with the titles of the kind's schema: a time in words, without
    its unit in the title ("Vote window: 2 minutes"), and an empty window as what it waits for."""
    out = []
    for name, prop in kind.rules.OPTIONS_SCHEMA.get("properties", {}).items():
        value = game.options.get(name, prop.get("default"))
        title = prop.get("title") or name.replace("_", " ").capitalize()
        seconds = name.endswith("_seconds")
        if seconds:
            title = title.replace(" (seconds)", "")
        if isinstance(value, bool):
            text = "on" if value else "off"
        elif seconds and value and isinstance(value, int):
            text = duration(value)
        elif seconds and "window" in title.lower():  # an empty window lasts as long as the game's own
            text = f"as long as the reaction windows ({duration(game.window)})" if game.window else "as long as the move clock"
        elif value is None or seconds:
            text = "none"
        elif isinstance(value, list):
            text = ", ".join(str(v).replace("_", " ") for v in value)
        else:
            text = str(value).replace("_", " ")
        out.append({"title": title, "value": text})
    return out


def _version(raw):
    return params.natural(raw, maximum=2**31 - 1)


def _seat_or_403(game, user):
    seat = game.seat_of(user)
    if seat is None:
        raise PermissionDenied("You have no seat at this game, so you cannot move in it.")
    return seat


@login_required
@require_POST
def act(request, pk):
    game = _game(pk)
    seat = _seat_or_403(game, request.user)
    notation = (request.POST.get("notation") or "").strip()
    if not notation:
        messages.error(request, "Choose a move first.")
        return redirect("game", pk=pk)
    version = _version(request.POST.get("expected_version"))
    if len(notation) > services.MAX_NOTATION:
        messages.error(request, "That is not one of your moves now.")
        return redirect("game", pk=pk)
    # A double click (or a re-sent form) repeats the same command: the idempotency key makes the
    # repeat return the first one's outcome instead of a "the game moved on" warning. Keyed with
    # the server's secret: nobody can compute another player's key.
    key = None
    if version is not None:
        key = "web:" + salted_hmac("kinplay.web.move", f"{request.user.pk}:{game.pk}:{seat}:{version}:"
                                   + " ".join(notation.split()).lower(), algorithm="sha256").hexdigest()
    try:
        services.act(game.pk, seat, notation=notation, expected_version=version, idempotency_key=key)
    except IllegalAction as exc:
        messages.error(request, exc.reason)
    except VersionConflict:
        messages.warning(request, "The game moved on while you were choosing. Here is the fresh position: "
                                  "please choose again.")
    return redirect("game", pk=pk)


@login_required
@require_POST
def resign(request, pk):
    game = _game(pk)
    seat = _seat_or_403(game, request.user)
    try:
        services.resign(game.pk, seat)
    except IllegalAction as exc:
        messages.error(request, exc.reason)
    except VersionConflict:
        messages.warning(request, "The game moved on at the same moment; please try again.")
    else:
        messages.info(request, "You resigned from this game.")
    return redirect("game", pk=pk)


@login_required
@require_POST
def standing(request, pk):
    game = _game(pk)
    _seat_or_403(game, request.user)
    try:
        outcome = services.set_standing_answer(game.pk, request.user, request.POST.get("answer"))
    except services.BadRequest as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, "Saved." + (" Your open window was answered with it." if outcome else ""))
    return redirect("game", pk=pk)


@login_required
@require_POST
def join(request, pk):
    game = _game(pk)
    try:
        services.join_game(game.pk, request.user, choice=request.POST.get("choice") or None, looking=True)
    except IllegalAction as exc:
        messages.error(request, exc.reason)
    else:
        game.refresh_from_db()
        messages.success(request, "You joined the game." + (" It has started!" if game.status == Game.ACTIVE else ""))
    return redirect("game", pk=pk)


@login_required
@require_POST
def accept(request, pk):
    try:
        game = services.accept_invitation(_game(pk).pk, request.user, choice=request.POST.get("choice") or None,
                                          looking=True)  # back to the game's page: no "your turn" email
    except (IllegalAction, services.NotYourSeat) as exc:
        messages.error(request, getattr(exc, "reason", None) or str(exc))
    else:
        messages.success(request, "You accepted the invitation." + (
            " The game has started!" if game.status == Game.ACTIVE else " The game starts when every invited player has."))
    return redirect("game", pk=pk)


@login_required
@require_POST
def leave(request, pk):
    return _away_from(request, pk, services.leave_game, "You left the game before it started.")


@login_required
@require_POST
def cancel(request, pk):
    return _away_from(request, pk, services.cancel_game, "You cancelled the game; everyone at the table was told.")


@login_required
@require_POST
def decline(request, pk):
    return _away_from(request, pk, services.decline_invitation, "You declined the invitation.")


def _away_from(request, pk, service, done: str):
    """Leave, cancel or decline a game before it starts: back to the lobby, or the game page with the reason."""
    try:
        service(_game(pk).pk, request.user)
    except (IllegalAction, services.NotYourSeat) as exc:
        messages.error(request, getattr(exc, "reason", None) or str(exc))
        return redirect("game", pk=pk)
    messages.info(request, done)
    return redirect("lobby")
