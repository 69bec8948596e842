from django.contrib import admin

from cardclub.admin_base import ReadOnlyAdmin

from .models import Notification


@admin.register(Notification)
class NotificationAdmin(ReadOnlyAdmin):
    """Read-only: a notification is a record of what the site told a member."""

    list_display = [
        "created_at",
        "user",
        "kind",
        "match",
        "fixture__round",
        "read_at",
        "emailed_at",
    ]
    list_filter = ["kind", ("read_at", admin.EmptyFieldListFilter)]
    search_fields = ["user__username"]
    list_select_related = ["user", "match", "fixture__round"]
    raw_id_fields = ["user", "match", "fixture"]
    date_hierarchy = "created_at"
