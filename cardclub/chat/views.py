"""The table chat's two URLs: the chat fragment (what the push, the poll and a post bring back)
and the post. Both need a logged-in member (the login middleware sends visitors away); the match
page includes the chat through ``{% table_chat %}``, so the table fragment stays free of it."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from cardclub.http import private_no_store
from games import access
from games.models import Match

from . import actions
from .forms import MessageForm
from .models import Message


def chat_context(match: Match, user, form: MessageForm | None = None, focus: bool = False):
    """What the chat shows this reader: the table's latest messages, each hidden one shown to its
    author as hidden and to everyone else as a bare line; the form for seated members."""
    shown = Message.shown_to(match.pk, user.pk, settings.CHAT_SHOWN)
    writer = actions.may_write(match, user)
    return {
        "match": match,
        "chat_messages": shown,
        "can_write": writer,
        "chat_form": (form or MessageForm()) if writer else None,
        "chat_errors": [e for errors in form.errors.values() for e in errors]
        if form is not None
        else [],
        "chat_focus": focus,
        "chat_max": settings.CHAT_MAX_LENGTH,
        "chat_poll_ms": settings.CHAT_POLL_SECONDS * 1000,
    }


@private_no_store
@require_GET
def fragment(request, pk):
    """The list of messages alone, for the page's live refresh (push or slow poll)."""
    match = access.match_for_viewer(pk, request.user)
    return TemplateResponse(request, "chat/chat.html#chat-list", chat_context(match, request.user))


@private_no_store
@require_POST
def post(request, pk):
    """Post a message: htmx gets the chat back (with the form's error, if any); a plain form
    goes back to the table, the error as a message."""
    match = access.match_for_viewer(pk, request.user)
    if all(seat.user_id != request.user.pk for seat in match.seats.all()):
        raise PermissionDenied(_("Only the members seated at this table may write in its chat."))
    form = MessageForm(request.POST)
    if match.status == Match.Status.ABANDONED:
        form.add_error(None, _("This table was abandoned: its chat is closed."))
    if form.is_valid():
        try:
            actions.post_message(match.pk, request.user, form.cleaned_data["text"])
        except actions.NotSeated as error:
            raise PermissionDenied(str(error)) from None
        except Match.DoesNotExist:
            raise Http404(_("There is no match with that number.")) from None
        except actions.ChatError as error:
            form.add_error("text", str(error))
        else:
            form = MessageForm()
    if not request.htmx:
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect(reverse("games:match", args=[match.pk]) + "#chat")
    return TemplateResponse(
        request,
        "chat/chat.html#chat",
        chat_context(match, request.user, form=form, focus=True),
    )
