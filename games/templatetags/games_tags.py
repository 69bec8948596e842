from __future__ import annotations

import functools

from django import template
from django.utils.html import conditional_escape, escape, format_html, format_html_join
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from cardclub.http import pk_url_maker
from cardclub.i18n_tags import language_of
from cardclub.reversing import kept_reverse
from games import registry
from games.present import DrawnOnce

register = template.Library()


def _small_card_drawer(context):
    """How this page draws a card small: the game's ``card_html`` (by default its
    ``card.html``, see ``games.contract.Presentation``). Looked up once per line."""
    draw = registry.present(context["match"].game).card_html
    return lambda card: draw(card, small=True)


@register.simple_tag
def card_sprite(game: str) -> str:
    """The drawings a game's cards refer to (its ``card_sprite``), once per full page that
    draws its cards; the fragments swapped into the page then carry only references."""
    return registry.present(game).card_sprite()


def _drawn_once(items, draw):
    """``draw(items)``, kept on ``items`` when every viewer of a version is shown them alike
    (``games.present.DrawnOnce``): drawn by the first request of the version, given back to
    the rest."""
    if not isinstance(items, DrawnOnce):
        return draw(items)
    if items.drawn is None:
        items.drawn = draw(items)  # two first requests may both draw it: the same drawing
    return items.drawn


@register.simple_tag(takes_context=True)
def small_cards(context, cards):
    """Cards drawn small, side by side, for a place that names them in words beside them (a
    move line, the "Last move" strip): one drawer per list, no template per card."""

    def drawing(cards):
        draw = _small_card_drawer(context)
        # A space between two cards, as between two inline blocks written on their own lines.
        return format_html_join(" ", "{}", ((draw(card),) for card in cards))

    return _drawn_once(cards, drawing)


def _move_line_html(line, draw) -> str:
    """``move_line``'s markup, its cards drawn by ``draw`` (see ``_small_card_drawer``)."""
    esc = conditional_escape
    who = f'<strong class="who">{esc(line["who"])}</strong> ' if line.get("who") else ""
    cards = ""
    if line.get("cards"):
        drawn = " ".join(esc(draw(card)) for card in line["cards"])
        cards = f' <span class="move-cards" aria-hidden="true">{drawn}</span>'
    badge = (
        f' <strong class="badge good">{esc(line["badge"])}</strong>' if line.get("badge") else ""
    )
    return mark_safe(f'{who}<span class="what">{esc(line["text"])}</span>{cards}{badge}')  # noqa: S308


@register.simple_tag(takes_context=True)
def move_line(context, line):
    """One move in words (a line of the game's ``present.describe_move``): who, what, the cards
    drawn small and a badge; the same on the table's last moves, the game log and the replay.

    A tag rather than an include with an include per card: the last moves are on every table
    fragment, and drawing them by includes was a fifth of a move's response.
    """
    return _move_line_html(line, _small_card_drawer(context))


@register.simple_tag(takes_context=True)
def last_move_items(context, lines):
    """The table's last moves (``last_lines``), one ``<li>`` each as ``move_line`` draws it:
    one loop and one card drawer for the list, which every fragment carries."""

    def drawing(lines):
        draw = _small_card_drawer(context)
        return mark_safe(  # noqa: S308 (move_line's markup, escaped there)
            "".join(
                f'<li class="ev-{conditional_escape(line["kind"])}">{_move_line_html(line, draw)}</li>'
                for line in lines
            )
        )

    return _drawn_once(lines, drawing)


@register.filter
def seat_name(seats, index):
    """The display name of the seat with that index (``seats`` is the match's seat list)."""
    for seat in seats:
        if seat.index == index:
            return seat.display_name
    return ""


@register.filter
def index(sequence, position):
    """``sequence[position]`` in a template (e.g. a seat's hand size)."""
    try:
        return sequence[int(position)]
    except (IndexError, TypeError, ValueError, KeyError):
        return ""


@register.filter
def times(count):
    """``range(count)``, to draw one card back per card in an opponent's hand."""
    try:
        return range(int(count))
    except (TypeError, ValueError):
        return range(0)


