"""DRF's content negotiation, with the usual request answered without parsing its Accept header."""

from rest_framework.negotiation import DefaultContentNegotiation

# What clients send when they want JSON (or anything): DRF would pick the first renderer for these.
USUAL = frozenset({"", "*/*", "application/json"})


class ContentNegotiation(DefaultContentNegotiation):
    """An Accept header of ``*/*``, ``application/json`` or none, without a ``?format=``, gets
    the first renderer (JSON), as DefaultContentNegotiation decides; any other request is left
    to it (the browsable API, ``; indent=``, a 406)."""

    def select_renderer(self, request, renderers, format_suffix=None):
        accept = request.META.get("HTTP_ACCEPT", "")
        if accept in USUAL and format_suffix is None and self.settings.URL_FORMAT_OVERRIDE not in request.query_params:
            return renderers[0], renderers[0].media_type
        return super().select_renderer(request, renderers, format_suffix)
