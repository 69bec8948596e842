"""Ratings in the admin, for looking only: everything here is derived from the finished matches,
so the way to change it is to fix a match's result and run ``manage.py rebuild_ratings``."""

from __future__ import annotations

from django.contrib import admin

from cardclub.admin_base import ReadOnlyAdmin

from .models import HeadToHead, MatchResult, Rating


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ["user", "game", "ordinal", "mu", "sigma", "games", "wins", "provisional"]
    list_filter = ["game", "provisional"]
    search_fields = ["user__username"]
    list_select_related = ["user"]
    ordering = ["game", "provisional", "-ordinal"]


@admin.register(MatchResult)
class MatchResultAdmin(ReadOnlyAdmin):
    list_display = ["match", "user", "game", "rank", "rated", "ordinal_before", "ordinal_after"]
    list_filter = ["game", "rated"]
    search_fields = ["user__username"]
    list_select_related = ["user", "match"]
    date_hierarchy = "finished_at"


@admin.register(HeadToHead)
class HeadToHeadAdmin(ReadOnlyAdmin):
    list_display = ["user", "rival", "played", "wins", "losses", "shared"]
    search_fields = ["user__username", "rival__username"]
    list_select_related = ["user", "rival"]
