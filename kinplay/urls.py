from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("api/", include("api.urls")),
    path("admin/", admin.site.urls),
    path("anymail/", include("anymail.urls")),  # inbound mail webhooks: moves by email
    path("tournaments/", include("kinplay.tournaments.urls")),
    path("", include("kinplay.web.urls")),
]
