"""Notifications (issue 21): each event tells the members it concerns, as each chose (site list,
e-mail, off), in their language, with a signed one-click unsubscribe; the bell counts the unread
ones and rings live after the commit."""

from __future__ import annotations

from datetime import date, timedelta
from types import SimpleNamespace
from unittest import mock

import pytest
from django.core import mail
from django.core.cache import cache
from django.http import HttpResponse
from django.urls import reverse
from django.utils import timezone, translation
from django_tasks import default_task_backend

from cardclub.accounts.models import Preferences
from cardclub.leagues.models import Fixture, League, Season
from cardclub.notifications import seen as last_seen
from cardclub.notifications import services, tasks
from cardclub.notifications.middleware import LastSeenMiddleware
from cardclub.notifications.models import Choice, Kind, Notification, NotificationSetting
from cardclub.notifications.unsubscribe import SALT, make_token
from games import push, writes
from games import tasks as game_tasks
from games.models import Match
from tests.web.table_helpers import engine_state, post_move, start_match, variant
from tests.web.tables.test_clocks import Frozen, correspondence, live

pytestmark = pytest.mark.django_db

DUMMY = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}


@pytest.fixture(autouse=True)
def fresh(settings):
    # "Last seen" is remembered in the cache per member id, and ids come back in every test.
    cache.clear()
    settings.TASKS = DUMMY
    default_task_backend.clear()
    yield
    cache.clear()


def run_queued_mail() -> int:
    sent = 0
    for job in [r for r in default_task_backend.results if r.task.name.endswith("emails")]:
        sent += job.task.call(*job.args, **job.kwargs)
    default_task_backend.clear()
    return sent


def run_queued(name: str) -> int:
    done = 0
    for job in [r for r in default_task_backend.results if r.task.name == name]:
        done += job.task.call(*job.args, **job.kwargs)
    return done


@pytest.fixture
def frozen():
    """The site's clock, moved by hand (as in test_clocks)."""
    clock = Frozen()
    with mock.patch("django.utils.timezone.now", clock):
        yield clock


@pytest.fixture
def match(alice, bob):
    return start_match("escoba", [alice, bob])


def to_move(match):
    state = engine_state(match)
    return match.engine.to_move(state)[0], state


def long_ago(match, seconds=3600):
    Match.objects.filter(pk=match.pk).update(updated_at=timezone.now() - timedelta(seconds=seconds))


def seen(user, seconds_ago):
    Preferences.objects.update_or_create(
        user=user, defaults={"last_seen": timezone.now() - timedelta(seconds=seconds_ago)}
    )


@pytest.fixture
def season(alice, bob, make_member):
    league = League.objects.create(
        name="Liga de otoño", game="schotten_totten", variant=variant("schotten_totten")
    )
    season = Season.objects.create(league=league, name="2026", starts_on=date.today())
    for member in (alice, bob, make_member("dora"), make_member("eva")):
        season.add_player(member)
    return season


# --- each kind from its event ----------------------------------------------------------------


def test_generating_fixtures_tells_every_seated_member_once_per_fixture(season, alice):
    season.generate_fixtures()
    fixtures = Fixture.objects.filter(round__season=season)
    assert Notification.objects.filter(kind=Kind.NEW_FIXTURE).count() == 2 * fixtures.count()
    mine = Notification.objects.filter(user=alice, kind=Kind.NEW_FIXTURE)
    assert {n.fixture_id for n in mine} == set(
        fixtures.filter(seats__user=alice).values_list("pk", flat=True)
    )


