from django.urls import path

from kinplay.ratings import views

urlpatterns = [
    path("ratings/", views.leaderboards, name="leaderboards"),
    path("ratings/<str:kind>/", views.leaderboard, name="leaderboard"),
    path("players/<str:name>/", views.player, name="player"),
]
