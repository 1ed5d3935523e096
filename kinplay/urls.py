from django.contrib import admin
from django.urls import include, path, register_converter

from kinplay.clocks.views import scheduling
from kinplay.params import IdConverter
from kinplay.web import health

register_converter(IdConverter, "id")  # <id:pk>: a database id (api/urls.py, web/urls.py)
handler404 = "api.errors.page_not_found"
handler500 = "api.errors.server_error"

urlpatterns = [
    # docs/deploy.md#health: a load balancer asks ready, a monitor scheduling too
    path("health/live", health.live, name="health-live"),
    path("health/ready", health.ready, name="health-ready"),
    path("health/scheduling", scheduling, name="health-scheduling"),
    path("api/", include("api.urls")),
    path("admin/", admin.site.urls),
    path("anymail/", include("kinplay.notifications.webhooks")),  # inbound mail webhooks: moves by email (closed without a secret)
    path("mail/", include("kinplay.notifications.unsubscribe")),  # one-click unsubscribe (RFC 8058): no login, no CSRF
    path("tournaments/", include("kinplay.tournaments.urls")),
    path("leagues/", include("kinplay.leagues.urls")),
    path("ladders/", include("kinplay.ladders.urls")),
    path("", include("kinplay.ratings.urls")),
    path("", include("kinplay.web.urls")),
]