def test_a_played_fixture_tells_both_members_its_result_by_the_worker(
    season, alice, bob, django_capture_on_commit_callbacks
):
    season.generate_fixtures()
    Notification.objects.all().delete()
    fixture = Fixture.objects.get(round__season=season, round__number=1, seats__user=alice)
    from cardclub.leagues import actions as league_actions

    for seat in fixture.seats.all():
        started = league_actions.say_ready(fixture.pk, seat.user)
    with django_capture_on_commit_callbacks(execute=True):
        writes.resign(started.match.pk, alice)
    # The request that ended the match wrote nothing; the worker does.
    assert not Notification.objects.exists()
    assert run_queued("notify_result") == 2
    assert run_queued("notify_result") == 0  # run twice, told once
    members = set(fixture.seats.values_list("user_id", flat=True))
    rows = Notification.objects.filter(fixture=fixture)
    assert {(n.user_id, n.kind) for n in rows} == {(m, Kind.RESULT) for m in members}


def test_a_forfeit_tells_the_loser_forfeit_and_the_winner_result(
    season, alice, django_capture_on_commit_callbacks
):
    season.generate_fixtures()
    Notification.objects.all().delete()
    fixture = Fixture.objects.get(round__season=season, round__number=1, seats__user=alice)
    loser = fixture.seats.get(user=alice)
    with django_capture_on_commit_callbacks(execute=True):
        fixture.record_forfeit([loser.index])
    run_queued("notify_result")
    other = fixture.seats.exclude(user=alice).get().user_id
    assert set(Notification.objects.values_list("user_id", "kind")) == {
        (alice.pk, Kind.FORFEIT),
        (other, Kind.RESULT),
    }


def test_an_extended_deadline_is_not_a_result(season, alice, django_capture_on_commit_callbacks):
    season.generate_fixtures()
    Notification.objects.all().delete()
    with django_capture_on_commit_callbacks(execute=True):
        Fixture.objects.filter(seats__user=alice).first().extend_deadline(3)
    assert default_task_backend.results == []
    assert not Notification.objects.exists()


def test_a_deadline_within_a_day_is_announced_once_per_fixture_and_member(season, alice):
    season.generate_fixtures()
    fixture = Fixture.objects.get(round__season=season, round__number=1, seats__user=alice)
    Fixture.objects.filter(pk=fixture.pk).update(deadline=timezone.now() + timedelta(hours=5))
    Fixture.objects.exclude(pk=fixture.pk).update(deadline=timezone.now() + timedelta(days=3))
    assert tasks.notify_deadlines.call() == 2
    assert tasks.notify_deadlines.call() == 0
    rows = Notification.objects.filter(kind=Kind.DEADLINE_SOON)
    assert {n.fixture_id for n in rows} == {fixture.pk}
    assert alice.pk in {n.user_id for n in rows}


def test_a_member_who_runs_out_of_time_hears_they_lost_on_time(
    frozen, alice, bob, django_capture_on_commit_callbacks
):
    live(minutes=1, increment=0)
    match = start_match("escoba", [alice, bob])
    late, _state = to_move(match)
    frozen.advance(seconds=61)
    with django_capture_on_commit_callbacks(execute=True):
        assert game_tasks.sweep_clocks.call() == 1
    assert not Notification.objects.exists()  # the sweep only queued it
    with django_capture_on_commit_callbacks(execute=True):
        assert run_queued("notify_lost_on_time") == 2
    assert run_queued("notify_lost_on_time") == 0  # run twice, told once
    # The loser hears "forfeit", and the winner the result (tests/web/words/test_result_words.py).
    rows = {(n.user, n.kind, n.match_id) for n in Notification.objects.all()}
    assert rows == {
        ([alice, bob][late], Kind.FORFEIT, match.pk),
        ([bob, alice][late], Kind.RESULT, match.pk),
    }
    assert run_queued_mail() == 2  # forfeit and result: e-mail by default
    assert sorted(m.to[0] for m in mail.outbox) == [alice.email, bob.email]


