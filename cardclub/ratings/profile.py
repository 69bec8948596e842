"""What a member's profile page shows about their play: ratings with their history as an SVG
chart, recent matches, and results against the members they meet most.

Four queries whatever the member's history, each an indexed range over a few rows (the results
and head-to-head tables are kept for that), so the page stays fast for the club's busiest members.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from django.db.models import F, FilteredRelation, Q
from django.db.models.lookups import Exact
from django.utils import timezone
from django.utils.formats import date_format, get_format
from django.utils.translation import pgettext

from cardclub.http import pk_url_maker
from games import registry
from games.models import RuleVariant, Seat

from .models import HeadToHead, MatchResult, Rating
from .present import decimal_maker, member_url_maker, short_date_maker

RECENT_MATCHES = 10
RIVALS = 6

# The chart's frame, in the units of its viewBox. It is drawn at the width of its card (about
# 300 to 400 pixels) with its proportions kept, so its labels keep about the size they are
# given here (13 units: 11 to 14 pixels), where a wider frame squeezed to a phone made them 7.
CHART_WIDTH = 360
CHART_HEIGHT = 200
CHART_PAD_LEFT = 40
CHART_PAD_RIGHT = 14
CHART_PAD_TOP = 24  # room for the current rating's label
CHART_PAD_BOTTOM = 30  # room for the dates
# The chart is drawn from at most this many points: more would only make the SVG heavy and the
# query long, so a long history is charted from evenly spaced games (and always the latest).
CHART_MAX_POINTS = 150
DATE_TICKS = 4


@dataclass
class Chart:
    """An SVG line chart, every number already written as text for the viewBox, and the same
    points as rows for the table beside it."""

    points: str
    last_x: str
    last_y: str
    ticks: list[tuple[str, str]]  # (y in the viewBox, the rating it marks, localised)
    games: int
    # (x in the viewBox, the date of the game there, its text-anchor): the time axis.
    dates: list[tuple[str, str, str]] = field(default_factory=list)
    current: str = ""  # the rating now, as the card writes it, marked beside the last point
    current_y: str = ""
    rows: list[tuple[int, str, str]] = field(default_factory=list)  # (game, date, rating)
    width: int = CHART_WIDTH
    height: int = CHART_HEIGHT
    left: int = CHART_PAD_LEFT
    right: int = CHART_WIDTH - CHART_PAD_RIGHT
    bottom: int = CHART_HEIGHT - CHART_PAD_BOTTOM


def _nice_step(span: float) -> float:
    """A round step (1, 2 or 5 times a power of ten) giving about three grid lines."""
    raw = max(span, 1e-6) / 3
    magnitude = 10 ** math.floor(math.log10(raw))
    return next(magnitude * f for f in (1, 2, 5, 10) if magnitude * f >= raw)


def chart_step(games: int, limit: int = CHART_MAX_POINTS) -> int:
    """Plot every ``step``-th rated game (and always the latest), so at most about ``limit``."""
    return max(1, math.ceil(games / limit))


def _date_ticks(numbers: list[int], count: int = DATE_TICKS) -> list[int]:
    """Up to ``count`` of the plotted games, evenly spread from the first to the latest."""
    if len(numbers) <= count:
        return numbers
    return sorted({numbers[round(i * (len(numbers) - 1) / (count - 1))] for i in range(count)})


def rating_chart(points: list[tuple[int, float]], dates: dict | None = None) -> Chart | None:
    """``points`` are (rated game number, rating after it), starting with (0, the rating before
    the first game); drawn as a polyline in a fixed viewBox with a few labelled grid lines, the
    games along the bottom with the dates they were played (``dates``: game number -> when)
    and the current rating marked at the end."""
    if len(points) < 2:
        return None
    dates = dates or {}
    values = [value for _number, value in points]
    low, high = min(values), max(values)
    step = _nice_step(high - low or 1.0)
    low = (low // step) * step
    high = -((-high) // step) * step
    if high == low:
        high = low + step
    inner_w = CHART_WIDTH - CHART_PAD_LEFT - CHART_PAD_RIGHT
    inner_h = CHART_HEIGHT - CHART_PAD_TOP - CHART_PAD_BOTTOM
    games = points[-1][0]

    def x(number: int) -> float:
        return CHART_PAD_LEFT + inner_w * number / games

    def y(value: float) -> float:
        return CHART_PAD_TOP + inner_h * (high - value) / (high - low)

    separator = get_format("DECIMAL_SEPARATOR")
    ticks = []
    tick = low
    while tick <= high + step / 2:
        label = f"{round(tick, 2) + 0.0:.2f}".rstrip("0").rstrip(".")
        ticks.append((f"{y(tick):.1f}", label.replace(".", separator)))
        tick += step
    decimal, short_date = decimal_maker(1), short_date_maker()
    played = [number for number, _value in points if number in dates]
    # A day and a short month, as each language writes them ("3 Nov", "3 nov").
    day_format = pgettext("a date on the rating chart's time axis", "j M")
    axis = []
    for number in _date_ticks(played):
        # The first date starts at its game and the last ends at its own, inside the frame.
        anchor = "end" if number == games else "start" if number == played[0] else "middle"
        day = timezone.localdate(dates[number])
        axis.append((f"{x(number):.1f}", date_format(day, day_format), anchor))
    last_y = y(values[-1])
    return Chart(
        points=" ".join(f"{x(n):.1f},{y(v):.1f}" for n, v in points),
        last_x=f"{x(games):.1f}",
        last_y=f"{last_y:.1f}",
        ticks=ticks,
        games=games,
        dates=axis,
        current=decimal(values[-1]),
        # Above the point, or below it when the point is at the top of the frame.
        current_y=f"{last_y - 10 if last_y - 10 > 14 else last_y + 20:.1f}",
        rows=[(n, short_date(dates.get(n)), decimal(v)) for n, v in points if n],
    )


@dataclass
class GameRating:
    rating: Rating
    title: str
    chart: Chart | None
    rating_text: str
    last_game: str


@dataclass
class RecentSeat:
    name: str
    url: str | None  # the member's profile; None for a bot
    rank: int | None
    resigned: bool


@dataclass
class RecentMatch:
    pk: int
    title: str
    variant_name: str
    finished: str
    url: str
    replay_url: str
    seats: list[RecentSeat] = field(default_factory=list)
    rank: int | None = None  # the member's place
    delta: float | None = None  # the member's rating change; None when unrated
    delta_text: str = ""

    @property
    def won(self) -> bool:
        return self.rank == 1


def _charts(ratings: list[Rating]) -> dict[str, Chart | None]:
    """Every game's chart from one query that reads only the games to plot: every ``step``-th
    rated game and the latest, picked by the database from the history index."""
    wanted = Q()
    for rating in ratings:
        every_step = Exact((F("game_number") - 1) % chart_step(rating.games), 0)
        wanted |= Q(game=rating.game) & (Q(every_step) | Q(game_number=rating.games))
    rows = (
        # Only rated results have a game number, and leaving ``rated`` out lets the history
        # index answer the whole filter: the table is read for the plotted rows alone.
        MatchResult.objects.filter(wanted, user_id=ratings[0].user_id)
        .order_by("game", "game_number")
        .values_list("game", "game_number", "ordinal_before", "ordinal_after", "finished_at")
    )
    points: dict[str, list[tuple[int, float]]] = {}
    dates: dict[str, dict[int, object]] = {}
    for game, number, before, after, finished_at in rows:
        if number == 1:
            points.setdefault(game, []).append((0, before))
        points.setdefault(game, []).append((number, after))
        dates.setdefault(game, {})[number] = finished_at
    return {game: rating_chart(game_points, dates[game]) for game, game_points in points.items()}


def _recent(person) -> list[RecentMatch]:
    """The member's last finished matches with every seat, in one query: the seats of the
    matches a subquery picks from the member's results, with the member's own result joined.

    Plain values rather than model instances: building four models per seat was most of the
    profile's time.
    """
    # A private table is in no list (cardclub/social): not in anyone's recent matches either.
    recent_ids = (
        MatchResult.objects.filter(user=person, match__private=False)
        .order_by("-finished_at", "-match_id")
        .values("match_id")[:RECENT_MATCHES]
    )
    rows = (
        Seat.objects.filter(match_id__in=recent_ids)
        .annotate(mine=FilteredRelation("match__results", condition=Q(match__results__user=person)))
        .order_by("-match__finished_at", "-match_id", "index")
        .values_list(
            "match_id",
            "match__game",
            "match__finished_at",
            "match__variant__name_es",
            "match__variant__name_en",
            "index",
            "user_id",
            "user__username",
            "bot_level",
            "rank",
            "resigned",
            "mine__rated",
            "mine__ordinal_before",
            "mine__ordinal_after",
        )
    )
    member_url, short_date, decimal = member_url_maker(), short_date_maker(), decimal_maker(1)
    match_url, replay_url = pk_url_maker("games:match"), pk_url_maker("games:replay")
    recent: list[RecentMatch] = []
    for (match_id, game, finished_at, name_es, name_en, index, user_id, username, bot_level,
         rank, resigned, rated, before, after) in rows:  # fmt: skip
        if not recent or recent[-1].pk != match_id:
            variant = RuleVariant(name_es=name_es, name_en=name_en)  # for its language choice
            entry = RecentMatch(
                pk=match_id,
                title=registry.title(game),
                variant_name=variant.name,
                finished=short_date(finished_at),
                url=match_url(match_id),
                replay_url=replay_url(match_id),
            )
            if rated:
                entry.delta = after - before
                entry.delta_text = ("+" if entry.delta >= 0 else "") + decimal(entry.delta)
            recent.append(entry)
        if username:
            seat = RecentSeat(username, member_url(username), rank, resigned)
        else:  # a bot (or an empty seat), named as the table names it
            name = Seat(index=index, bot_level=bot_level).display_name
            seat = RecentSeat(name, None, rank, resigned)
        recent[-1].seats.append(seat)
        if user_id == person.pk:
            recent[-1].rank = rank
    return recent


def rivals(person, limit: int = RIVALS) -> list[HeadToHead]:
    """The members this one has met most often as an opponent, with wins, losses and shared
    places against each (kept up to date by the head-to-head counters)."""
    records = list(
        HeadToHead.objects.filter(user=person)
        .select_related("rival")
        .only("played", "wins", "losses", "shared", "rival__username")
        .order_by("-played", "rival__username")[:limit]
    )
    member_url = member_url_maker()
    for record in records:
        record.url = member_url(record.rival.username)
    return records


# How long a drawn profile may be kept. Its key changes with every match the member finishes,
# so this only bounds what the key cannot see: a rival renamed, an admin's rebuild of ratings.
PROFILE_CACHE_SECONDS = 10 * 60


def play_version(person) -> int:
    """The newest match the member finished (0 before the first): everything the profile shows
    about their play changes only when one ends. One entry of the ``result_recent`` index, so
    the drawn sections can be kept under it and never need clearing."""
    newest = (
        MatchResult.objects.filter(user=person)
        .order_by("-finished_at", "-match_id")
        .values_list("match_id", flat=True)
        .first()
    )
    return newest or 0


def member_context(person) -> dict:
    ratings = list(Rating.objects.filter(user=person).order_by("game"))
    charts = _charts(ratings) if ratings else {}
    decimal, short_date = decimal_maker(1), short_date_maker()
    return {
        "game_ratings": [
            GameRating(
                rating,
                registry.title(rating.game),
                charts.get(rating.game),
                rating_text=decimal(rating.ordinal),
                last_game=short_date(rating.last_played_at),
            )
            for rating in ratings
        ],
        "recent_matches": _recent(person),
        "rivals": rivals(person),
    }
