from django.urls import path

from . import views

app_name = "notifications"

urlpatterns = [
    path("", views.notification_list, name="list"),
    path("bell/", views.bell, name="bell"),
    path("read/", views.mark_all_read, name="mark_all_read"),
    path("<id:pk>/", views.open_notification, name="open"),
    path("unsubscribe/<str:token>/", views.unsubscribe, name="unsubscribe"),
]
