"""A cup's bracket in Chromium under uvicorn: a result committed by another process reaches the
open season page through its push stream, without a reload (cardclub/leagues/live.py)."""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace

import pytest
from django.db import transaction
from playwright.sync_api import expect

from cardclub.leagues.models import Fixture, League, Season
from games.models import RuleVariant

from .helpers import page_with_session

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_result_reaches_the_open_bracket_through_its_stream_without_a_reload(
    browser, server, make_member
):
    members = [make_member(name) for name in ("ana", "bea", "cris", "dani")]
    rules = RuleVariant.objects.get(game="schotten_totten", slug="standard")
    league = League.objects.create(name="Liga", game="schotten_totten", variant=rules)
    season = Season.objects.create(
        league=league, name="Copa", starts_on=date.today(), format=Season.Format.CUP
    )
    for member in members:
        season.add_player(member)
    season.generate_fixtures()
    page = page_with_session(browser, server, members[0])
    page.goto(server.url + season.get_absolute_url())
    wrap = page.locator('[data-live="bracket"]')
    expect(wrap).to_have_attribute("data-stream", "open", timeout=10000)
    shown = page.locator("#bracket").get_attribute("data-version")
    page.evaluate("document.body.dataset.sameDocument = 'yes'")  # gone if the page reloads

    # The game of the first tie ends (as a match finishing would record it): its second seat
    # wins. While a stream is open the page does not poll, so only the push can bring it.
    fixture = Fixture.objects.filter(round__season=season, tie__slot=0).get()
    seats = list(fixture.seats.order_by("index"))
    winner = seats[1].user.username
    with transaction.atomic():  # as the finishing match's receiver records it
        fixture.record_match_result(
            [SimpleNamespace(index=s.index, rank=2 - s.index, score=0) for s in seats]
        )

    first_round = page.locator("#bracket .bracket-round").first
    expect(first_round.locator(".won")).to_contain_text(winner, timeout=10000)
    expect(page.locator("#bracket")).not_to_have_attribute("data-version", shown)
    assert page.evaluate("document.body.dataset.sameDocument") == "yes"
    expect(wrap).to_have_attribute("data-connection", "live")
