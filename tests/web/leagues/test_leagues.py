"""Club leagues through the site: joining, fixtures, playing them, forfeits, the admin."""

from __future__ import annotations

from datetime import date, timedelta
from io import StringIO

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

from cardclub.leagues import actions
from cardclub.leagues.models import Fixture, League, LeagueError, ResultChange, Season
from games import writes
from games.models import Match
from tests.web.table_helpers import variant

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("in_english")]


@pytest.fixture
def season(league):
    return Season.objects.create(league=league, name="2026", starts_on=date.today())


@pytest.fixture
def four(make_member, alice, bob):
    return [alice, bob, make_member("dora"), make_member("eva")]


@pytest.fixture
def running(season, four):
    for member in four:
        season.add_player(member)
    season.generate_fixtures()
    return season


def my_fixture(season, user, number=1) -> Fixture:
    return Fixture.objects.get(round__season=season, round__number=number, seats__user=user)


def start_by_ready(fixture_id) -> Fixture:
    """Every seated member says "ready": the last one starts the match."""
    for seat in Fixture.objects.get(pk=fixture_id).seats.order_by("index"):
        fixture = actions.say_ready(fixture_id, seat.user)
    assert fixture.match_id is not None
    return fixture


def rows(client, season):
    page = client.get(reverse("leagues:season", args=[season.pk]))
    return {row.name: row for row in page.context["standings"]}


def test_a_member_joins_a_season_while_registration_is_open(client_for, alice, season):
    response = client_for(alice).post(reverse("leagues:join", args=[season.pk]))
    assert response.status_code == 302
    assert season.players.filter(user=alice).exists()


def test_nobody_joins_once_the_season_has_started(client_for, charlie, running):
    client_for(charlie).post(reverse("leagues:join", args=[running.pk]))
    assert not running.players.filter(user=charlie).exists()
    with pytest.raises(LeagueError):
        running.add_player(charlie)


def test_generating_fixtures_makes_every_round_and_refuses_a_second_time(running, four):
    assert running.status == Season.Status.RUNNING
    assert running.current_round == 1
    assert running.rounds.count() == 3
    assert Fixture.objects.filter(round__season=running).count() == 6
    first = running.rounds.get(number=1)
    assert first.deadline == running.deadline_for(1)
    assert running.deadline_for(2) - running.deadline_for(1) == timedelta(days=7)
    with pytest.raises(LeagueError):
        running.generate_fixtures()
    assert Fixture.objects.filter(round__season=running).count() == 6


def test_fixtures_need_a_table_size_the_house_rules_allow(season, four):
    season.format = Season.Format.TABLES
    season.table_size = 3  # Schotten Totten is for two
    season.save()
    for member in four:
        season.add_player(member)
    with pytest.raises(LeagueError):
        season.generate_fixtures()
    assert not season.rounds.exists()


def test_the_match_starts_once_every_seated_member_is_ready_in_the_fixtures_seat_order(
    client_for, running, alice
):
    fixture = my_fixture(running, alice)
    other = fixture.seats.exclude(user=alice).get().user
    response = client_for(other).post(reverse("leagues:ready", args=[fixture.pk]))
    assert response.status_code == 302
    response = client_for(alice).post(reverse("leagues:ready", args=[fixture.pk]))
    fixture.refresh_from_db()
    assert response.status_code == 302
    assert response["Location"] == fixture.match.get_absolute_url()
    match = fixture.match
    assert match.status == Match.Status.PLAYING
    assert match.rated
    assert match.variant == running.league.variant
    assert [s.user_id for s in match.seats.order_by("index")] == [
        s.user_id for s in fixture.seats.order_by("index")
    ]
    assert fixture.status == Fixture.Status.PLAYING
    assert Match.objects.count() == 1


