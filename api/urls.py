from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from api import tournaments, views

urlpatterns = [
    path("accounts/register/", views.register),
    path("accounts/token/", views.token),
    path("accounts/vacation/", views.vacation),
    path("kinds/", views.kind_list),
    path("games/", views.game_list),
    path("games/<int:id>/", views.game_detail),
    path("games/<int:id>/join/", views.game_join),
    path("games/<int:id>/accept/", views.game_accept),
    path("games/<int:id>/decline/", views.game_decline),
    path("games/<int:id>/actions/", views.game_action),
    path("games/<int:id>/events/", views.game_events),
    path("games/<int:id>/resign/", views.game_resign),
    path("tournaments/", tournaments.tournament_list),
    path("tournaments/<int:id>/", tournaments.tournament_detail),
    path("tournaments/<int:id>/join/", tournaments.tournament_join),
    path("tournaments/<int:id>/withdraw/", tournaments.tournament_withdraw),
    path("tournaments/<int:id>/start/", tournaments.tournament_start),
    path("tournaments/<int:id>/cancel/", tournaments.tournament_cancel),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
]
