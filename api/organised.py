"""What the tournament and league endpoints share: an event stream an organiser creates, shown
whole on its detail page and after every action (join, leave, start ...), 404 when unknown."""

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.decorators import api_view
from rest_framework.response import Response

from api.errors import documented, error
from api.serializers import valid
from games.services import BadRequest, Unprocessable


class Organised:
    """The views of one kind of organised stream (``model``, shown by ``present(row, user)``)."""

    def __init__(self, noun, model, present, out):
        self.noun, self.model, self.present, self.out = noun, model, present, out

    def load(self, pk):
        return get_object_or_404(self.model.objects.select_related("organiser"), pk=pk)

    def respond(self, pk, user, code=status.HTTP_200_OK):
        """The stream as ``user`` sees it now (read again: an action has just changed it)."""
        return Response(self.present(self.load(pk), user), status=code)

    def create(self, request, serializer, create):
        """POST to the list: a signed-in organiser's settings, validated by ``serializer`` and
        handed to ``create`` (the service) as keyword arguments; settings left unset are left out."""
        if not request.user.is_authenticated:
            return error("not_authenticated", f"Sign in to organise a {self.noun}.", status.HTTP_401_UNAUTHORIZED)
        data = settings_of(serializer, request.data)  # each setting as the schema says: else a 400
        try:
            row = create(organiser=request.user, **data)
        except BadRequest as exc:  # settings that do not fit together (a table size the kind refuses ...)
            raise Unprocessable(str(exc)) from None
        return self.respond(row.pk, request.user, status.HTTP_201_CREATED)

    def action(self, fn, verb, *errors):
        """POST /{id}/<verb>/: ``fn(pk, user)`` (a service), then the stream as the caller sees it."""

        @extend_schema(request=None, responses={200: self.out, **documented(*errors)})
        @api_view(["POST"])
        def view(request, id):
            try:
                fn(self.load(id).pk, request.user)
            except BadRequest as exc:  # no body to be wrong: the stream's state refuses it (full, started ...)
                return error("conflict", str(exc), status.HTTP_409_CONFLICT)
            return self.respond(id, request.user)

        view.__name__ = view.cls.__name__ = f"{self.noun}_{verb}"
        return view


def settings_of(serializer, data) -> dict:
    """An organiser's settings as ``serializer`` validates them, ready for the service's keyword
    arguments: settings left unset are left out. The API and the organisers' pages
    (kinplay.web.organise) both go through here; DRF's ValidationError when a field is wrong."""
    out = {k: v for k, v in valid(serializer, data).items() if v is not None}
    if isinstance(out.get("points"), list):  # whole numbers stay whole
        out["points"] = [int(x) if float(x).is_integer() else x for x in out["points"]]
    for key, value in out.items():  # nested serializers give OrderedDicts
        if isinstance(value, dict):
            out[key] = dict(value)
    return out
