from django.contrib.auth import views as auth_views
from django.urls import path

from kinplay.web import forms, push, views

urlpatterns = [
    path("", views.lobby, name="lobby"),
    path("lobby/live/", views.lobby_live, name="lobby-live"),
    path("signup/", views.signup, name="signup"),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True, authentication_form=forms.SignInForm),
         name="login"),
    path("logout/", views.LogoutView.as_view(), name="logout"),
    path("settings/", views.settings_page, name="settings"),
    path("settings/token/", views.settings_token, name="settings-token"),
    path("settings/email/pending/", views.settings_email_pending, name="settings-email-pending"),
    path("settings/email/<str:token>/", views.settings_email_confirm, name="settings-email-confirm"),
    path("settings/vacation/", views.settings_vacation, name="settings-vacation"),
    path("settings/push/", push.choose, name="settings-push"),
    path("settings/push/subscribe/", push.subscribe, name="push-subscribe"),
    path("settings/push/unsubscribe/", push.unsubscribe, name="push-unsubscribe"),
    # The installable app: a manifest, and the service worker at the root (its scope: every page).
    path("manifest.webmanifest", push.manifest, name="manifest"),
    path("sw.js", push.service_worker, name="service-worker"),
    # Password change and reset by email: Django's own views, in our page (registration/password_page.html).
    path("password/change/", views.PasswordChangeView.as_view(**views.PASSWORD_PAGES["change"]), name="password_change"),
    path("password/change/done/", auth_views.PasswordChangeDoneView.as_view(**views.PASSWORD_PAGES["change_done"]),
         name="password_change_done"),
    path("password/reset/", views.PasswordResetView.as_view(**views.PASSWORD_PAGES["reset"]), name="password_reset"),
    path("password/reset/sent/", auth_views.PasswordResetDoneView.as_view(**views.PASSWORD_PAGES["reset_done"]),
         name="password_reset_done"),
    path("password/reset/<uidb64>/<token>/", views.PasswordResetConfirmView.as_view(**views.PASSWORD_PAGES["reset_confirm"]),
         name="password_reset_confirm"),
    path("password/reset/done/", auth_views.PasswordResetCompleteView.as_view(**views.PASSWORD_PAGES["reset_complete"]),
         name="password_reset_complete"),
    path("games/new/", views.new_game, name="new-game"),
    path("rules/<slug:slug>/", views.rules_page, name="rules"),
    path("games/<id:pk>/", views.game_page, name="game"),
    path("games/<id:pk>/act/", views.act, name="game-act"),
    path("games/<id:pk>/resign/", views.resign, name="game-resign"),
    path("games/<id:pk>/join/", views.join, name="game-join"),
    path("games/<id:pk>/standing/", views.standing, name="game-standing"),
    path("games/<id:pk>/live/", views.live, name="game-live"),
    path("games/<id:pk>/chat/", views.chat_post, name="game-chat"),
    path("games/<id:pk>/rematch/", views.rematch_post, name="game-rematch"),
    path("games/<id:pk>/accept/", views.accept, name="game-accept"),
    path("games/<id:pk>/decline/", views.decline, name="game-decline"),
    path("games/<id:pk>/leave/", views.leave, name="game-leave"),
    path("games/<id:pk>/cancel/", views.cancel, name="game-cancel"),
]
