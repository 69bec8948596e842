from __future__ import annotations

from django import template

register = template.Library()


@register.inclusion_tag("social/rematch.html", takes_context=True)
def rematch_panel(context, match, seats, my_seat):
    """The finished match's "Play again": the offer, who said yes, the answers this member may
    give, and the link to the new match once it started. Redrawn with the table on every
    version of the old match (each answer makes one: see cardclub/social/rematch.py)."""
    from cardclub.social.models import Rematch
    from cardclub.social.rematch import can_offer

    # The request that ended the match draws it without a query: no offer can exist yet.
    rematch = None
    if not getattr(match, "ended_just_now", False):
        rematch = Rematch.objects.filter(match=match).select_related("new_match").first()
    me = my_seat.user_id if my_seat is not None else None
    names = {seat.user_id: seat.display_name for seat in seats if seat.user_id}
    waiting = []
    if rematch is not None and rematch.is_open:
        waiting = [name for pk, name in names.items() if pk not in rematch.accepted]
    return {
        "match": match,
        "rematch": rematch,
        "open": rematch is not None and rematch.is_open,
        "started": rematch is not None and rematch.status == Rematch.Status.STARTED,
        "may_offer": me is not None and can_offer(match),
        "i_said_yes": rematch is not None and me in (rematch.accepted or []),
        "accepted_names": [
            names[pk] for pk in (rematch.accepted if rematch else []) if pk in names
        ],
        "waiting_names": waiting,
        "ended_by": names.get(rematch.ended_by_id) if rematch is not None else None,
        "me": me,
        "csrf_token": context.get("csrf_token"),
    }
