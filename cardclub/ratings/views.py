from __future__ import annotations

from django.core.cache import cache
from django.core.paginator import Paginator
from django.http import Http404
from django.template.response import TemplateResponse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games import registry
from games.models import Match

from .models import Rating
from .present import board_rows
from .skill import PROVISIONAL_GAMES

PAGE_SIZE = 50
CLUB_TOP = 10
# How long a drawn leaderboard page may be kept. Its key changes whenever a match ends, so this
# only bounds what the key cannot see: an admin's rebuild of the ratings, a member renamed.
BOARD_CACHE_SECONDS = 5 * 60


def _game_title_or_404(game: str) -> str:
    try:
        return registry.title(game)
    except KeyError:
        raise Http404(_("There is no such game.")) from None


def _leaderboard_queryset(game: str):
    return (
        Rating.objects.for_game(game)
        .leaderboard()
        .select_related("user")
        .only(
            "user__username",
            "game",
            "ordinal",
            "games",
            "wins",
            "provisional",
            "last_played_at",
            "last_match_id",
        )
    )


@require_GET
def club(request):
    boards = [
        {
            "game": game,
            "title": title,
            "rows": board_rows(_leaderboard_queryset(game)[:CLUB_TOP], 1, request.user),
        }
        for game, title in registry.choices()
    ]
    return TemplateResponse(
        request,
        "ratings/club.html",
        {"boards": boards, "provisional_games": PROVISIONAL_GAMES},
    )


@require_GET
def leaderboard(request, game):
    title = _game_title_or_404(game)
    # Ratings are written in the transaction that finishes a match: a board changes only then.
    version = Match.objects.newest_finished_pk()
    mine = Rating.objects.filter(game=game, user=request.user).first()
    count = cache.get_or_set(
        f"board-count:{game}:{version}",
        lambda: Rating.objects.for_game(game).count(),
        BOARD_CACHE_SECONDS,
    )
    my_page = None
    if mine is not None:
        my_page = cache.get_or_set(
            f"board-place:{game}:{mine.pk}:{version}",
            lambda: mine.place_in_leaderboard() // PAGE_SIZE + 1,
            BOARD_CACHE_SECONDS,
        )
    paginator = Paginator(_leaderboard_queryset(game), PAGE_SIZE)
    paginator.count = count  # counted above: no second COUNT(*)
    # The page asked for, read as Django reads it (not a number: the first; past the end: the
    # last). Its rows are a lazy queryset, read only when the kept copy is missing.
    page = paginator.get_page(request.GET.get("page"))
    number = page.number

    def board() -> dict:
        return {
            "page_obj": page,
            "rows": board_rows(page.object_list, page.start_index(), request.user),
        }

    template = "ratings/leaderboard.html"
    if request.htmx:
        template += "#board"
    return TemplateResponse(
        request,
        template,
        {
            "game": game,
            "game_title": title,
            # The page of the board is drawn once per finished match, page and language (and for
            # the member whose row it holds, who is marked on it) and kept: only a missing copy
            # reads the ratings.
            "board_key": (game, number, version, request.user.pk if my_page == number else 0),
            "board_cache_seconds": BOARD_CACHE_SECONDS,
            "board": SimpleLazyObject(board),
            "mine": mine,
            "my_page": my_page,
            "games": registry.choices(),
            "provisional_games": PROVISIONAL_GAMES,
        },
    )
