from django.contrib.auth import views as auth_views
from django.urls import path

from kinplay.web import views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("lobby/live/", views.lobby_live, name="lobby-live"),
    path("signup/", views.signup, name="signup"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("settings/", views.settings_page, name="settings"),
    path("settings/token/", views.settings_token, name="settings-token"),
    path("settings/vacation/", views.settings_vacation, name="settings-vacation"),
    path("games/new/", views.new_game, name="new-game"),
    path("rules/<slug:slug>/", views.rules_page, name="rules"),
    path("games/<int:pk>/", views.game_page, name="game"),
    path("games/<int:pk>/act/", views.act, name="game-act"),
    path("games/<int:pk>/resign/", views.resign, name="game-resign"),
    path("games/<int:pk>/join/", views.join, name="game-join"),
    path("games/<int:pk>/standing/", views.standing, name="game-standing"),
    path("games/<int:pk>/live/", views.live, name="game-live"),
    path("games/<int:pk>/chat/", views.chat_post, name="game-chat"),
    path("games/<int:pk>/rematch/", views.rematch_post, name="game-rematch"),
    path("games/<int:pk>/accept/", views.accept, name="game-accept"),
    path("games/<int:pk>/decline/", views.decline, name="game-decline"),
]
