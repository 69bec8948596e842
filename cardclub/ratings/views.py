from __future__ import annotations

from django.core.paginator import Paginator
from django.http import Http404
from django.template.response import TemplateResponse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games import registry

from .models import Rating
from .present import board_rows
from .skill import PROVISIONAL_GAMES

PAGE_SIZE = 50
CLUB_TOP = 10


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
    page = Paginator(_leaderboard_queryset(game), PAGE_SIZE).get_page(request.GET.get("page"))
    rows = board_rows(page.object_list, page.start_index(), request.user)
    mine = Rating.objects.filter(game=game, user=request.user).first()
    my_page = None
    if mine is not None:
        my_page = mine.place_in_leaderboard() // PAGE_SIZE + 1
    template = "ratings/leaderboard.html"
    if request.htmx:
        template += "#board"
    return TemplateResponse(
        request,
        template,
        {
            "game": game,
            "game_title": title,
            "page_obj": page,
            "rows": rows,
            "mine": mine,
            "my_page": my_page,
            "games": registry.choices(),
            "provisional_games": PROVISIONAL_GAMES,
        },
    )
