from django.contrib import admin
from django.urls import include, path, register_converter

from kinplay.clocks.views import health
from kinplay.params import IdConverter

register_converter(IdConverter, "id")  # <id:pk>: a database id (api/urls.py, web/urls.py)
handler404 = "api.errors.page_not_found"
handler500 = "api.errors.server_error"

urlpatterns = [
    path("health", health, name="health"),
    path("api/", include("api.urls")),
    path("admin/", admin.site.urls),
    path("anymail/", include("kinplay.notifications.webhooks")),  # inbound mail webhooks: moves by email (closed without a secret)
    path("tournaments/", include("kinplay.tournaments.urls")),
    path("leagues/", include("kinplay.leagues.urls")),
    path("", include("kinplay.ratings.urls")),
    path("", include("kinplay.web.urls")),
]