def test_a_league_match_lost_on_time_with_nobody_watching_tells_both_members_by_mail(
    frozen, make_member, django_capture_on_commit_callbacks
):
    from cardclub.leagues import actions as league_actions

    correspondence(game="schotten_totten", days=1)
    league = League.objects.create(
        name="Liga", game="schotten_totten", variant=variant("schotten_totten")
    )
    season = Season.objects.create(league=league, name="2026", starts_on=date.today())
    ana, ben = make_member("ana"), make_member("ben")
    Preferences.objects.filter(user=ben).update(email_language="en")
    for member in (ana, ben):
        season.add_player(member)
    season.generate_fixtures()
    fixture = Fixture.objects.get(round__season=season)
    league_actions.say_ready(fixture.pk, ana)
    match = league_actions.say_ready(fixture.pk, ben).match
    Notification.objects.all().delete()
    late, _state = to_move(match)
    loser = match.seats.get(index=late).user
    winner = ben if loser == ana else ana
    frozen.advance(days=1, seconds=1)
    with django_capture_on_commit_callbacks(execute=True):
        assert game_tasks.sweep_clocks.call() == 1
    # The worker runs what the sweep queued: the fixture's result, the loss on time.
    with django_capture_on_commit_callbacks(execute=True):
        run_queued("notify_result")
        run_queued("notify_lost_on_time")
    assert set(Notification.objects.values_list("user_id", "kind")) == {
        (loser.pk, Kind.RESULT),
        (loser.pk, Kind.FORFEIT),
        (winner.pk, Kind.RESULT),
    }
    assert run_queued_mail() == 3
    by_member = {}
    for message in mail.outbox:
        by_member.setdefault(message.to[0], []).append(message.subject)
    assert len(by_member[loser.email]) == 2 and len(by_member[winner.email]) == 1
    english = by_member[ben.email]
    assert any("Liga — 2026" in subject for subject in english)
    assert all(subject.startswith("cardclub: ") for subject in english)
    assert any("The result of your fixture" in s for s in english)


def test_a_correspondence_move_due_within_a_day_is_told_once_per_move(frozen, alice, bob):
    correspondence(days=2)
    match = start_match("escoba", [alice, bob])
    seat, state = to_move(match)
    member = [alice, bob][seat]
    assert tasks.notify_deadlines.call() == 0  # two days left
    frozen.advance(hours=25)
    assert tasks.notify_deadlines.call() == 1
    assert tasks.notify_deadlines.call() == 0
    [row] = Notification.objects.all()
    assert (row.user, row.kind, row.match_id) == (member, Kind.DEADLINE_SOON, match.pk)

    # The member moves, the other answers at once: a fresh two days, then a new notice.
    writes.play_move(match.pk, member, match.engine.legal_moves(state, seat)[0].code, match.version)
    match.refresh_from_db()
    other_seat, other_state = to_move(match)
    writes.play_move(
        match.pk,
        [alice, bob][other_seat],
        match.engine.legal_moves(other_state, other_seat)[0].code,
        match.version,
    )
    frozen.advance(hours=1)
    assert tasks.notify_deadlines.call() == 0
    frozen.advance(hours=24)
    assert tasks.notify_deadlines.call() == 1


def test_a_lost_match_on_time_is_one_call_and_reads_as_such(match, alice):
    notification = services.notify(alice, Kind.FORFEIT, match=match)
    with translation.override("es"):
        assert notification.text() == f"Has perdido Escoba de 15 #{match.pk} por tiempo."
    with translation.override("en"):
        assert notification.text() == f"You lost Escoba de 15 #{match.pk} on time."


# --- your turn --------------------------------------------------------------------------------


def test_your_turn_waits_a_little_then_comes_once_until_the_member_moves(match, alice, bob):
    seat, state = to_move(match)
    member = [alice, bob][seat]
    assert tasks.notify_waiting_turns.call() == 0  # it has just become their turn
    long_ago(match)
    assert tasks.notify_waiting_turns.call() == 1
    assert tasks.notify_waiting_turns.call() == 0
    [row] = Notification.objects.filter(kind=Kind.YOUR_TURN)
    assert (row.user, row.match_id) == (member, match.pk)

    # The member moves; after the other's reply it is their turn again: a new one is due.
    writes.play_move(match.pk, member, match.engine.legal_moves(state, seat)[0].code, match.version)
    match.refresh_from_db()
    other_seat, other_state = to_move(match)
    other = [alice, bob][other_seat]
    writes.play_move(
        match.pk, other, match.engine.legal_moves(other_state, other_seat)[0].code, match.version
    )
    Notification.objects.filter(kind=Kind.YOUR_TURN).update(
        created_at=timezone.now() - timedelta(hours=2)
    )
    from games.models import MoveRecord

    MoveRecord.objects.filter(match=match).update(created_at=timezone.now() - timedelta(hours=1))
    long_ago(match, 60 * 10)
    match.refresh_from_db()
    assert to_move(match)[0] == seat
    assert tasks.notify_waiting_turns.call() == 1
    assert Notification.objects.filter(kind=Kind.YOUR_TURN, user=member).count() == 2


