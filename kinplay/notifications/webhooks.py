"""The anymail webhooks, closed until ANYMAIL_WEBHOOK_SECRET is set.

Without the shared secret anyone could post "an email from grace" to the inbound webhook, so
every anymail endpoint answers 404 and does nothing until the secret is configured (anymail
then requires it as HTTP basic auth: without it, or with another, a 401). A body the
provider's parser cannot read is a 400 with the API's error shape, never a 500.
"""

import functools
import json
import logging

from anymail import urls as anymail_urls
from anymail.exceptions import (
    AnymailConfigurationError,
    AnymailError,
    AnymailImproperlyInstalled,
)
from anymail.utils import get_anymail_setting, get_request_basic_auth
from django.http import JsonResponse
from django.urls import URLPattern
from django.utils.crypto import constant_time_compare

log = logging.getLogger("kinplay.notifications")


def _closed_until_secret(view):
    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        secret = get_anymail_setting("webhook_secret", default=None)  # read as anymail reads it
        if not secret:
            return JsonResponse({"error": "not_found", "detail": "Inbound mail webhooks are not enabled."}, status=404)
        if not _authorised(request, secret):
            answer = JsonResponse({"error": "not_authenticated", "detail": "The webhook's credentials are wrong."},
                                  status=401)
            answer["WWW-Authenticate"] = 'Basic realm="anymail"'
            return answer
        if request.method == "POST" and not _readable(request):
            return JsonResponse({"error": "bad_request", "detail": "The webhook body is empty or not valid JSON."},
                                status=400)
        try:
            return view(request, *args, **kwargs)
        except (AnymailImproperlyInstalled, AnymailConfigurationError):  # e.g. SES without boto3: not set up here
            return JsonResponse({"error": "not_found", "detail": "This provider is not set up on this server."}, status=404)
        except (ValueError, KeyError, TypeError, AttributeError, IndexError, AnymailError, json.JSONDecodeError) as exc:
            log.warning("anymail webhook %s: unreadable body (%s)", request.path, exc)
            return JsonResponse({"error": "bad_request", "detail": "The webhook body could not be read."}, status=400)

    # CSRF exemption and the like live on the view function: keep them
    wrapped.csrf_exempt = getattr(view, "csrf_exempt", False)
    return wrapped


def _authorised(request, secret) -> bool:
    """The request's basic auth is one of the secrets, compared as anymail compares them (it
    checks again): a wrong secret is told so, whatever the body."""
    given = get_request_basic_auth(request)
    secrets = [secret] if isinstance(secret, str) else list(secret)
    return given is not None and any(constant_time_compare(given, s) for s in secrets)


def _readable(request) -> bool:
    """A body worth handing to the provider's parser: not empty, and JSON that parses to
    something when it says it is JSON (form posts, e.g. SendGrid's, are left to anymail)."""
    if not request.body.strip():
        return False
    if request.content_type != "application/json":
        return True
    try:
        return bool(json.loads(request.body))
    except (ValueError, RecursionError):
        return False


urlpatterns = [
    URLPattern(p.pattern, _closed_until_secret(p.callback), p.default_args, p.name)
    for p in anymail_urls.urlpatterns
]
app_name = getattr(anymail_urls, "app_name", None)
