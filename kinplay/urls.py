from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("api/", include("api.urls")),
    path("admin/", admin.site.urls),
    path("anymail/", include("kinplay.notifications.webhooks")),  # inbound mail webhooks: moves by email (closed without a secret)
    path("", include("kinplay.ratings.urls")),
    path("", include("kinplay.web.urls")),
]
