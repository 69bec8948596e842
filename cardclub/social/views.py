"""The social pages and forms: rematch answers (plain forms: they work without JavaScript,
and every page of the match hears the answer through its own stream)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.actions import ActionError, NoSuchMatch

from . import rematch as rematches
from .models import Rematch


def _offer(request) -> int | None:
    """The offer a form answers; ``None`` for a bare "Play again"; garbage refuses nothing
    more than an expired offer would (it names no offer)."""
    raw = request.POST.get("offer", "").strip()
    if not raw:
        return None
    try:
        return int(raw[:12])
    except ValueError:
        return -1


@require_POST
def play_again(request, pk):
    try:
        rematch = rematches.play_again(pk, request.user, _offer(request))
    except NoSuchMatch:
        raise Http404(_("There is no match with that number.")) from None
    except ActionError as error:
        messages.error(request, str(error))
        return redirect("games:match", pk=pk)
    if rematch.status == Rematch.Status.STARTED:
        messages.success(request, _("The rematch has started."))
        return redirect(rematch.new_match)
    messages.success(request, _("You said yes to a rematch. The others are asked."))
    return redirect("games:match", pk=pk)


@require_POST
def rematch_no(request, pk):
    offer = _offer(request)
    try:
        rematch = rematches.say_no(pk, request.user, -1 if offer is None else offer)
    except NoSuchMatch:
        raise Http404(_("There is no match with that number.")) from None
    except ActionError as error:
        messages.error(request, str(error))
    else:
        if rematch.status == Rematch.Status.WITHDRAWN:
            messages.info(request, _("You withdrew the rematch offer."))
        else:
            messages.info(request, _("You declined the rematch."))
    return redirect("games:match", pk=pk)
