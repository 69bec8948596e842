"""The club's URLs and a bare view: what every logged-in request pays (session and user)."""

from django.http import HttpResponse
from django.urls import include, path


def bare(request):
    return HttpResponse(f"ok {request.user.pk}")


urlpatterns = [path("bare/", bare), path("", include("cardclub.urls"))]
