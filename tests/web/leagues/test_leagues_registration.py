"""Registration windows and withdrawals: who may join when, and what a withdrawal does to the
fixtures and the standings under each of the season's rules."""

from __future__ import annotations

from datetime import date, timedelta
from types import SimpleNamespace

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from cardclub.leagues.models import Fixture, LeagueError, Season, SeasonPlayer

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("in_english")]


def season_of(league, **extra) -> Season:
    return Season.objects.create(league=league, name="2026", starts_on=date.today(), **extra)


@pytest.fixture
def four(make_member):
    return [make_member(n) for n in ("ana", "ben", "cai", "dee")]


def win_for_first_seat(fixture: Fixture) -> None:
    fixture.record_match_result([SimpleNamespace(index=i, rank=i + 1, score=0) for i in range(2)])


def test_registering_before_the_window_opens_or_after_it_closes_is_refused_and_changes_nothing(
    english_client_for, league, alice
):
    now = timezone.now()
    early = season_of(league, registration_opens=now + timedelta(days=1))
    with pytest.raises(LeagueError, match="Registration opens on"):
        early.add_player(alice)
    late = season_of(league, registration_closes=now - timedelta(minutes=1))
    response = english_client_for(alice).post(reverse("leagues:join", args=[late.pk]), follow=True)
    assert "Registration closed on" in response.content.decode()
    assert not SeasonPlayer.objects.exists()
    open_now = season_of(
        league,
        registration_opens=now - timedelta(days=1),
        registration_closes=now + timedelta(days=1),
    )
    open_now.add_player(alice)
    assert open_now.players.filter(user=alice).exists()


def test_the_season_page_says_when_registration_closes_and_why_a_member_cannot_join(
    english_client_for, league, alice
):
    closes = timezone.now() - timedelta(hours=1)
    season = season_of(league, registration_closes=closes)
    page = english_client_for(alice).get(reverse("leagues:season", args=[season.pk]))
    html = page.content.decode()
    assert 'id="registration-window"' in html and "Registration closed on" in html
    assert reverse("leagues:join", args=[season.pk]) not in html


def test_leaving_before_the_start_simply_removes_the_member(english_client_for, league, alice):
    season = season_of(league)
    season.add_player(alice)
    english_client_for(alice).post(reverse("leagues:withdraw", args=[season.pk]))
    assert not season.players.exists()


def test_withdrawing_under_the_forfeit_rule_loses_the_rest_and_keeps_what_was_played(
    english_client_for, league, four
):
    season = season_of(league)
    for member in four:
        season.add_player(member)
    season.generate_fixtures()
    ana = four[0]
    played = Fixture.objects.get(round__season=season, round__number=1, seats__user=ana)
    win_for_first_seat(played)
    client = english_client_for(ana)
    # Without the box ticked nothing happens.
    response = client.post(reverse("leagues:withdraw", args=[season.pk]), follow=True)
    assert "Tick the box" in response.content.decode()
    assert not SeasonPlayer.objects.get(season=season, user=ana).withdrawn_at
    client.post(reverse("leagues:withdraw", args=[season.pk]), {"confirm": "yes"})
    player = SeasonPlayer.objects.get(season=season, user=ana)
    assert player.withdrawn_at and player.withdrawal == Season.WithdrawalRule.FORFEIT
    mine = Fixture.objects.filter(round__season=season, seats__user=ana)
    assert mine.get(pk=played.pk).status == Fixture.Status.PLAYED
    assert set(mine.exclude(pk=played.pk).values_list("status", flat=True)) == {"forfeit"}
    page = english_client_for(four[1]).get(reverse("leagues:season", args=[season.pk]))
    html = page.content.decode()
    assert "(withdrew)" in html and "ana withdrew: Their remaining fixtures are forfeited." in html
    assert "ana" in {row.name for row in page.context["standings"]}


def test_withdrawing_under_the_void_rule_takes_every_result_of_theirs_out_of_the_standings(
    english_client_for, league, four
):
    season = season_of(league, withdrawal_rule=Season.WithdrawalRule.VOID)
    for member in four:
        season.add_player(member)
    season.generate_fixtures()
    ana = four[0]
    played = Fixture.objects.get(round__season=season, round__number=1, seats__user=ana)
    win_for_first_seat(played)
    season.withdraw(ana)
    assert set(
        Fixture.objects.filter(round__season=season, seats__user=ana).values_list(
            "status", flat=True
        )
    ) == {"void"}
    page = english_client_for(four[1]).get(reverse("leagues:season", args=[season.pk]))
    rows = {row.name: row for row in page.context["standings"]}
    assert "ana" not in rows
    assert all(row.played == 0 for row in rows.values())
    assert "ana withdrew: All their results are void." in page.content.decode()
    with pytest.raises(LeagueError, match="already withdrawn"):
        season.withdraw(ana)


def test_a_swiss_pairs_nobody_who_withdrew_and_fits_in_a_member_the_admin_added_late(
    league, make_member
):
    members = [make_member(f"s{n}") for n in range(6)]
    season = season_of(league, format=Season.Format.SWISS, swiss_rounds=3)
    for member in members:
        season.add_player(member)
    season.generate_fixtures()
    for fixture in Fixture.objects.filter(round__season=season):
        win_for_first_seat(fixture)
    season.withdraw(members[0])
    late = make_member("late")
    SeasonPlayer.objects.create(season=season, user=late)  # as the admin's inline does
    season.next_round()
    seated = set(
        Fixture.objects.filter(round__season=season, round__number=2).values_list(
            "seats__user__username", flat=True
        )
    )
    assert "s0" not in seated and "late" in seated
    assert SeasonPlayer.objects.get(season=season, user=late).seed == 7


def test_the_admins_withdrawal_needs_the_permission_to_manage_results(
    english_client_for, league, four, make_member
):
    season = season_of(league)
    for member in four:
        season.add_player(member)
    season.generate_fixtures()
    clerk = make_member("clerk", is_staff=True)
    clerk.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_seasonplayer", "change_seasonplayer"])
    )
    player = SeasonPlayer.objects.get(season=season, user=four[0])
    url = reverse("admin:leagues_seasonplayer_changelist")
    data = {"action": "withdraw", "_selected_action": [player.pk]}
    english_client_for(clerk).post(url, data)
    assert not SeasonPlayer.objects.get(pk=player.pk).withdrawn_at
    clerk.user_permissions.add(Permission.objects.get(codename="manage_league_results"))
    english_client_for(clerk).post(url, data)
    assert SeasonPlayer.objects.get(pk=player.pk).withdrawn_at