def test_your_turn_is_mailed_only_to_a_member_not_seen_recently(
    match, alice, bob, settings, django_capture_on_commit_callbacks
):
    seat, _state = to_move(match)
    member = [alice, bob][seat]
    NotificationSetting.set_choice(member, Kind.YOUR_TURN, Choice.EMAIL)
    seen(member, 60)
    long_ago(match)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.notify_waiting_turns.call() == 1
    assert run_queued_mail() == 0
    assert mail.outbox == []
    assert Notification.objects.filter(user=member, kind=Kind.YOUR_TURN).count() == 1

    Notification.objects.all().delete()
    seen(member, settings.SEEN_RECENTLY + 60)
    with django_capture_on_commit_callbacks(execute=True):
        assert tasks.notify_waiting_turns.call() == 1
    assert run_queued_mail() == 1
    assert mail.outbox[0].to == [member.email]


def test_your_turn_to_a_member_away_is_mailed_after_the_commit(
    match, alice, bob, django_capture_on_commit_callbacks
):
    seat, _state = to_move(match)
    member = [alice, bob][seat]
    NotificationSetting.set_choice(member, Kind.YOUR_TURN, Choice.EMAIL)
    long_ago(match)
    with django_capture_on_commit_callbacks(execute=True):
        tasks.notify_waiting_turns.call()
    assert run_queued_mail() == 1
    assert mail.outbox[0].to == [member.email]
    assert f"#{match.pk}" in mail.outbox[0].subject


def test_the_move_request_itself_notifies_nobody(match, alice, bob, client_for):
    seat, state = to_move(match)
    client = client_for([alice, bob][seat])
    assert (
        post_move(client, match, match.engine.legal_moves(state, seat)[0].code).status_code == 200
    )
    assert not Notification.objects.exists()


def test_switching_language_is_recorded_at_once_for_the_emails(alice_client, alice):
    # (override: the requests activate English in this thread; leave it as it was found)
    with translation.override("es"):
        alice_client.get(reverse("home"))
        assert Preferences.objects.get(user=alice).mail_language == "es"
        alice_client.post(reverse("set_language"), {"language": "en", "next": "/"})
        alice_client.get(reverse("home"))
        assert Preferences.objects.get(user=alice).mail_language == "en"


def test_a_move_deadline_is_told_once_per_move(match, alice):
    moved = timezone.now() - timedelta(hours=1)
    assert services.notify(alice, Kind.DEADLINE_SOON, match=match, since=moved)
    assert services.notify(alice, Kind.DEADLINE_SOON, match=match, since=moved) is None
    assert services.notify(alice, Kind.DEADLINE_SOON, match=match, since=timezone.now())
    with translation.override("es"):
        texts = [n.text() for n in Notification.objects.all()]
    assert texts == [f"Tu jugada en Escoba de 15 #{match.pk} vence en menos de 24 horas."] * 2


def test_a_visit_to_the_site_records_last_seen_once_in_a_while(
    alice_client, alice, django_assert_num_queries
):
    alice_client.get(reverse("home"))
    first = Preferences.objects.get(user=alice).last_seen
    assert first is not None
    assert Preferences.objects.get(user=alice).site_language == "es"
    alice_client.get(reverse("home"))
    assert Preferences.objects.get(user=alice).last_seen == first


