"""A 4-member league round in Chromium: the admin generates the fixtures in the admin, each
pairing's member starts the fixture match from the season page and resigns it, and the
standings on the season page show the results."""

from __future__ import annotations

from datetime import date

import pytest
from playwright.sync_api import Browser, expect

from cardclub.leagues.models import Fixture, League, Season
from games.models import RuleVariant

from .helpers import session_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_four_member_season_round_is_played_from_the_site(
    live_server, browser: Browser, make_member
):
    base = live_server.url
    make_member("boss", is_staff=True, is_superuser=True)
    members = [make_member(name) for name in ("ana", "bea", "cris", "dani")]
    rules = RuleVariant.objects.get(game="schotten_totten", slug="standard")
    league = League.objects.create(name="Liga", game="schotten_totten", variant=rules)
    season = Season.objects.create(league=league, name="Otoño", starts_on=date.today())
    for member in members:
        season.add_player(member)

    admin = session_for(browser, base, "boss")
    admin.goto(base + "/admin/leagues/season/")
    admin.locator(f"input[name=_selected_action][value='{season.pk}']").check()
    admin.locator("select[name=action]").select_option("generate_fixtures")
    admin.locator("button[name=index]").click()
    expect(admin.locator(".messagelist .success")).to_be_visible()
    season.refresh_from_db()
    assert season.status == Season.Status.RUNNING

    season_url = base + season.get_absolute_url()
    losers, winners = [], []
    for fixture in Fixture.objects.filter(round__season=season, round__number=1):
        first, second = (s.user for s in fixture.seats.order_by("index"))
        # The second member says "ready" and is shown waiting; the first one's "ready" starts
        # the match.
        other = session_for(browser, base, second.username)
        other.goto(season_url)
        other.locator(f"form[action$='/fixture/{fixture.pk}/ready/'] button").click()
        row = other.locator(f"li[data-fixture='{fixture.pk}']")
        expect(row).to_contain_text(f"{second.username}: ✓ listo")  # the site speaks Spanish
        expect(row).to_contain_text(f"{first.username}: esperando")
        page = session_for(browser, base, first.username)
        page.goto(season_url)
        page.locator(f"form[action$='/fixture/{fixture.pk}/ready/'] button").click()
        expect(page.locator("form.resign-form button")).to_be_visible()
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("form.resign-form button").click()
        expect(page.locator("form.resign-form")).to_have_count(0)
        losers.append(first.username)
        winners.append(second.username)

    page = session_for(browser, base, "ana")
    page.goto(season_url)
    standings = page.locator("#standings table")
    for name, points in [(n, "3") for n in winners] + [(n, "0") for n in losers]:
        row = standings.locator("tbody tr", has=page.locator("th", has_text=name))
        expect(row.locator("strong")).to_have_text(points)
    expect(page.locator("#crosstable")).to_be_visible()
    expect(page.locator("#round a[href*='/replay/']")).to_have_count(2)
