"""The profile's rating chart: drawn on the server with readable labels, a time axis with the
dates the games were played, the current rating marked, and the same points as a table."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import translation

from cardclub.ratings.profile import CHART_WIDTH, rating_chart
from tests.web.club_night import club_night

START = datetime(2026, 11, 2, 20, tzinfo=UTC)


def history(games: int):
    points = [(0, 0.0)] + [(n, n * 1.5 - (n % 3)) for n in range(1, games + 1)]
    dates = {n: START + timedelta(days=n) for n in range(1, games + 1)}
    return points, dates


def test_the_chart_has_a_date_axis_from_the_first_game_to_the_latest():
    with translation.override("es"):
        chart = rating_chart(*history(30))
    xs = [float(x) for x, _label, _anchor in chart.dates]
    assert len(chart.dates) == 4 and xs == sorted(xs)
    assert chart.dates[0][1:] == ("3 nov", "start")  # game 1, the day after START
    assert chart.dates[-1][1:] == ("2 dic", "end") and xs[-1] == chart.right
    assert 0 < xs[0] < CHART_WIDTH
    with translation.override("en"):
        assert rating_chart(*history(30)).dates[-1][1] == "2 Dec"


def test_a_single_games_date_ends_at_the_frames_right_edge():
    with translation.override("es"):
        chart = rating_chart(*history(1))
    assert chart.dates == [(f"{chart.right:.1f}", "3 nov", "end")]


def test_the_chart_marks_the_current_rating_and_lists_every_point_as_a_row():
    points, dates = history(12)
    with translation.override("es"):
        chart = rating_chart(points, dates)
    assert chart.current == "18,0"  # 12 * 1.5 - 0, with the Spanish decimal comma
    assert [row[0] for row in chart.rows] == list(range(1, 13))
    assert chart.rows[0] == (1, "03/11/2026", "0,5")


@pytest.mark.django_db
@pytest.mark.parametrize(("language", "summary"), [("es", "en una tabla"), ("en", "as a table")])
def test_the_profile_draws_the_chart_with_its_dates_current_rating_and_table(
    make_member, client_for, language, summary
):
    night = club_night(make_member, live_moves=0)
    member = night.members[0]
    page = client_for(member).get(
        reverse("member", args=[member.username]), HTTP_ACCEPT_LANGUAGE=language
    )
    html = page.content.decode()
    charts = html.count('<svg class="rating-chart"')
    assert charts == len(page.context["game_ratings"]) > 0
    assert 'preserveAspectRatio="none"' not in html  # the labels are not squeezed
    assert html.count('<text class="date"') >= charts
    assert html.count('<text class="current"') == charts
    assert html.count(summary) == charts
    for game in page.context["game_ratings"]:
        assert re.search(rf'<td class="num">{re.escape(game.rating_text)}</td>', html)
