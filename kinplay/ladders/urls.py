from django.urls import path

from kinplay.ladders import views

urlpatterns = [
    path("", views.ladder_list, name="ladders"),
    path("new/", views.new_ladder, name="new-ladder"),
    path("<id:pk>/", views.ladder_page, name="ladder"),
    path("<id:pk>/history/", views.history_page, name="ladder-history"),
    path("<id:pk>/join/", views.join, name="ladder-join"),
    path("<id:pk>/leave/", views.leave, name="ladder-leave"),
    path("<id:pk>/challenge/", views.challenge, name="ladder-challenge"),
]
