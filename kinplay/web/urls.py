from django.contrib.auth import views as auth_views
from django.urls import path

from kinplay.web import views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("signup/", views.signup, name="signup"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("settings/", views.settings_page, name="settings"),
    path("settings/token/", views.settings_token, name="settings-token"),
    path("settings/email/<str:token>/", views.settings_email_confirm, name="settings-email-confirm"),
    path("settings/vacation/", views.settings_vacation, name="settings-vacation"),
    path("games/new/", views.new_game, name="new-game"),
    path("games/<id:pk>/", views.game_page, name="game"),
    path("games/<id:pk>/act/", views.act, name="game-act"),
    path("games/<id:pk>/resign/", views.resign, name="game-resign"),
    path("games/<id:pk>/join/", views.join, name="game-join"),
    path("games/<id:pk>/standing/", views.standing, name="game-standing"),
    path("games/<id:pk>/accept/", views.accept, name="game-accept"),
    path("games/<id:pk>/decline/", views.decline, name="game-decline"),
]