def test_a_club_with_a_thousand_members_online_notes_each_of_them_once_in_a_while(rf, monkeypatch):
    # The process's cache remembers who was noted lately; were it to forget (a cache too
    # small for the club culls its keys), every request would be another write of "last seen".
    noted = []
    monkeypatch.setattr(last_seen, "note", lambda user_id, when, language: noted.append(user_id))
    remember_visit = LastSeenMiddleware(lambda request: HttpResponse())
    members = [SimpleNamespace(pk=pk, is_authenticated=True) for pk in range(1, 1001)]
    for _page in range(3):
        for member in members:
            request = rf.get("/play/")
            request.user = member
            remember_visit(request)
    assert len(noted) == len(members)


# --- choices ----------------------------------------------------------------------------------


def test_off_means_nothing_at_all(match, alice):
    NotificationSetting.set_choice(alice, Kind.FORFEIT, Choice.OFF)
    assert services.notify(alice, Kind.FORFEIT, match=match) is None
    assert not Notification.objects.exists()


def test_site_means_the_list_and_no_mail(match, alice, django_capture_on_commit_callbacks):
    NotificationSetting.set_choice(alice, Kind.FORFEIT, Choice.SITE)
    with django_capture_on_commit_callbacks(execute=True):
        assert services.notify(alice, Kind.FORFEIT, match=match)
    assert run_queued_mail() == 0
    assert mail.outbox == []


