"""One-click unsubscribe (RFC 8058), as Gmail and Yahoo ask of bulk senders.

A turn email's ``List-Unsubscribe`` names two ways: the mailto of its reply address (an email
saying "unsubscribe", read by kinplay.notifications.replies) and an https URL. With
``List-Unsubscribe-Post: List-Unsubscribe=One-Click`` the mail provider POSTs to that URL
itself, with no cookie and no CSRF token: the signed token in the URL is what says who asks. A
GET (a person who opened the link) shows a button that makes the same POST; it changes nothing
by itself, since mail scanners follow links.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core import signing
from django.http import HttpResponse, HttpResponseBadRequest
from django.shortcuts import render
from django.urls import path, reverse
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods

from kinplay.accounts.models import Profile
from kinplay.notifications.models import Outbox
from kinplay.notifications.picture import site

SALT = "kinplay.notifications.unsubscribe"


def turn_mail_off(user):
    """Switch off the player's turn emails and reminders (the settings page's "Email me when it
    is my turn"), for every game."""
    Profile.of(user)  # a player without a profile row has the default, on
    Profile.objects.filter(user=user).update(email_turns=False)


def url_for(user) -> str:
    return site(reverse("mail-unsubscribe", args=[signing.Signer(salt=SALT).sign(str(user.pk))]))


def one_click(msg, row: Outbox):
    """Add the https way to an email whose composer gave it a List-Unsubscribe (the mailto)."""
    if "List-Unsubscribe" not in msg.extra_headers:
        return
    msg.extra_headers["List-Unsubscribe"] += f", <{url_for(row.user)}>"
    msg.extra_headers["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"


@csrf_exempt  # RFC 8058: the provider's POST carries no cookie and no token but the URL's
@require_http_methods(["GET", "POST"])
def unsubscribe_view(request, token: str):
    try:
        user_id = int(signing.Signer(salt=SALT).unsign(token))
    except (signing.BadSignature, ValueError):
        return HttpResponseBadRequest("This unsubscribe link is not valid.", content_type="text/plain")
    user = get_user_model().objects.filter(pk=user_id, is_active=True).first()
    if user is None:
        return HttpResponseBadRequest("This unsubscribe link is not valid.", content_type="text/plain")
    if request.method == "POST":
        turn_mail_off(user)
        return HttpResponse("Unsubscribed: no more turn emails or reminders. Switch them on again in Settings.",
                            content_type="text/plain")
    return render(request, "mail/unsubscribe.html", {"token": token})


urlpatterns = [path("unsubscribe/<str:token>/", unsubscribe_view, name="mail-unsubscribe")]
