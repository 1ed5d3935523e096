from django.urls import path

from kinplay.tournaments import views

urlpatterns = [
    path("", views.tournament_list, name="tournaments"),
    path("new/", views.new_tournament, name="new-tournament"),
    path("<id:pk>/", views.tournament_page, name="tournament"),
    path("<id:pk>/join/", views.join, name="tournament-join"),
    path("<id:pk>/withdraw/", views.withdraw, name="tournament-withdraw"),
    path("<id:pk>/start/", views.start, name="tournament-start"),
    path("<id:pk>/cancel/", views.cancel, name="tournament-cancel"),
]
