"""An 8-member Swiss and an 8-member cup in Chromium, from registration to the final table:
members join on the season page, the admin starts the season (and, in the Swiss, pairs each
next round) in the admin, every fixture is started by both members' "ready" and decided by the
first seat resigning, and the standings or the bracket show the results. The bracket is looked
at on a phone's width too."""

from __future__ import annotations

from datetime import date

import pytest
from playwright.sync_api import Browser, expect

from cardclub.leagues.models import Fixture, League, Season, Tie
from games.models import RuleVariant

from .helpers import session_for

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ["ana", "bea", "cris", "dani", "eva", "fran", "gus", "hugo"]


def club(browser, base, make_member, season_format, **extra):
    make_member("boss", is_staff=True, is_superuser=True)
    members = [make_member(name) for name in NAMES]
    rules = RuleVariant.objects.get(game="schotten_totten", slug="standard")
    league = League.objects.create(name="Liga", game="schotten_totten", variant=rules)
    season = Season.objects.create(
        league=league, name="Invierno", starts_on=date.today(), format=season_format, **extra
    )
    pages = {name: session_for(browser, base, name) for name in NAMES}
    url = base + season.get_absolute_url()
    for page in pages.values():
        page.goto(url)
        page.locator(f"form[action$='/season/{season.pk}/join/'] button").click()
        expect(page.locator(".message.success")).to_be_visible()
    assert season.players.count() == 8
    admin = session_for(browser, base, "boss")
    admin_action(admin, base, season, "generate_fixtures")
    return season, members, pages, admin, url


def admin_action(admin, base, season, action):
    admin.goto(base + "/admin/leagues/season/")
    admin.locator(f"input[name=_selected_action][value='{season.pk}']").check()
    admin.locator("select[name=action]").select_option(action)
    admin.locator("button[name=index]").click()
    expect(admin.locator(".messagelist .success")).to_be_visible()


def play_open_fixtures(season, pages, url) -> list[str]:
    """Each fixture still to play: the second seat says ready, the first starts it and resigns
    (so the second seat wins); the winners' names."""
    winners = []
    for fixture in Fixture.objects.filter(round__season=season, status=Fixture.Status.SCHEDULED):
        first, second = (s.user.username for s in fixture.seats.order_by("index"))
        pages[second].goto(url + f"?round={fixture.round.number}")
        pages[second].locator(f"form[action$='/fixture/{fixture.pk}/ready/'] button").click()
        page = pages[first]
        page.goto(url + f"?round={fixture.round.number}")
        page.locator(f"form[action$='/fixture/{fixture.pk}/ready/'] button").click()
        expect(page.locator("form.resign-form button")).to_be_visible()
        page.once("dialog", lambda dialog: dialog.accept())
        page.locator("form.resign-form button").click()
        expect(page.locator("form.resign-form")).to_have_count(0)
        winners.append(second)
    return winners


def test_an_eight_member_swiss_from_registration_to_its_final_standings(
    live_server, browser: Browser, make_member
):
    base = live_server.url
    season, _members, pages, admin, url = club(
        browser, base, make_member, Season.Format.SWISS, swiss_rounds=3
    )
    points: dict[str, int] = dict.fromkeys(NAMES, 0)
    for number in range(1, 4):
        for winner in play_open_fixtures(season, pages, url):
            points[winner] += 3
        if number < 3:
            admin_action(admin, base, season, "next_round")
    page = pages["ana"]
    page.goto(url)
    standings = page.locator("#standings table")
    for name, total in points.items():
        row = standings.locator("tbody tr", has=page.locator("th", has_text=name))
        expect(row.locator("strong")).to_have_text(str(total))
    expect(page.locator("#crosstable tbody tr")).to_have_count(8)
    expect(page.locator("#standings thead")).to_contain_text("Bu-1")
    # Nobody met anybody twice.
    pairs = [
        frozenset(f.seats.values_list("user_id", flat=True))
        for f in Fixture.objects.filter(round__season=season)
    ]
    assert len(pairs) == 12 and len(set(pairs)) == 12


def test_an_eight_member_cup_from_registration_to_its_winner_and_the_bracket_on_a_phone(
    live_server, browser: Browser, make_member
):
    base = live_server.url
    season, _members, pages, _admin, url = club(browser, base, make_member, Season.Format.CUP)
    for _round in range(3):
        play_open_fixtures(season, pages, url)
    season.refresh_from_db()
    assert season.status == Season.Status.FINISHED
    champion = Tie.objects.get(season=season, round__number=3).winner.username
    phone = browser.new_context(locale="es-ES", viewport={"width": 390, "height": 844})
    page = phone.new_page()
    from .helpers import log_in

    log_in(page, base, "ana")
    page.goto(url)
    expect(page.locator("#champion")).to_contain_text(champion)
    bracket = page.locator("#bracket")
    expect(bracket.locator(".bracket-round")).to_have_count(3)
    expect(bracket.locator(".bracket-round").last.locator(".won")).to_contain_text(champion)
    # The page itself does not scroll sideways; the bracket scrolls within its own box.
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path="/tmp/cardclub-cup-390.png", full_page=True)
