"""What a locked-out login gets (django-axes calls this): 429 with Retry-After, as JSON from
the API and as a page in the browser."""

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
