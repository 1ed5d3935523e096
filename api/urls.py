from django.urls import path
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from api import leagues, ratings, tournaments, views

urlpatterns = [
    path("accounts/register/", views.register),
    path("accounts/token/", views.token),
    path("accounts/vacation/", views.vacation),
    path("kinds/", views.kind_list),
    path("games/", views.game_list),
    path("games/<id:id>/", views.game_detail),
    path("games/<id:id>/join/", views.game_join),
    path("games/<id:id>/accept/", views.game_accept),
    path("games/<id:id>/decline/", views.game_decline),
    path("games/<id:id>/leave/", views.game_leave),
    path("games/<id:id>/cancel/", views.game_cancel),
    path("games/<id:id>/actions/", views.game_action),
    path("games/<id:id>/events/", views.game_events),
    path("games/<id:id>/chat/", views.game_chat),
    path("games/<id:id>/resign/", views.game_resign),
    path("ratings/<str:kind>/", ratings.leaderboard),
    path("players/<str:name>/", ratings.player),
    path("games/<id:id>/standing/", views.game_standing),
    path("tournaments/", tournaments.tournament_list),
    path("tournaments/<id:id>/", tournaments.tournament_detail),
    path("tournaments/<id:id>/join/", tournaments.tournament_join),
    path("tournaments/<id:id>/withdraw/", tournaments.tournament_withdraw),
    path("tournaments/<id:id>/start/", tournaments.tournament_start),
    path("tournaments/<id:id>/cancel/", tournaments.tournament_cancel),
    path("leagues/", leagues.league_list),
    path("leagues/<id:id>/", leagues.league_detail),
    path("leagues/<id:id>/signup/", leagues.league_signup),
    path("leagues/<id:id>/leave/", leagues.league_leave),
    path("leagues/<id:id>/seasons/<int:n>/", leagues.league_season),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="schema"), name="api-redoc"),
]
