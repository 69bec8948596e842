"""The club's URLs mounted under /mounted/ (test_kept_reverse)."""

from django.urls import include, path

urlpatterns = [path("mounted/", include("cardclub.urls"))]
