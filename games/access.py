"""'Get this match for this user' in one place: 404 for what does not exist, 403 for what the
user may not do. Views call these instead of querying matches themselves."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404
from django.utils.translation import gettext as _

from games import versions
from games.models import Match


def match_for_viewer(match_id: int, user=None) -> Match:
    """Any member may watch a match: what they see is the spectator's view, which holds no
    hidden card. A private table, though, exists only for its seated and invited members: for
    any other ``user`` it is a 404, as if there were none. (Without ``user``: the caller has
    checked, e.g. an action that refuses strangers itself.)"""
    match = Match.read_with_rules(match_id)
    if match is None:
        raise Http404(_("There is no match with that number."))
    match.read_seats()
    if user is not None and not match.visible_to(user):
        raise Http404(_("There is no match with that number."))
    return match


def match_to_show(match_id: int, user=None, key: versions.Key | None = None) -> Match:
    """The match as a table shows it, to whom :func:`match_for_viewer` shows it, read once
    per committed version per process (``games.versions``). ``key``: the match's id, version
    and ``updated_at`` when the caller has just read them from its row."""
    key = key or versions.current_key(match_id)
    match = versions.kept(key) if key is not None else None
    if match is None:
        match = match_for_viewer(match_id)
        versions.keep(match)
    if user is not None and not match.visible_to(user):
        raise Http404(_("There is no match with that number."))
    return match


# The parameters of a table's poll; any other (Scout's score sheet, a step of its Scout & Show)
# changes what is drawn.
_POLL_PARAMS = frozenset({"v", "s"})


def spectators_drawing_key(match: Match, seat, params) -> versions.Key | None:
    """The key under which this request's table and seats may be drawn once per version and
    given to every other spectator (``games/templatetags/drawn_once.py``), or ``None``.

    Only a spectator's (``seat`` is ``None``) of a match being played, asked with no other
    parameters (``params``) than a poll's. Every spectator is shown the spectator's view, which
    holds no hidden card. A seat is shown its own hand and choices, so its drawing is never
    shared. A clocked match's drawing is given for :func:`spectators_drawing_fresh_for` only.
    """
    if seat is not None or match.status != Match.Status.PLAYING:
        return None
    if not set(params) <= _POLL_PARAMS:
        return None
    return versions.key_of(match)


# How long a spectators' drawing of a clocked match may be given. Its clocks are drawn as of
# the drawing, each with the server's time it was drawn at (``data-server-now``), from which
# static/js/clock.js counts the drawing's age off, up to 3 seconds: a drawing given later
# than that would show a running clock slow. Every spectator's page fetches a version within
# a fraction of a second of its push, so one drawing still serves nearly all of them.
CLOCKED_DRAWING_SECONDS = 2.0


def spectators_drawing_fresh_for(match: Match) -> float | None:
    """Seconds for which a spectators' drawing of ``match`` may be given (``None``: for as long
    as its version is the match's): a clock's time is drawn as of the drawing."""
    return CLOCKED_DRAWING_SECONDS if match.has_clock else None


def match_by_invite(token: str, user=None) -> Match:
    """The match of an invitation link; a member who opens a private table's link is invited
    to it from then on (it opens for them, and they may take a free seat)."""
    try:
        match = Match.objects.select_related("variant").get(invite_token=token)
    except Match.DoesNotExist:
        raise Http404(_("That invitation link is not valid.")) from None
    match.read_seats()
    if match.private and user is not None and not match.visible_to(user):
        with transaction.atomic():
            locked = Match.objects.select_for_update().get(pk=match.pk)
            locked.invited = [*(locked.invited or []), user.pk]
            locked.save(update_fields=["invited"])
        match.invited = locked.invited
    return match


def finished_match_for_replay(match_id: int, user=None) -> Match:
    """A replay opens every hand, so only a match that is over may be replayed."""
    match = match_for_viewer(match_id, user)
    if match.status == Match.Status.ABANDONED:
        raise PermissionDenied(
            _("This table was abandoned before its match started: there is nothing to replay.")
        )
    if not match.is_over or match.state is None:
        raise PermissionDenied(_("A match can be replayed once it is over."))
    return match
