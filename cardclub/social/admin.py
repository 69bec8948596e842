from django.contrib import admin

from cardclub.admin_base import ReadOnlyAdmin

from .models import Challenge, Rematch


@admin.register(Rematch)
class RematchAdmin(ReadOnlyAdmin):
    """Read-only: a record of an offer to play a match again and its answers."""

    list_display = ["match", "offer", "status", "offered_by", "created_at", "new_match"]
    list_filter = ["status"]
    list_select_related = ["match", "offered_by", "new_match"]
    raw_id_fields = ["match", "offered_by", "ended_by", "new_match"]


@admin.register(Challenge)
class ChallengeAdmin(ReadOnlyAdmin):
    """Read-only: a record of a challenge and its answer."""

    list_display = ["created_at", "challenger", "challenged", "seat", "variant", "status", "match"]
    list_filter = ["status"]
    search_fields = ["challenger__username", "challenged__username"]
    list_select_related = ["challenger", "challenged", "variant", "match"]
    raw_id_fields = ["challenger", "challenged", "match", "lead", "ended_by"]
    date_hierarchy = "created_at"