def test_email_is_sent_by_the_worker_after_the_commit_and_only_once(
    match, alice, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        notification = services.notify(alice, Kind.FORFEIT, match=match)
    assert default_task_backend.results == []  # nothing queued before the commit
    for callback in callbacks:
        callback()
    [job] = default_task_backend.results
    assert job.task.call(*job.args, **job.kwargs) == 1
    assert job.task.call(*job.args, **job.kwargs) == 0  # run twice, mailed once
    assert len(mail.outbox) == 1
    notification.refresh_from_db()
    assert notification.emailed_at is not None


def test_the_email_speaks_the_members_language_and_can_unsubscribe(
    match, alice, bob, django_capture_on_commit_callbacks
):
    Preferences.objects.filter(user=alice).update(site_language="en")
    Preferences.objects.filter(user=bob).update(site_language="en", email_language="es")
    with django_capture_on_commit_callbacks(execute=True):
        services.notify(alice, Kind.FORFEIT, match=match)
        services.notify(bob, Kind.FORFEIT, match=match)
    assert run_queued_mail() == 2
    english, spanish = sorted(mail.outbox, key=lambda m: m.to)
    assert english.to == [alice.email]
    assert f"You lost Escoba de 15 #{match.pk} on time." in english.body
    assert "Hello alice" in english.body
    assert f"Has perdido Escoba de 15 #{match.pk} por tiempo." in spanish.body
    assert "Hola bob" in spanish.body
    assert '<html lang="en">' in english.alternatives[0][0]
    assert '<html lang="es">' in spanish.alternatives[0][0]
    for message in (english, spanish):
        html = message.alternatives[0][0]
        assert message.alternatives[0][1] == "text/html"
        assert "/notifications/unsubscribe/" in html
        assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        link = message.extra_headers["List-Unsubscribe"].strip("<>")
        assert link.startswith("http://127.0.0.1:8000/notifications/unsubscribe/")
        assert link in message.body


def test_a_member_without_an_address_gets_the_list_but_no_mail(
    match, alice, django_capture_on_commit_callbacks
):
    alice.email = ""
    alice.save()
    with django_capture_on_commit_callbacks(execute=True):
        services.notify(alice, Kind.FORFEIT, match=match)
    assert run_queued_mail() == 0
    assert Notification.objects.filter(user=alice).count() == 1


# --- unsubscribe ------------------------------------------------------------------------------


def unsubscribe_url(user, kind=Kind.RESULT):
    return reverse("notifications:unsubscribe", args=[make_token(user.pk, kind)])


def test_the_unsubscribe_link_asks_first_then_turns_that_kinds_mail_off(client, alice):
    url = unsubscribe_url(alice)
    page = client.get(url)
    assert page.status_code == 200
    assert b"<form" in page.content
    assert NotificationSetting.choice_for(alice, Kind.RESULT) == Choice.EMAIL
    assert client.post(url).status_code == 200
    assert NotificationSetting.choice_for(alice, Kind.RESULT) == Choice.SITE
    assert NotificationSetting.choice_for(alice, Kind.FORFEIT) == Choice.EMAIL


def test_a_mail_clients_one_click_post_needs_no_csrf_token(alice):
    from django.test import Client

    strict = Client(enforce_csrf_checks=True)
    response = strict.post(
        unsubscribe_url(alice, Kind.NEW_FIXTURE), {"List-Unsubscribe": "One-Click"}
    )
    assert response.status_code == 200
    assert NotificationSetting.choice_for(alice, Kind.NEW_FIXTURE) == Choice.SITE


@pytest.mark.parametrize("how", ["tampered", "other-salt", "garbage", "unknown-kind"])
def test_a_bad_unsubscribe_token_is_refused_and_changes_nothing(client, alice, how):
    from django.core import signing

    token = make_token(alice.pk, Kind.RESULT)
    if how == "tampered":
        token = signing.dumps({"u": alice.pk + 1, "k": "result"}, salt="x")[:-3] + token[-3:]
    elif how == "other-salt":
        token = signing.dumps({"u": alice.pk, "k": "result"})
    elif how == "garbage":
        token = "not-a-token"
    else:
        # Genuinely signed, but for a kind that does not exist.
        token = signing.dumps({"u": alice.pk, "k": "everything"}, salt=SALT)
    url = reverse("notifications:unsubscribe", args=[token])
    for response in (client.get(url), client.post(url)):
        assert response.status_code == 400
        assert "no es válido".encode() in response.content
    assert not NotificationSetting.objects.exists()


# --- the bell and the list --------------------------------------------------------------------


def test_the_bell_counts_the_unread_and_the_list_shows_the_newest_first(
    match, alice, bob, client_for
):
    first = services.notify(alice, Kind.FORFEIT, match=match)
    Notification.objects.filter(pk=first.pk).update(created_at=timezone.now() - timedelta(hours=1))
    second = services.notify(alice, Kind.YOUR_TURN, match=match)
    services.notify(bob, Kind.YOUR_TURN, match=match)
    client = client_for(alice)
    home = client.get(reverse("home")).content.decode()
    assert 'id="bell"' in home
    assert '<span class="bell-count">2</span>' in home
    page = client.get(reverse("notifications:list"))
    assert [n.pk for n in page.context["page"].object_list] == [second.pk, first.pk]
    assert f"Es tu turno en Escoba de 15 #{match.pk}." in page.content.decode()


def test_opening_a_notification_marks_it_read_and_leads_to_its_match(match, alice, client_for):
    notification = services.notify(alice, Kind.YOUR_TURN, match=match)
    client = client_for(alice)
    response = client.get(notification.get_absolute_url())
    assert response.status_code == 302
    assert response["Location"] == match.get_absolute_url()
    notification.refresh_from_db()
    assert notification.is_read
    bell = client.get(reverse("notifications:bell")).content.decode()
    assert '<span class="bell-count">0</span>' in bell


def test_mark_all_read_is_a_post(match, alice, client_for):
    services.notify(alice, Kind.YOUR_TURN, match=match)
    services.notify(alice, Kind.FORFEIT, match=match)
    client = client_for(alice)
    assert client.get(reverse("notifications:mark_all_read")).status_code == 405
    assert Notification.objects.unread().count() == 2
    client.post(reverse("notifications:mark_all_read"))
    assert Notification.objects.unread().count() == 0


def test_a_member_never_sees_or_opens_anothers_notifications(match, alice, bob, client_for):
    theirs = services.notify(bob, Kind.YOUR_TURN, match=match)
    client = client_for(alice)
    assert client.get(theirs.get_absolute_url()).status_code == 404
    theirs.refresh_from_db()
    assert not theirs.is_read
    assert list(client.get(reverse("notifications:list")).context["page"].object_list) == []
    assert '<span class="bell-count">0</span>' in client.get(reverse("home")).content.decode()


def test_anonymous_visitors_have_no_bell_and_no_list(client):
    assert 'id="bell"' not in client.get(reverse("home")).content.decode()
    response = client.get(reverse("notifications:list"))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]