_ORDINALS: dict[tuple[str, int], str] = {}


def _ordinal(rank: int) -> str:
    """humanize's ``ordinal``, once per language and rank: it builds every suffix anew on each
    call, and a list of matches names dozens of ranks."""
    from django.contrib.humanize.templatetags.humanize import ordinal
    from django.utils.translation import get_language

    key = (get_language(), rank)
    if key not in _ORDINALS:
        _ORDINALS[key] = ordinal(rank)
    return _ORDINALS[key]


@register.simple_tag
def listed_seats(match, show: str = "names"):
    """A listed match's seats from its summary, in one line: ``names`` ("ana · Easy bot 2"),
    ``ranks`` (each with its place) or ``free`` (a free seat marked, for open tables).

    A tag rather than a loop in every row of the lobby's lists: the loops were a good part of
    its cost.
    """

    seats = match.summary_seats()
    if show == "free":
        free = format_html('<span class="badge">{}</span>', _("free"))
        return format_html_join(
            ", ", "{}", ((free if s.is_free else s.display_name,) for s in seats)
        )
    if show == "ranks":
        return format_html_join(
            " · ",
            "{}{}",
            ((s.display_name, f" ({_ordinal(s.rank)})" if s.rank else "") for s in seats),
        )
    return format_html_join(" · ", "{}", ((s.display_name,) for s in seats))


@register.filter
def minus(value):
    """A number with a real minus sign ("−3", not the hyphen of "-3"), as every score is written."""
    text = str(value)
    return "\u2212" + text[1:] if text.startswith("-") else text


@register.filter
def clock_text(ms, kind):
    """Time left as a clock shows it: "12:05" (or "1:02:05") on a live clock; days and hours
    ("2 d 5 h", or hours and minutes under a day) on a correspondence clock."""

    try:
        seconds = max(0, int(ms)) // 1000
    except (TypeError, ValueError):
        return ""
    if kind == "correspondence":
        days, rest = divmod(seconds, 86400)
        hours, rest = divmod(rest, 3600)
        if days:
            return _("%(days)s d %(hours)s h") % {"days": days, "hours": hours}
        return _("%(hours)s h %(minutes)s min") % {"hours": hours, "minutes": rest // 60}
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours}:{minutes:02d}:{seconds:02d}"
    return f"{minutes}:{seconds:02d}"


@register.simple_tag
def lobby_clock(match, user):
    """The clock a member's match list shows: their own while it runs, else the first running
    one (whose time the table is waiting on); ``None`` without a clock or once over. Read from
    the match's summary: a list never fetches the seats."""
    seats = match.summary_seats()
    shown = match.clock_seats(seats=seats)
    if not shown:
        return None
    mine = next((s.index for s in seats if s.user_id == user.pk), None)
    if mine in shown and shown[mine]["running"]:
        return {"kind": match.clock, "mine": True, **shown[mine]}
    running = sorted((info["ms"], index) for index, info in shown.items() if info["running"])
    if not running:
        return None
    return {"kind": match.clock, "mine": False, **shown[running[0][1]]}


@register.simple_tag
def clock(shown: dict, kind: str):
    """One seat's clock (a value of ``Match.clock_seats``): the time left as of rendering, all a
    page without JavaScript shows; static/js/clock.js counts a running one down from
    ``data-clock-ms``. A tag rather than an include: the lobby draws one per listed match."""

    running = shown["running"]
    css = f"clock clock-{kind}{' running' if running else ''}{' low' if shown['low'] else ''}"
    extra = (
        format_html(' data-clock-running="1" data-server-now="{}"', shown["at"]) if running else ""
    )
    return format_html(
        '<span class="{}" data-clock-ms="{}" data-clock-kind="{}"{}>'
        '<span class="visually-hidden">{}: </span><span class="clock-text">{}</span></span>',
        css,
        shown["ms"],
        kind,
        extra,
        _("Time left"),
        clock_text(shown["ms"], kind),
    )


