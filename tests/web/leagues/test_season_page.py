"""A round robin's season page shows its crosstable from the start, before the first result:
who meets whom, every cell empty but the diagonal's, and a named corner header."""

from __future__ import annotations

import re
from datetime import date

import pytest
from django.urls import reverse

from cardclub.leagues.models import League, Season
from tests.web.table_helpers import variant

pytestmark = pytest.mark.django_db


def test_a_round_robin_shows_its_crosstable_before_the_first_result(make_member, client_for):
    league = League.objects.create(
        name="Liga", game="schotten_totten", variant=variant("schotten_totten")
    )
    season = Season.objects.create(league=league, name="2026", starts_on=date.today())
    members = [make_member(name) for name in ("ana", "bea", "cris", "dani")]
    for member in members:
        season.add_player(member)
    season.generate_fixtures()
    assert season.is_round_robin
    page = client_for(members[0]).get(reverse("leagues:season", args=[season.pk]))
    html = page.content.decode()
    assert 'id="crosstable"' in html
    cross = html[html.index('id="crosstable"') :]
    assert re.search(
        r"<thead><tr><th[^>]*><span class=\"visually-hidden\">[^<]+</span></th>", cross
    )
    cells = [marks for _row, marks, _html in page.context["crosstable"]]
    assert [row.count("×") for row in cells] == [1, 1, 1, 1]
    assert all(mark in ("×", "") for row in cells for mark in row)
