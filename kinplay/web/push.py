"""The installable web app (manifest, service worker) and the Settings page's Web Push controls:
thin views over kinplay.notifications.push."""

from __future__ import annotations

import json

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from kinplay.notifications import push

THEME = "#4f3fd1"  # base.html's theme-color


@require_GET
def manifest(request):
    body = {
        "name": "kinplay", "short_name": "kinplay",
        "description": "Board games at your own pace: by web, by email, by API.",
        "id": "/", "start_url": "/", "scope": "/", "display": "standalone",
        "background_color": "#ffffff", "theme_color": THEME,
        "icons": [
            {"src": static("kinplay-logo.svg"), "sizes": "any", "type": "image/svg+xml"},
            {"src": static("icon-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("icon-512.png"), "sizes": "512x512", "type": "image/png"},
            {"src": static("icon-512-maskable.png"), "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
        ],
    }
    return JsonResponse(body, content_type="application/manifest+json")


@require_GET
def service_worker(request):
    """At the site's root, so that its scope is every page."""
    response = HttpResponse(render_to_string("web/sw.js", {"icon": static("icon-192.png")}),
                            content_type="text/javascript")
    response["Cache-Control"] = "no-cache"  # a new version is taken at the next visit
    return response


def _signed_in(request) -> JsonResponse | None:
    if not request.user.is_authenticated:
        return JsonResponse({"error": "Sign in first."}, status=403)
    return None


def _json(request) -> dict:
    try:
        data = json.loads(request.body or b"{}")
    except (ValueError, UnicodeDecodeError):
        raise ValidationError("The body must be JSON.") from None
    if not isinstance(data, dict):
        raise ValidationError("The body must be a JSON object.")
    return data


@require_POST
def subscribe(request):
    """This browser's subscription (PushSubscription.toJSON()), always for the player signed in."""
    refused = _signed_in(request)
    if refused:
        return refused
    try:
        fields = push.parse(_json(request))
    except ValidationError as exc:
        return JsonResponse({"error": exc.messages[0]}, status=400)
    push.subscribe(request.user, **fields)
    return JsonResponse({"subscribed": True, "kinds": push.groups_on(request.user)}, status=201)


@require_POST
def unsubscribe(request):
    refused = _signed_in(request)
    if refused:
        return refused
    try:
        endpoint = _json(request).get("endpoint")
    except ValidationError as exc:
        return JsonResponse({"error": exc.messages[0]}, status=400)
    if not isinstance(endpoint, str):
        return JsonResponse({"error": "Send the endpoint to unsubscribe."}, status=400)
    return JsonResponse({"unsubscribed": push.unsubscribe(request.user, endpoint)})


@login_required
@require_POST
def choose(request):
    """Which kinds of push the player wants (Settings' checkboxes)."""
    on = request.POST.getlist("push")
    unknown = [g for g in on if g not in push.GROUPS]
    if unknown:
        return HttpResponse(f"Unknown kind of notification: {unknown[0]}", status=400, content_type="text/plain")
    push.choose(request.user, on)
    messages.success(request, "Your phone notification choices are saved.")
    return redirect(reverse("settings") + "#push")
