from django.urls import path

from kinplay.tournaments import views

urlpatterns = [
    path("", views.tournament_list, name="tournaments"),
    path("new/", views.new_tournament, name="new-tournament"),
    path("<int:pk>/", views.tournament_page, name="tournament"),
    path("<int:pk>/join/", views.join, name="tournament-join"),
    path("<int:pk>/withdraw/", views.withdraw, name="tournament-withdraw"),
    path("<int:pk>/start/", views.start, name="tournament-start"),
    path("<int:pk>/cancel/", views.cancel, name="tournament-cancel"),
]