@register.simple_tag(takes_context=True)
def my_match_rows(context, matches):
    """The member's live matches as the lobby and "your matches" list them, one ``<li>`` each,
    drawn from each match's summary (no seat or member is fetched). In Python rather than a
    template loop: a member in a league week has many, and the loop was most of the lobby."""

    user = context["request"].user
    match_url, titles = pk_url_maker("games:match"), dict(registry.choices())
    words = {
        "turn": format_html('<span class="badge turn">{}</span>', _("Your turn")),
        "open": format_html('<span class="badge">{}</span>', _("Waiting for players")),
        "others": format_html('<span class="badge">{}</span>', _("Waiting for the others")),
    }
    rows = []
    for match in matches:
        state = "turn" if match.my_turn else "open" if match.status == "open" else "others"
        shown = lobby_clock(match, user)
        rows.append(
            format_html(
                '<li class="panel match-row"><a href="{}"><strong>{}</strong> #{}</a>'
                ' <span class="muted">{}</span> <span>{}</span> {}{}</li>',
                match_url(match.pk),
                titles[match.game],
                match.pk,
                match.variant.name,
                listed_seats(match),
                words[state],
                clock(shown, shown["kind"]) if shown else "",
            )
        )
    return format_html_join("\n", "{}", ((row,) for row in rows))


@register.filter
def clock_rule(rules):
    """The clock of a match or of house rules in words."""
    from games.clocks import describe

    return describe(rules)


@functools.lru_cache(maxsize=8)
def _seat_words(language: str | None) -> dict[str, str]:
    """The seats panel's badges in ``language``, drawn once: every seat of every fragment
    carries one or two, and each looked the active language up again to translate it."""
    badges = {
        "you": ("badge you", _("you")),
        "bot": ("badge", _("bot")),
        "your turn": ("badge turn", _("your turn")),
        "to move": ("badge turn", _("to move")),
        "resigned": ("badge", _("resigned")),
        "lost on time": ("badge", _("lost on time")),
    }
    return {
        key: f' <span class="{css}">{escape(text)}</span>' for key, (css, text) in badges.items()
    }


@register.simple_tag(takes_context=True)
def seat_items(context, seats):
    """The seats panel's list (templates/games/match.html, partial ``seats``): one ``<li>`` per
    seat with its name, badges, clock and result.

    In Python rather than a template loop: the panel travels out of band with every move and
    poll, and its loop, a dozen conditions and translations per seat, was a sixth of drawing
    the fragment. Only the seats' public facts are read (``games.present.PublicSeat``).
    """
    my_seat, match = context.get("my_seat"), context.get("match")
    mine = my_seat.index if my_seat else None
    words = _seat_words(language_of(context))
    items = []
    for s in seats:
        me = mine is not None and s.index == mine
        css = "seat" + (" to-move" if s.to_move else "") + (" me" if me else "")
        if s.pair:
            css += f" pair-{s.pair}"
        name = escape(s.display_name)
        if s.user:
            name = f'<a href="{escape(kept_reverse("member", s.user.username))}">{name}</a>'
        parts = [f'\n<li class="{css}">{name}']
        if s.pair:
            partners = ", ".join(conditional_escape(p) for p in s.partners)
            pair = _("pair %(n)s") % {"n": s.pair}
            partnered = _("with %(names)s") % {"names": partners}
            parts.append(
                f' <span class="badge pair">{pair}</span> <span class="partner">{partnered}</span>'
            )
        if me:
            parts.append(words["you"])
        if s.is_bot:
            parts.append(words["bot"])
        if s.to_move:
            parts.append(words["your turn"] if me else words["to move"])
        if s.resigned:
            parts.append(words["resigned"])
        if s.timed_out:
            parts.append(words["lost on time"])
        if s.clock:
            parts.append(f" {clock(s.clock, match.clock)}")
        if s.rank:
            result = _("%(rank)s place") % {"rank": _ordinal(s.rank)}
            if s.score is not None:
                points = ngettext("%(shown)s point", "%(shown)s points", s.score)
                result += " · " + points % {"shown": escape(minus(s.score))}
            parts.append(f' <span class="seat-result">{result}</span>')
        parts.append("</li>")
        items.append("".join(parts))
    return mark_safe("".join(items))  # noqa: S308 (every value above is escaped)
