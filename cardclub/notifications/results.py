"""A result in words for a notification: who won, and the score or how it was won (on time,
by resignation, by forfeit), said to the member reading it ("You won…").

Built from the places of a match's seats or a fixture's (``places_of_match``,
``places_of_fixture``) when the notification is shown, in the reader's language, like every
notification's words.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.utils.translation import gettext, ngettext

RESIGNED, TIMED_OUT, FORFEITED = "resigned", "timed_out", "forfeited"


@dataclass(frozen=True)
class Place:
    user_id: int | None
    name: str
    rank: int | None
    score: int | None
    how: str = ""  # RESIGNED, TIMED_OUT, FORFEITED or ""


def places_of_match(seats) -> list[Place]:
    def how(seat) -> str:
        if seat.timed_out:
            return TIMED_OUT
        return RESIGNED if seat.resigned else ""

    return [Place(s.user_id, s.display_name, s.rank, s.score, how(s)) for s in seats]


def places_of_fixture(fixture) -> list[Place]:
    """The fixture's recorded result; how it was won comes from its match, when it had one."""
    played = {}
    if fixture.match_id is not None and fixture.match is not None:
        played = {seat.index: seat for seat in fixture.match.seats.all()}
    places = []
    for seat in fixture.seats.all():
        how, score = FORFEITED if seat.forfeited else "", seat.score
        in_match = played.get(seat.index)
        if in_match is not None and not how:
            how = places_of_match([in_match])[0].how
            score = in_match.score
        if fixture.status == "forfeit":
            score = None  # a forfeit's 0 is no game score
        places.append(Place(seat.user_id, seat.user.get_username(), seat.rank, score, how))
    return places


def _names(places) -> str:
    return ", ".join(place.name for place in places)


def outcome(places: list[Place], reader_id: int | None) -> str:
    """One sentence: the winners and the score, or how they won; '' when nobody is ranked."""
    ranked = [place for place in places if place.rank is not None]
    if not ranked:
        return gettext("Nobody won: every side forfeited.")
    winners = [place for place in ranked if place.rank == 1]
    if len(winners) == len(places):
        return gettext("First place shared: %(names)s.") % {"names": _names(winners)}
    if any(place.user_id == reader_id for place in winners):
        head = gettext("You won")
    else:
        head = ngettext("%(names)s won", "%(names)s won", len(winners)) % {"names": _names(winners)}
    losers = [place for place in ranked if place.rank != 1]
    for how in (FORFEITED, TIMED_OUT, RESIGNED):
        why = [place for place in losers if place.how == how]
        if not why:
            continue
        mine = any(place.user_id == reader_id for place in why)
        who = {"head": head, "who": _names(why)}
        if how == FORFEITED:
            return gettext("%(head)s by forfeit.") % who
        if how == TIMED_OUT:
            if mine:
                return gettext("%(head)s on time: your time ran out.") % who
            return gettext("%(head)s on time: %(who)s ran out of time.") % who
        if mine:
            return gettext("%(head)s: you resigned.") % who
        return gettext("%(head)s: %(who)s resigned.") % who
    if all(place.score is not None for place in ranked):
        ordered = sorted(ranked, key=lambda place: place.rank)
        scores = ", ".join(f"{place.name} {place.score}" for place in ordered)
        return gettext("%(head)s (%(scores)s).") % {"head": head, "scores": scores}
    return gettext("%(head)s.") % {"head": head}