def test_one_member_alone_does_not_start_the_match_and_is_shown_waiting_for_the_other(
    client_for, running, alice
):
    fixture = my_fixture(running, alice)
    other = fixture.seats.exclude(user=alice).get().user
    response = client_for(alice).post(
        reverse("leagues:ready", args=[fixture.pk]), {"next": running.get_absolute_url()}
    )
    assert response["Location"] == running.get_absolute_url()
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.SCHEDULED
    assert fixture.match is None
    assert not Match.objects.exists()
    page = client_for(other).get(running.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en")
    html = page.content.decode()
    row = html[html.index(f'data-fixture="{fixture.pk}"') :]
    row = row[: row.index("</li>")]
    assert 'alice: <span aria-hidden="true">✓ </span>ready' in row
    assert f"{other.username}: waiting" in row
    # The other member is offered "ready", alice the way back.
    assert reverse("leagues:ready", args=[fixture.pk]) in row
    html = client_for(alice).get(running.get_absolute_url()).content.decode()
    assert reverse("leagues:unready", args=[fixture.pk]) in html


def test_a_member_takes_ready_back_and_the_match_then_waits_for_them(client_for, running, alice):
    fixture = my_fixture(running, alice)
    other = fixture.seats.exclude(user=alice).get().user
    actions.say_ready(fixture.pk, alice)
    response = client_for(alice).post(reverse("leagues:unready", args=[fixture.pk]))
    assert response.status_code == 302
    assert fixture.seats.get(user=alice).ready_at is None
    actions.say_ready(fixture.pk, other)
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.SCHEDULED
    assert not Match.objects.exists()
    actions.say_ready(fixture.pk, alice)
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.PLAYING


def test_ready_is_only_for_the_fixtures_members_and_only_once_it_can_start(
    client_for, running, alice, charlie
):
    fixture = my_fixture(running, alice)
    with pytest.raises(LeagueError, match="You do not play in this fixture"):
        actions.say_ready(fixture.pk, charlie)
    response = client_for(charlie).post(
        reverse("leagues:ready", args=[fixture.pk]), follow=True, HTTP_ACCEPT_LANGUAGE="en"
    )
    assert "You do not play in this fixture." in response.content.decode()
    assert not fixture.seats.filter(ready_at__isnull=False).exists()
    start_by_ready(fixture.pk)
    for action in (actions.say_ready, actions.take_back_ready):
        with pytest.raises(LeagueError, match="already been started"):
            action(fixture.pk, alice)
    assert Match.objects.count() == 1
    running.close()
    later = my_fixture(running, alice, number=2)
    with pytest.raises(LeagueError, match="season is not running"):
        actions.say_ready(later.pk, alice)
    assert client_for(alice).post(reverse("leagues:ready", args=[999999])).status_code == 404


def test_a_later_rounds_fixture_waits_for_its_round(running, alice):
    with pytest.raises(LeagueError, match="round has not started"):
        actions.say_ready(my_fixture(running, alice, number=2).pk, alice)
    assert my_fixture(running, alice, number=2).seats.get(user=alice).ready_at is None
    running.next_round()
    start_by_ready(my_fixture(running, alice, number=2).pk)


def test_the_rounds_start_time_starts_its_fixtures_through_the_periodic_task(running, alice):
    from cardclub.leagues.tasks import start_fixtures_at_round_time

    first = running.rounds.get(number=1)
    mine = my_fixture(running, alice)
    actions.say_ready(mine.pk, alice)  # ready or not: the start time starts every fixture
    assert start_fixtures_at_round_time.call() == 0  # no start time set
    first.starts_at = timezone.now() + timedelta(minutes=5)
    first.save()
    assert start_fixtures_at_round_time.call() == 0  # not yet
    first.starts_at = timezone.now() - timedelta(minutes=1)
    first.save()
    assert start_fixtures_at_round_time.call() == 2
    for fixture in first.fixtures.all():
        assert fixture.status == Fixture.Status.PLAYING
        assert [s.user_id for s in fixture.match.seats.order_by("index")] == [
            s.user_id for s in fixture.seats.order_by("index")
        ]
    # Run again (a task may run twice): nothing more starts.
    assert start_fixtures_at_round_time.call() == 0
    assert Match.objects.count() == 2
    # Round 2 has no start time: its fixtures wait.
    assert not Fixture.objects.filter(round__number=2, match__isnull=False).exists()


def test_the_round_start_task_leaves_a_season_that_is_not_running_alone(running):
    from cardclub.leagues.tasks import start_fixtures_at_round_time

    running.rounds.filter(number=1).update(starts_at=timezone.now() - timedelta(hours=1))
    running.close()
    assert start_fixtures_at_round_time.call() == 0
    assert not Match.objects.exists()


def test_the_admin_sets_a_rounds_start_time(admin_client, running):
    first = running.rounds.get(number=1)
    url = reverse("admin:leagues_round_change", args=[first.pk])
    page = admin_client.get(url)
    assert page.status_code == 200
    assert 'name="starts_at_0"' in page.content.decode()
    when = timezone.localtime(first.deadline - timedelta(days=3))
    local = timezone.localtime(first.deadline)
    response = admin_client.post(
        url,
        {
            "deadline_0": local.strftime("%Y-%m-%d"),
            "deadline_1": local.strftime("%H:%M:%S"),
            "starts_at_0": when.strftime("%Y-%m-%d"),
            "starts_at_1": when.strftime("%H:%M:%S"),
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    first.refresh_from_db()
    assert first.starts_at == when.replace(microsecond=0)
    assert first.deadline == local
    # A start after the deadline is refused with a message, and nothing changes.
    late = local + timedelta(hours=1)
    response = admin_client.post(
        url,
        {
            "deadline_0": local.strftime("%Y-%m-%d"),
            "deadline_1": local.strftime("%H:%M:%S"),
            "starts_at_0": late.strftime("%Y-%m-%d"),
            "starts_at_1": late.strftime("%H:%M:%S"),
        },
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200
    assert "The round must start before its deadline." in response.content.decode()
    first.refresh_from_db()
    assert first.starts_at == when.replace(microsecond=0)


def test_a_fixture_match_that_finishes_updates_the_standings(client_for, running, alice):
    fixture = start_by_ready(my_fixture(running, alice).pk)
    opponent = fixture.seats.exclude(user=alice).get().user
    writes.resign(fixture.match.pk, alice)
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.PLAYED
    table = rows(client_for(alice), running)
    assert (table[opponent.username].points, table[opponent.username].won) == (3, 1)
    assert (table["alice"].points, table["alice"].lost) == (0, 1)
    change = ResultChange.objects.get(fixture=fixture)
    assert change.changed_by is None


def test_a_match_outside_any_league_leaves_the_standings_alone(alice, bob, running):
    match = writes.start_match_for([alice, bob], variant("schotten_totten"))
    writes.resign(match.pk, alice)
    assert not Fixture.objects.filter(status=Fixture.Status.PLAYED).exists()


def test_start_match_for_seats_members_in_the_order_given_and_starts(alice, bob):
    match = writes.start_match_for([bob, alice], variant("schotten_totten"))
    assert match.status == Match.Status.PLAYING
    assert [s.user for s in match.seats.order_by("index")] == [bob, alice]
    assert match.rated and match.state is not None


def test_the_season_page_shows_standings_rounds_and_a_ready_button(client_for, running, alice):
    page = client_for(alice).get(reverse("leagues:season", args=[running.pk]))
    html = page.content.decode()
    assert page.status_code == 200
    assert 'id="standings"' in html
    assert reverse("leagues:ready", args=[my_fixture(running, alice).pk]) in html
    assert len(page.context["rounds"]) == 3


def test_a_played_fixture_links_to_its_replay_and_the_crosstable_shows_it(
    client_for, running, alice
):
    fixture = start_by_ready(my_fixture(running, alice).pk)
    writes.resign(fixture.match.pk, alice)
    html = client_for(alice).get(reverse("leagues:season", args=[running.pk])).content.decode()
    assert reverse("games:replay", args=[fixture.match.pk]) in html
    assert 'id="crosstable"' in html


def test_the_season_page_query_count_is_pinned(
    client_for, running, alice, django_assert_max_num_queries
):
    for number in (1, 2):
        for fixture in Fixture.objects.filter(round__season=running, round__number=number):
            running.current_round = number
            running.save()
            member = fixture.seats.first().user
            started = start_by_ready(fixture.pk)
            writes.resign(started.match.pk, member)
    client = client_for(alice)
    with django_assert_max_num_queries(10):
        client.get(reverse("leagues:season", args=[running.pk]))


def test_the_lobby_lists_my_next_fixtures_with_their_deadlines(client_for, running, alice):
    html = client_for(alice).get(reverse("games:lobby")).content.decode()
    assert "league-fixtures-h" in html
    assert reverse("leagues:ready", args=[my_fixture(running, alice).pk]) in html


def test_the_league_list_shows_seasons(client_for, running, alice):
    html = client_for(alice).get(reverse("leagues:list")).content.decode()
    assert running.get_absolute_url() in html
    assert running.league.name in html


def test_a_forfeit_gives_the_other_side_the_win_and_is_audited(client_for, running, alice):
    fixture = my_fixture(running, alice)
    alice_index = fixture.seats.get(user=alice).index
    fixture.record_forfeit({alice_index}, by=alice)
    table = rows(client_for(alice), running)
    other = fixture.seats.exclude(user=alice).get().user.username
    assert (table["alice"].points, table["alice"].lost) == (0, 1)
    assert table[other].points == 3
    assert ResultChange.objects.get(fixture=fixture).changed_by == alice


def test_a_double_forfeit_gives_nobody_points(client_for, running, alice):
    fixture = my_fixture(running, alice)
    fixture.record_forfeit({0, 1})
    table = rows(client_for(alice), running)
    for seat in fixture.seats.all():
        assert (table[seat.user.username].points, table[seat.user.username].played) == (0, 1)


def test_a_played_fixtures_result_cannot_be_overwritten_by_a_forfeit(running, alice):
    fixture = start_by_ready(my_fixture(running, alice).pk)
    writes.resign(fixture.match.pk, alice)
    fixture.refresh_from_db()
    with pytest.raises(LeagueError):
        fixture.record_forfeit({0})


def test_the_overdue_command_forfeits_late_fixtures_and_reports_them(running, alice):
    late = timezone.now() - timedelta(days=1)
    started = start_by_ready(my_fixture(running, alice).pk)
    Fixture.objects.filter(round__season=running, round__number=1).update(deadline=late)
    to_move = started.match.seats.get(to_move=True).index
    out = StringIO()
    call_command("overdue_fixtures", stdout=out)
    report = out.getvalue()
    assert "recorded 2 forfeit(s)." in report
    assert "double forfeit" in report
    started.refresh_from_db()
    assert started.status == Fixture.Status.FORFEIT
    assert list(started.seats.filter(forfeited=True).values_list("index", flat=True)) == [to_move]
    other = Fixture.objects.get(round__season=running, round__number=1, match__isnull=True)
    assert other.seats.filter(forfeited=True).count() == 2


def test_the_overdue_command_can_only_report(running):
    Fixture.objects.filter(round__season=running, round__number=1).update(
        deadline=timezone.now() - timedelta(hours=1)
    )
    out = StringIO()
    call_command("overdue_fixtures", "--dry-run", stdout=out)
    assert "would record 2 forfeit(s)." in out.getvalue()
    assert not Fixture.objects.filter(status=Fixture.Status.FORFEIT).exists()


@pytest.fixture
def admin_client(client_for, make_member):
    return client_for(make_member("boss", is_staff=True, is_superuser=True))


def test_the_admin_generates_fixtures_moves_rounds_and_closes_the_season(
    admin_client, season, four
):
    for member in four:
        season.add_player(member)
    url = reverse("admin:leagues_season_changelist")

    def act(action):
        return admin_client.post(url, {"action": action, "_selected_action": [season.pk]})

    act("generate_fixtures")
    act("generate_fixtures")  # refused: the fixtures stay as they were
    season.refresh_from_db()
    assert season.status == Season.Status.RUNNING
    assert Fixture.objects.filter(round__season=season).count() == 6
    act("next_round")
    season.refresh_from_db()
    assert season.current_round == 2
    act("close_season")
    season.refresh_from_db()
    assert season.status == Season.Status.FINISHED


def test_the_admin_records_forfeits_and_extends_deadlines(admin_client, running, alice):
    url = reverse("admin:leagues_fixture_changelist")
    first = my_fixture(running, alice)
    deadline = first.deadline
    admin_client.post(url, {"action": "extend_deadline", "_selected_action": [first.pk]})
    first.refresh_from_db()
    assert first.deadline == deadline + timedelta(days=7)
    admin_client.post(url, {"action": "forfeit_second", "_selected_action": [first.pk]})
    first.refresh_from_db()
    assert first.status == Fixture.Status.FORFEIT
    assert first.seats.get(index=1).forfeited
    assert first.changes.filter(changed_by__username="boss").count() == 2
    page = admin_client.get(url + "?overdue=yes")
    assert page.status_code == 200


def test_table_seasons_seat_several_members_and_rank_points_by_place(make_member, client_for):
    scout = League.objects.create(name="Scout", game="scout", variant=variant("scout"))
    season = Season.objects.create(
        league=scout, name="T", format=Season.Format.TABLES, table_size=3, table_rounds=3
    )
    members = [make_member(f"m{i}") for i in range(4)]
    for member in members:
        season.add_player(member)
    season.generate_fixtures()
    first = season.rounds.get(number=1)
    assert first.fixtures.count() == 1
    fixture = first.fixtures.get()
    seated = [s.user for s in fixture.seats.order_by("index")]
    started = start_by_ready(fixture.pk)
    writes.resign(started.match.pk, seated[0])
    table = rows(client_for(seated[1]), season)
    assert table[seated[0].username].points == 0
    assert table[seated[1].username].points == 2  # shared first of three: 2/1/0
    page = client_for(seated[1]).get(reverse("leagues:season", args=[season.pk]))
    assert page.context["crosstable"] is None
    assert len(page.context["sitting_out"]) == 1


def test_the_season_page_shows_the_round_asked_for(client_for, running, alice):
    page = client_for(alice).get(reverse("leagues:season", args=[running.pk]) + "?round=3")
    assert page.context["round"].number == 3
    assert not page.context["round_open"]  # round 3 has not started: no start button
    assert 'action="/leagues/fixture/' not in page.content.decode()
    page = client_for(alice).get(reverse("leagues:season", args=[running.pk]) + "?round=x")
    assert page.context["round"].number == 1


def test_the_lobbys_plain_read_of_my_unplayed_fixtures_finds_what_the_orm_query_finds(
    running, alice, bob
):
    from cardclub.leagues.models import FixtureSeat
    from cardclub.leagues.views import _my_unplayed_fixture_ids

    def by_orm(user):
        return sorted(
            FixtureSeat.objects.filter(
                user=user,
                fixture__status__in=[Fixture.Status.SCHEDULED, Fixture.Status.PLAYING],
                fixture__round__season__status=Season.Status.RUNNING,
            ).values_list("fixture_id", flat=True)
        )

    start_by_ready(my_fixture(running, alice).pk)  # one playing, the others scheduled
    my_fixture(running, alice, number=2).record_forfeit({0}, by=alice)  # one no longer unplayed
    for member in (alice, bob):
        assert sorted(_my_unplayed_fixture_ids(member.pk)) == by_orm(member) != []
    Season.objects.filter(pk=running.pk).update(status=Season.Status.FINISHED)
    assert _my_unplayed_fixture_ids(alice.pk) == by_orm(alice) == []
