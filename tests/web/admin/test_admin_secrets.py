"""A club admin, who may play in the league too, learns nothing from the admin about a live
match that a spectator could not see: not its seed, not its state, not its move codes (Scout's
keep/rotate decision is secret), and no lookup, filter, search or ordering on them. Once the
match is over they are shown.

The live match is a real Scout match in which alice has decided (a secret decision code); a
second, marked move record makes the codes searchable as a token in every page.
"""

from __future__ import annotations

import json
import re

import pytest
from django.urls import reverse

from games import writes
from games.models import Match, MoveRecord
from tests.web.table_helpers import post_move, start_match

pytestmark = pytest.mark.django_db

MARK = "zz-secret-move-code"


@pytest.fixture
def staff(client, django_user_model):
    boss = django_user_model.objects.create_superuser("boss", "boss@example.com", "x")
    client.force_login(boss, backend="django.contrib.auth.backends.ModelBackend")
    return client


@pytest.fixture
def live(alice, bob, client_for):
    match = start_match("scout", [alice, bob])
    assert post_move(client_for(alice), match, "r").status_code == 200
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING
    assert match.moves.filter(code="r").exists()
    MoveRecord.objects.create(match=match, seq=999, seat=1, code=MARK)
    return match


def secrets_of(match: Match) -> list[str]:
    """Strings that must not appear in a page about the live match: the seed, the invite token,
    the marked code and the state's serialisations (whole, and the first hand as stored)."""
    state = match.state
    first_hand = json.dumps(state["hands"][0]) if "hands" in state else None
    found = [str(match.seed), match.invite_token, MARK, json.dumps(state)]
    return [s for s in found + [first_hand] if s]


def leaks(page: str, match: Match) -> list[str]:
    found = [s for s in secrets_of(match) if s in page]
    # The admin's own rows for the secret fields, whatever their content.
    found += re.findall(r'class="[^"]*field-(?:seed|state|move_log|invite_token)\b', page)
    # The decision code "r" is one letter: look at the code cells, not the page.
    found += [c for c in re.findall(r"field-shown_code[^>]*>(.*?)</", page, re.S) if c in "rk"]
    return found


def admin_pages(match: Match) -> list[str]:
    move = match.moves.get(code="r")
    return [
        reverse("admin:games_match_changelist"),
        reverse("admin:games_match_changelist") + f"?id={match.pk}",
        reverse("admin:games_match_changelist") + f"?id={match.pk}&o=1.2.3.4.5.6.7",
        reverse("admin:games_match_changelist") + "?q=1",
        reverse("admin:games_match_change", args=[match.pk]),
        reverse("admin:games_match_history", args=[match.pk]),
        reverse("admin:games_match_delete", args=[match.pk]),
        reverse("admin:games_moverecord_changelist"),
        reverse("admin:games_moverecord_changelist") + f"?match__id__exact={match.pk}&o=4",
        reverse("admin:games_moverecord_change", args=[move.pk]),
        reverse("admin:games_moverecord_history", args=[move.pk]),
        reverse("admin:games_moverecord_delete", args=[move.pk]),
    ]


def test_no_admin_page_shows_a_live_matchs_seed_state_or_move_codes(staff, live):
    for url in admin_pages(live):
        response = staff.get(url)
        assert response.status_code == 200, url
        page = response.content.decode()
        assert leaks(page, live) == [], url
    # The pages did show the match and its moves, hidden.
    page = staff.get(reverse("admin:games_moverecord_changelist")).content.decode()
    assert "hidden until the match is over" in page or "oculto hasta" in page


def test_a_view_only_staff_member_sees_no_secret_either(live, django_user_model):
    """The same pages for a staff member who may only view: the ones Django lets them see
    hide the same, and the rest are refused."""
    from django.contrib.auth.models import Permission
    from django.test import Client

    viewer = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    viewer.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    client = Client()
    client.force_login(viewer, backend="django.contrib.auth.backends.ModelBackend")
    shown = 0
    for url in admin_pages(live):
        response = client.get(url)
        assert response.status_code in (200, 403), url
        shown += response.status_code == 200
        assert leaks(response.content.decode(), live) == [], url
    assert shown >= 8


