"""django-axes' admin of login attempts, with its one action behind the delete permission.

axes offers "clean up expired attempts" to anyone who may see the list (it declares no
permission), and its handler reads the time of the request's own login attempt, which only a
login request has: the action failed with a 500 from the admin. Here it needs the permission to
delete attempts, runs with no attempt time (the cool-off then counts back from now) and says
what it did in the member's language.
"""

from __future__ import annotations

from axes.admin import AccessAttemptAdmin as AxesAccessAttemptAdmin
from axes.models import AccessAttempt
from django.contrib import admin
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext


class AccessAttemptAdmin(AxesAccessAttemptAdmin):
    @admin.action(description=_("Clean up expired attempts"), permissions=["delete"])
    def cleanup_expired_attempts(self, request, queryset):
        request.axes_attempt_time = None
        count = self.handler.clean_expired_user_attempts(request=request)
        self.message_user(
            request,
            ngettext(
                "%(n)d expired login attempt removed.",
                "%(n)d expired login attempts removed.",
                count,
            )
            % {"n": count},
        )


# axes registers its admin only with AXES_ENABLE_ADMIN (on by default); it is installed first.
if admin.site.is_registered(AccessAttempt):
    admin.site.unregister(AccessAttempt)
    admin.site.register(AccessAttempt, AccessAttemptAdmin)
