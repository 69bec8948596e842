from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.db import connection
from django.db.models import Count, Prefetch, Q
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from games.streams import can_stream

from . import access, actions, live, standings
from .models import (
    CalendarToken,
    Fixture,
    FixtureSeat,
    League,
    LeagueError,
    Round,
    Season,
    Tie,
)


@require_GET
def league_list(request):
    leagues = League.objects.select_related("variant").prefetch_related(
        Prefetch(
            "seasons",
            queryset=Season.objects.annotate(player_count=Count("players")).order_by(
                "-starts_on", "division", "-pk"
            ),
        )
    )
    token = CalendarToken.objects.filter(user=request.user).values_list("token", flat=True).first()
    feed = (
        request.build_absolute_uri(reverse("leagues:member_calendar", args=[token]))
        if token
        else None
    )
    return TemplateResponse(request, "leagues/list.html", {"leagues": leagues, "feed": feed})


# A 200-member Swiss has 100 tables a round: shown in pages, the member's own always with them.
TABLES_PER_PAGE = 40


def _chosen_page(request, pages: int) -> int:
    try:
        return min(max(int(request.GET.get("tables", "1")), 1), pages)
    except ValueError:
        return 1


def _round_fixtures(round_, user, page: int = 1):
    """One page of a round's fixtures (and the member's own) with their seats and matches, in
    two queries."""
    seats = Prefetch("seats", queryset=FixtureSeat.objects.select_related("user").order_by("index"))
    first = (page - 1) * TABLES_PER_PAGE + 1
    wanted = Q(table__range=(first, first + TABLES_PER_PAGE - 1))
    if user.is_authenticated:
        wanted |= Q(
            pk__in=FixtureSeat.objects.filter(user=user, fixture__round=round_).values("fixture_id")
        )
    return list(
        round_.fixtures.filter(wanted)
        .select_related("match")
        .only("round_id", "table", "deadline", "status", "match__status", "match_id")
        .prefetch_related(seats)
        .order_by("table")
    )


def _chosen_round(request, season: Season, rounds: list[Round]) -> Round | None:
    """The round asked for in ``?round=``, else the current one, else the first."""
    by_number = {round_.number: round_ for round_ in rounds}
    try:
        wanted = int(request.GET.get("round", ""))
    except ValueError:
        wanted = season.current_round
    return by_number.get(wanted) or by_number.get(season.current_round) or next(iter(rounds), None)


def cup_bracket(season: Season, entrants: int) -> list[tuple[str, list]]:
    """A cup's bracket, round by round, every place shown (a tie not yet known is None), from
    one query."""
    from . import cups

    total = cups.rounds_for(entrants)
    size = cups.size_for(entrants)
    ties = Tie.objects.filter(season=season).select_related("round", "first", "second", "winner")
    known = {(t.round.number, t.slot): t for t in ties}
    names = {"final": _("Final"), "semi": _("Semi-finals"), "quarter": _("Quarter-finals")}
    bracket = []
    for number in range(1, total + 1):
        key = cups.round_name_key(number, total)
        name = names.get(key) or _("Round %(n)d") % {"n": number}
        bracket.append((name, [known.get((number, slot)) for slot in range(size >> number)]))
    return bracket


def _bracket_context(season: Season, bracket: list) -> dict:
    """What the bracket partial shows, with its stamp (the push stream's first event)."""
    return {
        "season": season,
        "bracket": bracket,
        "bracket_version": live.stamp_of(t for _name, ties in bracket for t in ties),
        "champion": bracket[-1][1][0].winner
        if bracket and bracket[-1][1] and bracket[-1][1][0]
        else None,
    }


