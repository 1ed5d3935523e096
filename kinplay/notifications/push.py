"""Web Push: a second delivery of the outbox's notifications, to each browser a player subscribed.

A notification that may be pushed (``GROUPS``) gets one more outbox row per subscription of its
player (``Outbox.PUSH``, written by ``services.queue`` with the email's row, or alone for a line of
table talk: ``services.notify_chat``), relayed like an email:
claimed, held while the player is at the table, retried with backoff. ``send`` encrypts the payload
for the browser (RFC 8291, aes128gcm) and signs a VAPID JWT (RFC 8292) with pywebpush; a push
service that answers 404 or 410 says the subscription is gone, and it is deleted. Off while no
VAPID key pair is configured (settings.VAPID_*).
"""

from __future__ import annotations

import binascii
import json
import logging
from base64 import urlsafe_b64decode
from urllib.parse import urlsplit

from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from pywebpush import WebPushException, webpush

from games import selectors
from kinplay.notifications.models import Outbox, PushChoice, PushSubscription

log = logging.getLogger("kinplay.notifications")

# What a player switches on and off in Settings: a group of outbox kinds each.
GROUPS = {
    "turn": ("When it is my turn", (Outbox.YOUR_TURN,)),
    "reminder": ("When a move is due soon", (Outbox.REMINDER,)),
    "game_over": ("When a game is over", (Outbox.GAME_OVER,)),
    "invitation": ("Invitations, and games called off before they start",
                   (Outbox.INVITATION, Outbox.INVITE_DECLINED, Outbox.INVITE_EXPIRED, Outbox.PLAYER_LEFT,
                    Outbox.GAME_CANCELLED)),
    "chat": ("When another player writes in a game's table talk", (Outbox.CHAT,)),
}
ORGANISED = "organised"  # the kinds other apps register (pushed_with): a round, a season starts ...
GROUPS[ORGANISED] = ("Tournaments and leagues: a round or season starts, ends soon, is over", ())
GROUP_OF = {kind: group for group, (_, kinds) in GROUPS.items() for kind in kinds}


def pushed_with(group: str, kinds) -> None:
    """Other apps' kinds of email (tournaments, leagues) that are pushed too, switched by ``group``:
    they register them when their app is ready, as they register their composers."""
    GROUP_OF.update(dict.fromkeys(kinds, group))

TTL = 24 * 3600  # seconds a push service keeps a push for a phone that is off: a day-old turn is stale
TIMEOUT = 10  # seconds: a push service that hangs delays the queue, not for ever
GONE = (404, 410)  # RFC 8030 §7.3: the subscription has expired or was withdrawn


def enabled() -> bool:
    return bool(settings.VAPID_PRIVATE_KEY and settings.VAPID_PUBLIC_KEY)


def groups_on(user) -> list[str]:
    off = PushChoice.objects.filter(user_id=user.pk).values_list("off", flat=True).first() or []
    return [g for g in GROUPS if g not in off]


def rows_for(rows: list[Outbox]) -> list[Outbox]:
    """One push row per subscription of each row's player who wants that kind (one query each for
    the subscriptions and the choices of every player the rows name)."""
    rows = [r for r in rows if r.kind in GROUP_OF and r.channel == Outbox.EMAIL]
    if not rows or not enabled():
        return []
    users = {r.user_id for r in rows}
    subs: dict[int, list[PushSubscription]] = {}
    for sub in PushSubscription.objects.filter(user_id__in=users).order_by("pk"):
        subs.setdefault(sub.user_id, []).append(sub)
    if not subs:  # the usual case: nobody the rows name has a subscription
        return []
    off = dict(PushChoice.objects.filter(user_id__in=subs).values_list("user_id", "off"))
    return [Outbox(channel=Outbox.PUSH, subscription=sub, kind=r.kind, game=r.game, user=r.user, version=r.version,
                   detail=r.detail, games=r.games)
            for r in rows if GROUP_OF[r.kind] not in off.get(r.user_id, [])
            for sub in subs.get(r.user_id, [])]


# ---------------------------------------------------------------- the player's choices


def _key(value, length: int, name: str) -> str:
    try:
        raw = urlsafe_b64decode(str(value) + "=" * (-len(str(value)) % 4))
    except (binascii.Error, ValueError):
        raise ValidationError(f"{name} is not base64url.") from None
    if len(raw) != length:
        raise ValidationError(f"{name} must be {length} bytes.")
    return str(value)


