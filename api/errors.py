"""Every API error is {"error": code, "detail": text} with the right status (docs/api.md#conventions)."""

import sys

from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import Http404, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.views.defaults import page_not_found as page_not_found_page
from django.views.defaults import server_error as server_error_page
from drf_spectacular.utils import OpenApiResponse
from rest_framework import exceptions, status
from rest_framework.authentication import get_authorization_header
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import exception_handler

from api.parsers import TooLarge
from api.serializers import ErrorOut
from games.chat import ChatClosed, ChatRefused
from games.engine import IllegalAction
from games.models import Game
from games.services import BadRequest, IdempotencyKeyReused, NotYourSeat, Unprocessable
from games.store import VersionConflict

CODES = {
    exceptions.ParseError: "malformed",
    exceptions.ValidationError: "invalid",
    exceptions.NotAuthenticated: "not_authenticated",
    exceptions.AuthenticationFailed: "not_authenticated",
    exceptions.PermissionDenied: "forbidden",
    exceptions.NotFound: "not_found",
    exceptions.MethodNotAllowed: "method_not_allowed",
    exceptions.UnsupportedMediaType: "unsupported_media_type",
    exceptions.NotAcceptable: "not_acceptable",
    exceptions.Throttled: "throttled",
    TooLarge: "too_large",
}
# and "unavailable" (503, with Retry-After): the database cannot be reached (server_error)


def documented(*codes):
    """The error responses an endpoint lists in the OpenAPI schema (all {"error", "detail"});
    every endpoint can answer 429 (throttles)."""
    words = {400: "malformed or refused", 401: "not signed in", 403: "not allowed", 404: "not found",
             409: "the game (or account) is not in a state that allows it: an illegal move, someone moved first", 413: "body too large", 415: "a body type the API does not read (send JSON)", 422: "well-formed, but its parts do not fit together or name what does not exist",
             429: "too many requests (see Retry-After)"}
    return {c: OpenApiResponse(ErrorOut, description=words[c]) for c in (*codes, 429)}


def error(code: str, detail: str, status_code: int, **extra) -> Response:
    return Response({"error": code, "detail": detail, **extra}, status=status_code)


def handler(exc, context):
    if isinstance(exc, IllegalAction):
        return error("illegal_action", exc.reason, status.HTTP_409_CONFLICT)
    if isinstance(exc, ChatClosed):
        return error("conflict", str(exc), status.HTTP_409_CONFLICT)
    if isinstance(exc, Unprocessable):
        return error("unprocessable", str(exc), status.HTTP_422_UNPROCESSABLE_ENTITY)
    if isinstance(exc, (BadRequest, ChatRefused)):
        return error("bad_request", str(exc), status.HTTP_400_BAD_REQUEST)
    if isinstance(exc, IdempotencyKeyReused):
        return error("idempotency_key_reused", str(exc), status.HTTP_422_UNPROCESSABLE_ENTITY)
    if isinstance(exc, RequestDataTooBig):
        return error("too_large", "The request body is too large.", status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
    if isinstance(exc, NotYourSeat):
        return error("forbidden", str(exc) or "You have no seat at this game.", status.HTTP_403_FORBIDDEN)
    if isinstance(exc, VersionConflict):
        return error("version_conflict", _conflict(exc), status.HTTP_409_CONFLICT, version=exc.current)
    if isinstance(exc, (Http404, Game.DoesNotExist)):
        return error("not_found", "Not found.", status.HTTP_404_NOT_FOUND)
    response = exception_handler(exc, context)
    if response is None:
        return None
    code = next((c for cls, c in CODES.items() if isinstance(exc, cls)), "error")
    detail = response.data
    if isinstance(exc, exceptions.ValidationError):
        detail = "; ".join(_messages(detail))
    elif isinstance(detail, dict) and "detail" in detail:
        detail = str(detail["detail"])
    response.data = {"error": code, "detail": _with_hint(exc, context.get("request"), str(detail))}
    return response


def _with_hint(exc, request, detail: str) -> str:
    """DRF's words, and what to send instead where a client that read other APIs' docs trips."""
    if isinstance(exc, exceptions.UnsupportedMediaType):
        return f"{detail} Send JSON, with Content-Type: application/json."
    if isinstance(exc, exceptions.NotAuthenticated) and request is not None:
        sent = get_authorization_header(request).split()
        if sent and sent[0].lower() != b"token":  # "Bearer ...", or a bare key (never echoed)
            return ("The Authorization header holds no kinplay token: send Authorization: Token <key>, "
                    "with the token of POST /api/accounts/token/.")
    return detail


def _conflict(exc) -> str:
    if exc.sent is not None and exc.sent > exc.current:  # no race: a version the game never had
        return (f"expected_version {exc.sent} is ahead of the game, which is at version {exc.current}: "
                "send the version of the game you decided on (its \"version\").")
    return f"Someone moved first: the game is now at version {exc.current}."


def _messages(detail, path=""):
    """A serializer's errors as "field: message" lines, nested fields (a game's clock, a list's
    items) by their dotted path: "clock.per_move: Ensure this value is ..."."""
    if isinstance(detail, dict):
        for key, value in detail.items():
            if key == api_settings.NON_FIELD_ERRORS_KEY:  # about the object itself: no field to name
                yield from _messages(value, path)
            else:
                yield from _messages(value, f"{path}.{key}" if path else str(key))
    elif isinstance(detail, list) and any(isinstance(v, (dict, list)) for v in detail):
        for i, value in enumerate(detail):  # one entry per item (many=True), {} when it was fine
            yield from _messages(value, f"{path}.{i}" if path else str(i))
    elif isinstance(detail, list):
        yield f"{path}: {' '.join(map(str, detail))}" if path else " ".join(map(str, detail))
    else:
        yield f"{path}: {detail}" if path else str(detail)


UNAVAILABLE_RETRY = 5  # seconds: a database restart takes a few


def server_error(request):
    """A crash (kinplay.urls handler500): JSON under /api/, the 500 page elsewhere. Django calls
    it while handling the exception, wherever it was raised (a view, DRF, a middleware): one that
    says the database cannot be reached now (a restart, a failover) is a 503 to retry, not a crash."""
    if isinstance(sys.exc_info()[1], (OperationalError, InterfaceError)):
        return unavailable(request)
    if request.path.startswith("/api/"):
        return JsonResponse({"error": "server_error", "detail": "Something went wrong on our side; it is logged."},
                            status=500)
    return server_error_page(request)


def unavailable(request):
    if request.path.startswith("/api/"):
        answer = JsonResponse({"error": "unavailable", "detail": "The database cannot be reached just now: "
                               f"try again in {UNAVAILABLE_RETRY} seconds."}, status=503)
    else:
        answer = HttpResponse(render_to_string("503.html", {"retry": UNAVAILABLE_RETRY}), status=503)
    answer["Retry-After"] = str(UNAVAILABLE_RETRY)
    return answer


def page_not_found(request, exception):
    """No such address (kinplay.urls handler404): JSON under /api/, the 404 page elsewhere."""
    if request.path.startswith("/api/"):
        return JsonResponse({"error": "not_found", "detail": "Not found."}, status=404)
    return page_not_found_page(request, exception)