SECRET_LOOKUPS = {
    "games_match": [
        "seed=1",
        "seed__gt=0",
        "seed__lt=9223372036854775807",
        "seed__range=0,99",
        "seed__startswith=1",
        "state__isnull=False",
        "state__contains=1",
        "state__hands__0__0=1",
        "invite_token__startswith=a",
        "moves__code=r",
        "moves__code__startswith=r",
    ],
    "games_moverecord": [
        "code=r",
        "code__in=r,k",
        "code__startswith=r",
        "match__seed__gt=0",
        "match__state__isnull=False",
        "match__invite_token=x",
    ],
    "leagues_fixture": ["match__seed__gt=0", "match__state__isnull=False"],
    "ratings_matchresult": ["match__seed__gt=0", "match__moves__code=r"],
}


@pytest.mark.parametrize(
    "changelist, lookup",
    [(cl, lookup) for cl, lookups in SECRET_LOOKUPS.items() for lookup in lookups],
)
def test_the_changelists_refuse_lookups_on_the_secrets(staff, live, changelist, lookup):
    """A binary search on the seed recovered it in 62 requests; now every such lookup is a 400
    (Django's DisallowedModelAdminLookup), whatever its answer would have been."""
    url = reverse(f"admin:{changelist}_changelist") + f"?{lookup}"
    response = staff.get(url)
    assert response.status_code == 400, url
    assert str(live.seed) not in response.content.decode()


def test_harmless_lookups_still_work(staff, live):
    url = reverse("admin:games_match_changelist") + f"?status__exact=playing&id={live.pk}"
    response = staff.get(url)
    assert response.status_code == 200
    assert f"/admin/games/match/{live.pk}/change/" in response.content.decode()


def test_no_filter_search_or_ordering_is_offered_on_the_secrets(rf, staff, live):
    from django.contrib import admin

    request = rf.get("/")
    for model in (Match, MoveRecord):
        model_admin = admin.site._registry[model]
        offered = [
            *model_admin.get_list_filter(request),
            *model_admin.get_search_fields(request),
            *(model_admin.get_ordering(request) or []),
            *model_admin.get_sortable_by(request),
            *model_admin.get_list_display(request),
            model_admin.date_hierarchy or "",
        ]
        names = [str(name[0] if isinstance(name, tuple) else name) for name in offered]
        assert not {"seed", "state", "code", "invite_token"} & {n.lstrip("-") for n in names}


def test_the_seats_inline_shows_no_hand(staff, live):
    page = staff.get(reverse("admin:games_match_change", args=[live.pk])).content.decode()
    assert "alice" in page and "bob" in page  # the inline is there
    assert leaks(page, live) == []


def test_the_secrets_are_shown_once_the_match_is_over(staff, live, alice):
    writes.resign(live.pk, alice)
    live.refresh_from_db()
    assert live.is_over
    page = staff.get(reverse("admin:games_match_change", args=[live.pk])).content.decode()
    assert str(live.seed) in page
    assert "field-state" in page and "field-move_log" in page
    assert MARK in page and "0:r" in page
    moves = staff.get(
        reverse("admin:games_moverecord_changelist") + f"?match__id__exact={live.pk}"
    ).content.decode()
    assert MARK in moves
    codes = re.findall(r"field-shown_code[^>]*>(.*?)</", moves, re.S)
    assert "r" in codes
    move = live.moves.get(code="r")
    detail = staff.get(reverse("admin:games_moverecord_change", args=[move.pk])).content.decode()
    assert re.search(r'field-shown_code.*?<div class="readonly">r</div>', detail, re.S)
    # Lookups on the secrets stay refused: a finished match needs none.
    url = reverse("admin:games_match_changelist") + f"?seed={live.seed}"
    assert staff.get(url).status_code == 400


def test_an_abandoned_match_reveals_its_secrets_too(staff, live):
    Match.objects.filter(pk=live.pk).update(status=Match.Status.ABANDONED)
    page = staff.get(reverse("admin:games_match_change", args=[live.pk])).content.decode()
    assert str(live.seed) in page and MARK in page
