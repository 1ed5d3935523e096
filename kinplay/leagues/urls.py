from django.urls import path

from kinplay.leagues import views

urlpatterns = [
    path("", views.league_list, name="leagues"),
    path("new/", views.new_league, name="new-league"),
    path("<id:pk>/", views.league_page, name="league"),
    path("<id:pk>/signup/", views.signup, name="league-signup"),
    path("<id:pk>/leave/", views.leave, name="league-leave"),
]
