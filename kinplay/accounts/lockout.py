"""The sign-in lockout (django-axes): after LOGIN_FAILURE_LIMIT failed sign-ins of a name from an
address, the next attempt is refused (429 with Retry-After, as JSON from the API and as a page
in the browser) until the cool-off ends, even with the right password."""

from django.conf import settings
from django.http import JsonResponse
from django.shortcuts import render


def locked_out(request, original_response=None, credentials=None):
    seconds = int(settings.AXES_COOLOFF_TIME.total_seconds())
    minutes = max(1, round(seconds / 60))
    detail = f"Too many failed sign-ins. Try again in {minutes} minutes."
    if request.path.startswith("/api/"):
        response = JsonResponse({"error": "throttled", "detail": detail}, status=429)
    else:
        response = render(request, "registration/locked_out.html", {"detail": detail, "minutes": minutes}, status=429)
    response["Retry-After"] = str(seconds)
    return response


def failure_limit(request, credentials=None) -> int:
    """settings.AXES_FAILURE_LIMIT. Axes compares the failures with its limit twice: before an
    attempt (locked once there are this many) and right after counting a failed one (which it
    then answers with the lockout itself). The failure that reaches LOGIN_FAILURE_LIMIT must be
    answered as a failure and only the attempt after it refused, so while axes is counting (it
    has just set ``axes_failures_since_start`` on the request) the limit is one more."""
    counting = getattr(request, "axes_failures_since_start", None) is not None
    return settings.LOGIN_FAILURE_LIMIT + (1 if counting else 0)