def parse(data) -> dict:
    """A browser's PushSubscription.toJSON(), checked: an https endpoint (a push service; never one
    of our own machines) and keys of the sizes RFC 8291 gives them."""
    if not isinstance(data, dict) or not isinstance(data.get("keys"), dict):
        raise ValidationError("Send the browser's subscription: {endpoint, keys: {p256dh, auth}}.")
    endpoint = data.get("endpoint")
    if not isinstance(endpoint, str) or urlsplit(endpoint).scheme != "https" or not urlsplit(endpoint).hostname \
            or len(endpoint) > 2000:
        raise ValidationError("The endpoint must be a push service's https URL.")
    p256dh = _key(data["keys"].get("p256dh", ""), 65, "keys.p256dh")
    try:  # a point on P-256, or every push to it would fail to encrypt
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), urlsafe_b64decode(p256dh + "=" * (-len(p256dh) % 4)))
    except ValueError:
        raise ValidationError("keys.p256dh is not a P-256 public key.") from None
    return {"endpoint": endpoint, "p256dh": p256dh, "auth": _key(data["keys"].get("auth", ""), 16, "keys.auth")}


@transaction.atomic
def subscribe(user, *, endpoint: str, p256dh: str, auth: str) -> PushSubscription:
    """This browser pushes to ``user`` from now on. A browser has one subscription: one that pushed
    to another account (someone else signed in on it before) now pushes to this one only."""
    sub, _ = PushSubscription.objects.update_or_create(endpoint=endpoint,
                                                       defaults={"user": user, "p256dh": p256dh, "auth": auth})
    return sub


def unsubscribe(user, endpoint: str) -> bool:
    """Only the player's own subscription: another's endpoint changes nothing."""
    return bool(PushSubscription.objects.filter(user=user, endpoint=endpoint).delete()[0])


def summary(user) -> dict | None:
    """What Settings shows: the key a browser subscribes with, each kind and whether it is on, how
    many browsers push to the player. None while push is off."""
    if not enabled():
        return None
    on = groups_on(user)
    return {"public_key": settings.VAPID_PUBLIC_KEY, "devices": PushSubscription.objects.filter(user_id=user.pk).count(),
            "groups": [{"name": g, "label": label, "on": g in on} for g, (label, _) in GROUPS.items()]}


def choose(user, on: list[str]) -> None:
    PushChoice.objects.update_or_create(user=user, defaults={"off": [g for g in GROUPS if g not in on]})


# ---------------------------------------------------------------- sending


LAST_BACK = 20  # events looked through for the last lines a seat may see
LAST_LINES = 2  # a move's line and the one after it ("alice played 7 of cups. You to play.")
BODY_MAX = 200  # characters: a phone shows two or three lines


def last_line(game, seat, version: int) -> str:
    """The newest log lines up to ``version`` as ``seat`` may see them, said to its player ("You …")."""
    names = selectors.seat_names(game)
    lines = selectors.log_lines(game, seat, after=max(0, version - LAST_BACK), upto=version, names=names)
    texts = [line["text"] if seat is None else selectors.said_to(line["text"], names[seat], names)
             for line in lines[-LAST_LINES:]]
    return clipped(" ".join(texts))


def clipped(text: str) -> str:
    """At most ``BODY_MAX`` characters, cut with an ellipsis."""
    return text if len(text) <= BODY_MAX else text[:BODY_MAX - 1] + "…"


def send(row: Outbox, message: dict) -> bool:
    """Push ``message`` (services.compose_push) to the row's subscription; False when there is none any more (the push service said
    it is gone, or it was withdrawn since): the row is done with. Other failures raise, for the
    relay's retry."""
    # withdrawn since the row was written (or answered 404/410 for an earlier row)?
    sub = PushSubscription.objects.filter(pk=row.subscription_id).first() if row.subscription_id else None
    if sub is None:
        Outbox.objects.filter(pk=row.pk).update(sent_at=timezone.now(), claimed_at=None,
                                                error="not sent: the browser unsubscribed")
        return False
    data = json.dumps(message, ensure_ascii=False)
    try:
        webpush(sub.info, data, vapid_private_key=settings.VAPID_PRIVATE_KEY,
                vapid_claims={"sub": settings.VAPID_SUBJECT}, ttl=TTL, timeout=TIMEOUT,
                # Topic (RFC 8030 §5.4): a second attempt of the row (a relay that died after sending)
                # replaces the first while the push service still holds it, instead of showing twice.
                headers={"Urgency": "normal", "Topic": f"outbox-{row.pk}"})
    except WebPushException as exc:
        if exc.status_code not in GONE:
            raise
        sub.delete()  # the row keeps its history: subscription is SET_NULL
        Outbox.objects.filter(pk=row.pk).update(sent_at=timezone.now(), claimed_at=None,
                                                error=f"not sent: the push service said the subscription is gone ({exc.status_code})")
        log.info("push subscription %s of %s is gone (%s): deleted", sub.pk, row.user, exc.status_code)
        return False
    return True
