from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_not_required
from django.core.paginator import Paginator
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import services
from .models import Choice, Kind, Notification, NotificationSetting
from .unsubscribe import read_token

PER_PAGE = 20


@require_GET
def notification_list(request):
    notifications = Notification.objects.filter(user=request.user).for_list()
    page = Paginator(notifications, PER_PAGE).get_page(request.GET.get("page"))
    return TemplateResponse(request, "notifications/list.html", {"page": page})


@require_GET
def bell(request):
    """The bell alone, fetched by a page whose stream heard "bell" (static/js/bell.js)."""
    response = TemplateResponse(
        request, "notifications/bell.html", {"bell_unread": services.unread_count(request.user.pk)}
    )
    response["Cache-Control"] = "private, no-store"
    return response


@require_GET
def open_notification(request, pk):
    """Mark one of the member's own notifications read and go where it leads."""
    notification = get_object_or_404(Notification.objects.for_list(), pk=pk, user=request.user)
    if notification.read_at is None:
        Notification.objects.filter(pk=pk).update(read_at=timezone.now())
        services.ring(request.user.pk)
    return redirect(notification.target_url())


@require_POST
def mark_all_read(request):
    services.mark_all_read(request.user)
    messages.success(request, _("All your notifications are marked as read."))
    return redirect("notifications:list")


@login_not_required
# A mail client's one-click unsubscribe (RFC 8058) POSTs without a session or a CSRF token; the
# signed token in the URL is the proof, and the only thing it can do is turn an e-mail off.
@csrf_exempt
@require_http_methods(["GET", "POST"])
def unsubscribe(request, token):
    found = read_token(token)
    member = None
    if found is not None:
        member = get_user_model().objects.filter(pk=found[0], is_active=True).first()
    if member is None:
        return TemplateResponse(request, "notifications/unsubscribe_invalid.html", status=400)
    kind = Kind(found[1])
    context = {"kind": kind.label, "token": token}
    if request.method == "POST":
        # E-mail off, the in-site list stays as it was (a member who had it off keeps it off).
        if NotificationSetting.choice_for(member, kind) == Choice.EMAIL:
            NotificationSetting.set_choice(member, kind, Choice.SITE)
        return TemplateResponse(request, "notifications/unsubscribed.html", context)
    return TemplateResponse(request, "notifications/unsubscribe.html", context)
