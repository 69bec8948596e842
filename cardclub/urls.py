from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.urls import include, path
from django.views.i18n import set_language

from cardclub import (
    converters,  # noqa: F401  (registers <id:…> and the others)
    views,
)
from cardclub.accounts import views as account_views

urlpatterns = [
    path("", views.home, name="home"),
    path("favicon.ico", views.favicon),
    path("accounts/", include("cardclub.accounts.urls")),
    path("members/<username:username>/", account_views.member, name="member"),
    # Visitors choose their language before they have an account.
    path("i18n/setlang/", login_not_required(set_language), name="set_language"),
    path("play/", include("games.urls")),
    path("ratings/", include("cardclub.ratings.urls")),
    path("leagues/", include("cardclub.leagues.urls")),
    path("notifications/", include("cardclub.notifications.urls")),
    path("chat/", include("cardclub.chat.urls")),
    path("social/", include("cardclub.social.urls")),
    path("admin/", admin.site.urls),
]

# Styled error pages in the member's language; the 500 page never needs the database.
handler400 = "cardclub.views.bad_request"
handler403 = "cardclub.views.permission_denied"
handler404 = "cardclub.views.page_not_found"
handler500 = "cardclub.views.server_error"
