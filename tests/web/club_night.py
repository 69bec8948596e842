"""A club night in the database: every game live and finished, a closed table, ratings and a
league, and the list of every kind of page a member (or an admin) opens on such a night.

Shared by the page scans (tests/web/words/test_words_not_codes.py) and the browser test of page
widths (tests/browser/test_page_widths_browser.py).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from datetime import date

from django.urls import reverse

from games import registry, writes
from games.models import Match

from .table_helpers import run_bots, start_match, variant


def play(match: Match, users, moves: int | None = None, seed: int = 1) -> Match:
    """Play random legal moves for the members at ``match``, and the bots' replies as the worker
    would, until the match is over or ``moves`` member moves were made."""
    rng = random.Random(seed)
    by_seat = {seat.index: seat.user for seat in match.seats.all() if seat.user_id}
    made = 0
    while moves is None or made < moves:
        run_bots(match)
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING:
            break
        engine = match.engine
        state = engine.load(match.state)
        seat = next(s for s in engine.to_move(state) if s in by_seat)
        move = rng.choice(engine.legal_moves(state, seat))
        writes.play_move(match.pk, by_seat[seat], move.code, match.version)
        made += 1
    match.refresh_from_db()
    return match


@dataclass
class Night:
    members: list
    admin: object
    live: dict = field(default_factory=dict)  # game -> match being played
    finished: dict = field(default_factory=dict)  # game -> match played to the end
    abandoned: Match | None = None
    season: object = None

    def pages(self) -> list[tuple[str, str]]:
        """(name, url) of every kind of page."""
        first = self.members[0].username
        pages = [
            ("home", reverse("home")),
            ("lobby", reverse("games:lobby")),
            ("ratings", reverse("ratings:club")),
            ("profile", reverse("member", args=[first])),
            ("profile edit", reverse("profile_edit")),
            ("leagues", reverse("leagues:list")),
            ("rules index", reverse("games:rules_index")),
            ("closed table", self.abandoned.get_absolute_url()),
        ]
        if self.season is not None:
            pages.append(("season", reverse("leagues:season", args=[self.season.pk])))
        for game in registry.game_keys():
            pages += [
                (f"{game} rules", reverse("games:rules", args=[game])),
                (f"{game} leaderboard", reverse("ratings:leaderboard", args=[game])),
                (f"{game} new table", reverse("games:new_table", args=[game])),
                (f"{game} live", self.live[game].get_absolute_url()),
                (f"{game} log", reverse("games:log", args=[self.live[game].pk])),
                (f"{game} finished", self.finished[game].get_absolute_url()),
                (f"{game} replay", reverse("games:replay", args=[self.finished[game].pk])),
                (
                    f"{game} replay, first move",
                    reverse("games:replay", args=[self.finished[game].pk]) + "?step=1",
                ),
            ]
        return pages

    def matches(self) -> list[Match]:
        return [*self.live.values(), *self.finished.values()]


# The house rules each game is played with on the night: the ones that explain themselves most
# (Escoba's renuncio warns before a penalty).
SLUGS = {"escoba": "renuncio"}
PLAYERS = {"scout": 3}
# Each finished match's deal (its seed), so the night is the same on every run: with a random
# deal a page could be too wide only now and then. Schotten Totten's deal 24 ends with a tie on
# the ninth stone, whose "completed first" mark sits at the board's scrolled edge on a phone.
DEALS = {"schotten_totten": 24}


def club_night(make_member, live_moves: int = 6) -> Night:
    members = [make_member(name) for name in ("ana", "bea", "cris")]
    admin = make_member("boss", is_staff=True, is_superuser=True)
    night = Night(members=members, admin=admin)
    for number, game in enumerate(registry.game_keys()):
        slug = SLUGS.get(game, "standard")
        bots = ["easy"] * (PLAYERS.get(game, 2) - 2)
        night.finished[game] = play(
            start_match(game, members[:2], slug=slug, fillers=bots, deal=DEALS.get(game, number)),
            members[:2],
            seed=number,
        )
        assert night.finished[game].status == Match.Status.FINISHED
        night.live[game] = play(
            start_match(game, members[:2], slug=slug, fillers=bots, deal=number + 10),
            members[:2],
            moves=live_moves,
            seed=number + 10,
        )
    closed = writes.create_match(members[2], variant(registry.game_keys()[0]), 2, ["open"])
    writes.leave_match(closed.pk, members[2])
    night.abandoned = Match.objects.get(pk=closed.pk)
    night.season = _season(members)
    return night


def _season(members):
    from cardclub.leagues.models import League, Season

    game = registry.game_keys()[0]
    league = League.objects.create(name="Liga de los jueves", game=game, variant=variant(game))
    season = Season.objects.create(league=league, name="Otoño", starts_on=date.today())
    for member in members:
        season.add_player(member)
    return season