def test_the_bell_rings_on_the_members_stream_only_after_the_commit(
    match, alice, monkeypatch, django_capture_on_commit_callbacks
):
    heard = []
    monkeypatch.setattr(
        push, "publish_event", lambda keys, event, value: heard.append((list(keys), event, value))
    )
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        services.notify(alice, Kind.YOUR_TURN, match=match)
        services.notify(alice, Kind.FORFEIT, match=match)
    assert heard == []
    for callback in callbacks:
        callback()
    assert heard == [
        ([push.member_key(alice.pk)], "bell", 1),
        ([push.member_key(alice.pk)], "bell", 2),
    ]


def test_a_page_with_a_stream_has_a_bell_that_refreshes_itself(match, alice, client_for):
    page = client_for(alice).get(match.get_absolute_url()).content.decode()
    assert f'data-refresh="{reverse("notifications:bell")}"' in page
    assert "js/bell.js" in page


# --- the profile ------------------------------------------------------------------------------


def test_the_profile_chooses_per_kind_and_the_mail_language(alice_client, alice):
    data = {"first_name": "", "last_name": "", "email": alice.email, "notify-email_language": "en"}
    data.update({f"notify-{kind}": Choice.SITE for kind in Kind.values})
    data["notify-result"] = Choice.OFF
    response = alice_client.post(reverse("profile_edit"), data)
    assert response.status_code == 302
    assert NotificationSetting.choice_for(alice, Kind.RESULT) == Choice.OFF
    assert NotificationSetting.choice_for(alice, Kind.NEW_FIXTURE) == Choice.SITE
    assert Preferences.objects.get(user=alice).mail_language == "en"


def test_a_bad_choice_on_the_profile_changes_nothing(alice_client, alice):
    data = {"first_name": "Alicia", "last_name": "", "email": alice.email}
    data.update({f"notify-{kind}": Choice.SITE for kind in Kind.values})
    data["notify-result"] = "loudly"
    response = alice_client.post(reverse("profile_edit"), data)
    assert response.status_code == 200
    assert response.context["notify_form"].errors
    alice.refresh_from_db()
    assert alice.first_name == ""
    assert not NotificationSetting.objects.exists()


def test_notifications_are_read_only_in_the_admin(match, admin_client, alice):
    services.notify(alice, Kind.YOUR_TURN, match=match)
    assert (
        admin_client.get(reverse("admin:notifications_notification_changelist")).status_code == 200
    )
    assert admin_client.get(reverse("admin:notifications_notification_add")).status_code == 403


def test_a_profile_posted_without_the_notification_choices_keeps_them(alice_client, alice):
    NotificationSetting.set_choice(alice, Kind.RESULT, Choice.OFF)
    response = alice_client.post(
        reverse("profile_edit"), {"first_name": "Alicia", "last_name": "", "email": alice.email}
    )
    assert response.status_code == 302
    assert NotificationSetting.choice_for(alice, Kind.RESULT) == Choice.OFF


def test_a_new_member_has_preferences_so_last_seen_is_one_update(
    make_member, client_for, django_assert_max_num_queries
):
    dora = make_member("dora")
    assert Preferences.objects.filter(user=dora, last_seen=None).exists()
    client = client_for(dora)
    # session, user, the count, and the one UPDATE of "last seen" (first visit in a while)
    with django_assert_max_num_queries(4):
        client.get(reverse("notifications:bell"))
    assert Preferences.objects.get(user=dora).last_seen is not None