@require_GET
def season_page(request, pk):
    """Standings, crosstable and one round's fixtures. Only one round at a time: a 40-member
    double round robin has 1,560 fixtures, far too many for one page (or a phone)."""
    season = access.season_or_404(pk)
    players, withdrawn, byes = standings.members(season)
    if season.is_cup:
        # A cup's table is its bracket; it is live: the page asks for it again while it runs.
        bracket = (
            cup_bracket(season, len(players) + len(withdrawn)) if season.rounds.exists() else []
        )
        if request.htmx and request.GET.get("part") == "bracket":
            return TemplateResponse(
                request, "leagues/season.html#bracket", _bracket_context(season, bracket)
            )
        table, cross = [], None
    else:
        bracket = []
        table, cross = standings.season_tables(season, players, byes, withdrawn)
    rounds = list(season.rounds.order_by("number"))
    shown = _chosen_round(request, season, rounds)
    pages = max(1, -(-(len(players) // season.seats_per_fixture) // TABLES_PER_PAGE))
    page = _chosen_page(request, pages)
    fixtures = _round_fixtures(shown, request.user, page) if shown else []
    now = timezone.now()
    seated = set()
    for fixture in fixtures:
        fixture.mine = any(s.user_id == request.user.pk for s in fixture.seats.all())
        fixture.overdue = fixture.is_overdue(now)
        seated.update(s.user_id for s in fixture.seats.all())
    # Those not at any table in the round sit out (a bye); show them so nobody wonders. With
    # the round in pages only a Swiss knows (its byes); the others' sit-outs need every table.
    if season.is_swiss:
        names = {**{uid: name for uid, (name, _rule) in withdrawn.items()}, **players}
        sitting_out = sorted(names[uid] for n, uid, _p in byes if shown and n == shown.number)
    elif (
        pages == 1 and not season.is_cup and not season.pairs
    ):  # in a cup, who is not seated is out
        sitting_out = sorted(name for uid, name in players.items() if uid not in seated)
    else:
        sitting_out = []
    labels = (
        [
            standings.TIE_BREAK_LABELS[c]
            for c in season.tie_breaks
            if c in standings.TIE_BREAK_LABELS
        ]
        if season.is_swiss
        else []
    )
    arrivals = (
        list(season.players.exclude(moved="").values_list("moved", "user__username"))
        if season.division
        else []
    )
    my_pair = season.pair_of(request.user) if season.pairs else None
    is_player = (my_pair is not None) if season.pairs else request.user.pk in players
    return TemplateResponse(
        request,
        "leagues/season.html",
        {
            "season": season,
            **_bracket_context(season, bracket),
            "can_stream": can_stream(request),
            "keepalive": int(settings.PUSH_KEEPALIVE_SECONDS),
            "standings": table,
            "crosstable": cross,
            "tie_break_labels": labels,
            "standings_columns": 8 + len(labels),
            "round_numbers": range(1, season.current_round + 1),
            "table_pages": [
                (p, f"{(p - 1) * TABLES_PER_PAGE + 1}–{p * TABLES_PER_PAGE}")
                for p in range(1, pages + 1)
            ]
            if pages > 1
            else [],
            "table_page": page,
            "rounds": rounds,
            "round": shown,
            "fixtures": fixtures,
            "sitting_out": sitting_out if fixtures else [],
            "round_open": shown is not None
            and season.status == Season.Status.RUNNING
            and shown.number <= season.current_round,
            "is_player": is_player,
            "can_join": season.status == Season.Status.REGISTRATION
            and not is_player
            and not season.pairs,
            "my_pair": my_pair,
            "promoted": sorted(n for how, n in arrivals if how == "promoted"),
            "relegated": sorted(n for how, n in arrivals if how == "relegated"),
            "pair_names": sorted(players.values()) if season.pairs else [],
            "registration_problem": season.registration_problem(now),
            "can_withdraw": season.status == Season.Status.RUNNING
            and request.user.pk in players
            and request.user.pk not in withdrawn,
            "withdrawals": [
                (name, Season.WithdrawalRule(rule).label)
                for _uid, (name, rule) in sorted(withdrawn.items(), key=lambda i: i[1][0])
            ],
        },
    )


@require_POST
def join(request, pk):
    season = access.season_or_404(pk)
    try:
        actions.join_season(season, request.user)
    except LeagueError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("You have joined the season."))
    return redirect(season)


@require_POST
def propose_pair(request, pk):
    """A member names their partner for a season of pairs; the partner then confirms."""
    from django.contrib.auth import get_user_model

    season = access.season_or_404(pk)
    name = request.POST.get("partner", "").strip()
    partner = get_user_model().objects.filter(username__iexact=name).first() if name else None
    try:
        season.propose_pair(request.user, partner)
    except LeagueError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("Asked: the pair counts once your partner confirms it."))
    return redirect(season)


@require_POST
def answer_pair(request, pk, pair_id):
    season = access.season_or_404(pk)
    accept = request.POST.get("answer") == "confirm"
    try:
        season.answer_pair(pair_id, request.user, accept)
    except LeagueError as error:
        messages.error(request, str(error))
    else:
        messages.success(
            request, _("You are registered as a pair.") if accept else _("The pair is called off.")
        )
    return redirect(season)


@require_POST
def withdraw(request, pk):
    """A member leaves: before the start, simply; once the season runs, only with the box
    ticked that says they understand what the season's rule does to their fixtures."""
    season = access.season_or_404(pk)
    if season.status == Season.Status.RUNNING and request.POST.get("confirm") != "yes":
        messages.error(request, _("Tick the box to confirm that you withdraw."))
        return redirect(season)
    try:
        player = season.withdraw(request.user)
    except LeagueError as error:
        messages.error(request, str(error))
    else:
        if player is None:
            messages.success(request, _("You have left the season."))
        else:
            messages.success(request, _("You have withdrawn from the season."))
    return redirect(season)


def _back(request, fixture: Fixture):
    """Back where the member pressed the button: the page they came from when it is this site's
    (the season page, the lobby), else the fixture's season."""
    from django.utils.http import url_has_allowed_host_and_scheme

    came_from = request.POST.get("next", "")
    if came_from and url_has_allowed_host_and_scheme(
        came_from, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(came_from)
    return redirect(fixture.round.season)


@require_POST
def ready(request, pk):
    fixture = access.fixture_or_404(pk)
    try:
        fixture = actions.say_ready(fixture.pk, request.user)
    except LeagueError as error:
        messages.error(request, str(error))
        return _back(request, fixture)
    if fixture.match_id:
        messages.success(request, _("Everybody is ready: the match has started."))
        return redirect(fixture.match)
    messages.success(request, _("You are ready. The match starts when everybody is."))
    return _back(request, fixture)


@require_POST
def unready(request, pk):
    fixture = access.fixture_or_404(pk)
    try:
        actions.take_back_ready(fixture.pk, request.user)
    except LeagueError as error:
        messages.error(request, str(error))
    else:
        messages.info(request, _("You are no longer marked as ready."))
    return _back(request, fixture)


def _my_unplayed_fixture_ids(user_id: int) -> list[int]:
    """The ids of the member's scheduled or playing fixtures in running seasons, by a plain
    statement (``cardclub/rows.py``): the ORM spent longer building its three joins than the
    database took to find, nearly always, nothing. Not in the seats' own order: that joins the
    seasons and rounds again to sort."""
    quote = connection.ops.quote_name
    seat, fixture, round_, season = (
        quote(model._meta.db_table) for model in (FixtureSeat, Fixture, Round, Season)
    )
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT fs.fixture_id FROM {seat} fs"
            f" INNER JOIN {fixture} f ON f.id = fs.fixture_id"
            f" INNER JOIN {round_} r ON r.id = f.round_id"
            f" INNER JOIN {season} s ON s.id = r.season_id"
            " WHERE fs.user_id = %s AND f.status IN (%s, %s) AND s.status = %s",
            [user_id, Fixture.Status.SCHEDULED, Fixture.Status.PLAYING, Season.Status.RUNNING],
        )
        return [found for (found,) in cursor.fetchall()]


def my_next_fixtures(user, limit: int = 5):
    """The member's unplayed fixtures in running seasons, soonest deadline first (lobby).

    Their ids first, in a query that is quick to build: every lobby asks, and most members
    have no fixture waiting most of the time; only when there is one are the rounds, seasons,
    leagues and seats read."""
    if not (ids := _my_unplayed_fixture_ids(user.pk)):
        return []
    seats = Prefetch("seats", queryset=FixtureSeat.objects.select_related("user").order_by("index"))
    return list(
        Fixture.objects.filter(pk__in=ids)
        .select_related("round__season__league", "match")
        .prefetch_related(seats)
        .order_by("deadline", "pk")[:limit]
    )
