"""The club's URLs and two yardsticks: a bare logged-in view (what every logged-in request pays:
session and member) and a view that reads neither (what Django alone costs)."""

from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponse
from django.urls import include, path


def bare(request):
    return HttpResponse(f"ok {request.user.pk}")


@login_not_required
def no_session(request):
    return HttpResponse("ok")


urlpatterns = [
    path("bare/", bare),
    path("nosession/", no_session),
    path("", include("cardclub.urls")),
]
