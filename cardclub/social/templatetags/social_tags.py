from __future__ import annotations

from django import template

register = template.Library()


@register.inclusion_tag("social/rematch.html", takes_context=True)
def rematch_panel(context, match, seats, my_seat):
    """``match``: the page's public facts of the match (games.present.PublicMatch). The finished match's "Play again": the offer, who said yes, the answers this member may
    give, and the link to the new match once it started. Redrawn with the table on every
    version of the old match (each answer makes one: see cardclub/social/rematch.py)."""
    from cardclub.social import rematch as rematches
    from cardclub.social.models import Rematch

    # The request that ended the match draws it without a query: no offer can exist yet.
    rematch = None
    if not match.ended_just_now:
        rematch = Rematch.objects.filter(match_id=match.pk).select_related("new_match").first()
    me = my_seat.user_id if my_seat is not None else None
    # An open offer with a member gone away ends as it is drawn, for every page (the write
    # makes a new version): no query while the match ended within WATCHING_WITHIN.
    present = {me} if me else set()
    if (
        rematch is not None
        and rematch.is_open
        and rematches.gone_member(match, seats, present=present) is not None
        and rematches.end_if_gone(match.pk, present=present)
    ):
        rematch = Rematch.objects.filter(match_id=match.pk).select_related("new_match").first()
    names = {seat.user_id: seat.display_name for seat in seats if seat.user_id}
    waiting = []
    if rematch is not None and rematch.is_open:
        waiting = [name for pk, name in names.items() if pk not in rematch.accepted]
    return {
        "match": match,
        "rematch": rematch,
        "open": rematch is not None and rematch.is_open,
        "started": rematch is not None and rematch.status == Rematch.Status.STARTED,
        "may_offer": me is not None and match.offers_rematch,
        "i_said_yes": rematch is not None and me in (rematch.accepted or []),
        "accepted_names": [
            names[pk] for pk in (rematch.accepted if rematch else []) if pk in names
        ],
        "waiting_names": waiting,
        "ended_by": names.get(rematch.ended_by_id) if rematch is not None else None,
        "me": me,
        # "Leave the table" while a rematch may still be offered or is waiting for answers.
        "may_leave": me is not None
        and match.offers_rematch
        and (rematch is None or rematch.status not in ("started", "left", "declined")),
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("social/lobby_challenges.html", takes_context=True)
def my_challenges(context):
    """The lobby's open challenges to and from the member, with their answers: one query on the
    challenge indexes, redrawn with the lobby's list when one is made or answered."""
    from cardclub.social.models import Challenge

    user = context["request"].user
    if not Challenge.any_open_concerning(user):
        return {"received": [], "sent": [], "user": user, "csrf_token": context.get("csrf_token")}
    rows = list(
        Challenge.objects.open()
        .concerning(user)
        .select_related("challenger", "challenged", "variant")
        .order_by("-created_at")[:20]
    )
    # A challenge naming several members: the challenger sees it once (its lead row), and
    # everyone sees who else is challenged and who has said yes (one more query, only then).
    leads = {c.lead_pk for c in rows if c.is_party}
    parties: dict[int, list] = {}
    for row in Challenge.party_of(leads) if leads else []:
        parties.setdefault(row.lead_pk, []).append(row)
    for c in rows:
        c.others = [r for r in parties.get(c.lead_pk, []) if r.challenged_id != user.pk]
    return {
        "received": [c for c in rows if c.challenged_id == user.pk],
        "sent": [c for c in rows if c.challenger_id == user.pk and c.lead_id is None],
        "user": user,
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("social/online.html", takes_context=True)
def online_list(context):
    """The lobby's "Who is online", with what each member plays (links to watch) and a link to
    challenge them."""
    from cardclub.social.presence import online_rows

    rows, more = online_rows(context["request"].user.get_username())
    return {"rows": rows, "more": more}


@register.inclusion_tag("social/member.html", takes_context=True)
def member_social(context, person):
    """On another member's profile: "online now" or "last seen …" (nothing for a member who
    hides it), and "Challenge" or why not. One read of their preferences; none on one's own."""
    from cardclub.accounts.models import Preferences
    from cardclub.social.presence import presence_of

    if person.pk == context["request"].user.pk:
        return {"show": False}
    prefs = Preferences.objects.filter(user=person).first()
    return {
        "show": True,
        "person": person,
        "presence": presence_of(prefs),
        "refuses": bool(prefs and prefs.refuse_challenges),
    }


@register.inclusion_tag("social/watchers.html")
def watchers(match, seats):
    """Who is watching this table now (members without a seat who have it open)."""
    from cardclub.social.models import Watcher

    seated = {seat.user_id for seat in seats if seat.user_id}
    names = [name for user_id, name in Watcher.names_at(match.pk) if user_id not in seated]
    return {"names": names}


@register.simple_tag
def watching_rows(matches):
    """The "being played" list, one ``<li>`` per match, from each match's summary (no seat or
    member fetched), as the lobby draws its lists."""
    from django.utils.html import format_html, format_html_join
    from django.utils.translation import gettext as _
    from django.utils.translation import ngettext

    from cardclub.http import pk_url_maker
    from games import registry
    from games.templatetags.games_tags import clock, listed_seats

    match_url, titles = pk_url_maker("games:match"), dict(registry.choices())
    watch = _("Watch")
    rows = []
    for match in matches:
        shown = match.clock_seats(seats=match.summary_seats())
        running = [info for info in shown.values() if info["running"]]
        rows.append(
            format_html(
                '<li class="panel match-row"><a href="{}"><strong>{}</strong> #{}</a>'
                ' <span>{}</span> <span class="muted">{}</span> <span class="muted">{}</span>'
                ' {} <a class="button small" href="{}">{}</a></li>',
                match_url(match.pk),
                titles[match.game],
                match.pk,
                listed_seats(match),
                ngettext("%(n)d move", "%(n)d moves", match.moves_played)
                % {"n": match.moves_played},
                ngettext("%(n)d watching", "%(n)d watching", match.spectators)
                % {"n": match.spectators},
                clock(running[0], match.clock) if running else "",
                match_url(match.pk),
                watch,
            )
        )
    return format_html_join("\n", "{}", ((row,) for row in rows))


@register.inclusion_tag("social/takeback.html", takes_context=True)
def takeback_panel(context, match, my_seat, seats):
    """At a table whose house rules allow takebacks: the standing request with its answers, or
    "Take back my last move" when this member may ask (see cardclub/social/takebacks.py)."""
    from cardclub.social.takebacks import may_ask, open_request
    from games.models import Match

    request = open_request(match.pk, match.moves_played)
    me = my_seat.user_id if my_seat is not None else None
    # Whether this member may ask needs the match itself (its log, replayed up to the move).
    may = (
        request is None
        and my_seat is not None
        and may_ask(Match.objects.get(pk=match.pk), my_seat, seats) is None
    )
    return {
        "match": match,
        "takeback": request,
        "asker": request is not None and request.asked_by_id == me,
        "answers": request is not None and me is not None and request.asked_by_id != me,
        "said_yes": request is not None and me in request.accepted,
        "may_ask": may,
        "csrf_token": context.get("csrf_token"),
    }
