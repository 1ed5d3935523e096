from django.contrib import admin
from django.urls import include, path

from kinplay.clocks.views import health

urlpatterns = [
    path("health", health, name="health"),
    path("api/", include("api.urls")),
    path("admin/", admin.site.urls),
    path("anymail/", include("anymail.urls")),  # inbound mail webhooks: moves by email
    path("", include("kinplay.ratings.urls")),
    path("", include("kinplay.web.urls")),
]
