"""Admins read the tables' chats here and hide what should not stay (the author sees it hidden,
everyone else sees that a message was hidden)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from . import actions
from .models import Message


class HiddenFilter(admin.SimpleListFilter):
    title = _("hidden")
    parameter_name = "hidden"

    def lookups(self, request, model_admin):
        return [("yes", _("Hidden")), ("no", _("Shown"))]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(hidden_at__isnull=False)
        if self.value() == "no":
            return queryset.filter(hidden_at__isnull=True)
        return queryset


@admin.register(Message)
class MessageAdmin(admin.ModelAdmin):
    list_display = ["match", "author", "created_at", "text", "is_hidden", "hidden_by"]
    list_filter = [HiddenFilter, "created_at"]
    list_select_related = ["match", "author", "hidden_by"]
    search_fields = ["text", "author__username", "=match__pk"]
    date_hierarchy = "created_at"
    # What was said stays as said: an admin hides a message, never rewrites it.
    readonly_fields = ["match", "author", "text", "created_at", "hidden_at", "hidden_by"]
    actions = ["hide", "show"]

    @admin.display(boolean=True, description=_("hidden"))
    def is_hidden(self, obj):
        return obj.hidden_at is not None

    def has_add_permission(self, request):
        return False

    @admin.action(description=_("Hide the selected messages"), permissions=["change"])
    def hide(self, request, queryset):
        count = actions.hide_messages(list(queryset), by=request.user)
        self.message_user(
            request,
            ngettext("%(n)d message hidden.", "%(n)d messages hidden.", count) % {"n": count},
            messages.SUCCESS,
        )

    @admin.action(description=_("Show the selected messages again"), permissions=["change"])
    def show(self, request, queryset):
        count = actions.show_messages(list(queryset))
        self.message_user(
            request,
            ngettext("%(n)d message shown again.", "%(n)d messages shown again.", count)
            % {"n": count},
            messages.SUCCESS,
        )
