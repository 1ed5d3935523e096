"""Long lists in pages that are still JSON arrays (GitHub's style): ``?limit=`` and ``?cursor=``
in, ``Link: <...>; rel="next"`` (RFC 8288) and ``X-Total-Count`` out, so a client that reads the
array as before gets the first page and one that follows ``next`` gets every item.

A cursor, not an offset: it names the last item shown (its sort key), so a game created or a
tournament finished between two requests neither repeats nor skips an item on the next page.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from drf_spectacular.utils import OpenApiParameter
from rest_framework.response import Response

from games.selectors import capped_count
from games.services import BadRequest
from kinplay.params import natural

# Each <game> on a page is its state loaded and its view worked out (about 3.6 KB of JSON): a
# page's time is its length, so the default keeps a page quick; follow the Link for more.
DEFAULT_LIMIT = 25
MAX_LIMIT = 500  # a page of games is one state load each: this bounds a request's work and size
TOTAL = "X-Total-Count"
# Lists longer than this have no X-Total-Count (GitLab's API leaves its totals out the same way):
# counting costs a walk over every item, which the pages are there to spare.
COUNTED = 1000
_CURSOR = re.compile(r"[0-9]{1,18}(\.[0-9]{1,18})*")



def integer(minimum: int, maximum: int) -> dict:
    """A query parameter's schema: a whole number the server takes anywhere in [minimum, maximum]."""
    return {"type": "integer", "minimum": minimum, "maximum": maximum}


def limit_parameter(default: int = DEFAULT_LIMIT, what: str = "items per page") -> OpenApiParameter:
    return OpenApiParameter("limit", integer(1, MAX_LIMIT), description=f"{what}, 1 to {MAX_LIMIT} (default {default})")


LINK = OpenApiParameter("Link", str, OpenApiParameter.HEADER, response=[200],
                        description='<url>; rel="next" (RFC 8288) while there is a next page; absent on the last one')


def parameters(parts: int) -> list[OpenApiParameter]:
    """A keyset list's query and headers; its cursor is ``parts`` numbers joined by dots."""
    number = "[0-9]{1,18}"
    return [
        limit_parameter(),
        OpenApiParameter("cursor", {"type": "string", "pattern": "^" + r"\.".join([number] * parts) + "$"},
                         description='where the page starts: take it from the Link header\'s rel="next" '
                                     "(it names the last item of the page before)"),
        LINK,
        OpenApiParameter(TOTAL, int, OpenApiParameter.HEADER, response=[200],
                         description=f"how many items the whole list has (every page); absent when it has more than {COUNTED}"),
    ]


def limit_of(request, default: int = DEFAULT_LIMIT) -> int:
    raw = request.query_params.get("limit")
    if raw is None:
        return default
    limit = natural(raw, maximum=MAX_LIMIT)
    if not limit:
        raise BadRequest(f"limit must be a number from 1 to {MAX_LIMIT}.")
    return limit


def cursor_of(request, parts: int) -> tuple[int, ...] | None:
    """The ``cursor`` of the query string: the key of the last item already seen (``parts``
    numbers), or None for the first page."""
    raw = request.query_params.get("cursor")
    if raw is None:
        return None
    if not _CURSOR.fullmatch(raw) or raw.count(".") != parts - 1:
        raise BadRequest('cursor is not one this list gave: take it from the Link header\'s rel="next".')
    return tuple(int(x) for x in raw.split("."))


def respond(request, items: Sequence, present: Callable[[Any], dict], *, limit: int, total: int | None,
            key: Callable[[Any], Iterable[int]]) -> Response:
    """The page: the first ``limit`` of ``items`` (the caller fetched one more, to know whether a
    next page exists), each ``present``-ed; its Link to the page after the last one's ``key``;
    the total when it was counted (``COUNTED``)."""
    page = list(items[:limit])
    response = Response([present(x) for x in page])
    if total is not None:
        response[TOTAL] = str(total)
    if len(items) > limit:
        link_next(request, response, cursor=".".join(str(k) for k in key(page[-1])), limit=str(limit))
    return response


def link_next(request, response, **params: str) -> None:
    """The Link header to the next page: this request's query with ``params`` in place."""
    query = request.query_params.copy()
    for name, value in params.items():
        query[name] = value
    response["Link"] = f'<{request.build_absolute_uri(request.path)}?{query.urlencode()}>; rel="next"'



def newest_first(request, queryset, present: Callable[[Any], dict], parts: int = 1) -> Response:
    """A page of ``queryset`` (tournaments, leagues, open games), newest first: by id, which
    never changes, so the cursor is the last id shown (after ``parts - 1`` zeros where the list
    shares its address, and so its cursor's form, with a list keyed by more numbers)."""
    limit, after = limit_of(request), cursor_of(request, parts)
    total = capped_count(queryset, COUNTED + 1)
    rows = queryset.order_by("-pk")
    if after is not None:
        rows = rows.filter(pk__lt=after[-1])
    return respond(request, list(rows[:limit + 1]), present, limit=limit, total=total if total <= COUNTED else None,
                   key=lambda x: (0,) * (parts - 1) + (x.pk,))
