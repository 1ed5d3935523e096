"""The API's throttles on pages: the same budgets (api.throttles), a 429 page when one is spent."""

from __future__ import annotations

from django.shortcuts import render

from api.throttles import AnonThrottle, AuthThrottle


def _refused(request, throttle, what: str):
    """A 429 page when ``throttle`` refuses this request (``what``: what there were too many of), or None."""
    if throttle.allow_request(request, None):
        return None
    wait = int(throttle.wait() or 60)
    response = render(request, "registration/locked_out.html", {
        "detail": f"Too many {what} from your address. Try again in {max(1, round(wait / 60))} minutes.",
        "reading": isinstance(throttle, AnonThrottle)}, status=429)
    response["Retry-After"] = str(wait)
    return response


def over_auth_budget(request, what: str):
    """The sign-in budget per address (AuthThrottle) for a page's post: a 429 page, or None."""
    return _refused(request, AuthThrottle(), what) if request.method == "POST" else None


def over_stranger_budget(request):
    """A public page read by someone not signed in counts against the API's budget for strangers,
    per address (AnonThrottle; players are not counted): a 429 page, or None."""
    return _refused(request, AnonThrottle(), "pages read")
