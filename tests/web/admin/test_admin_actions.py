"""Every admin action declares the permission it needs (issue 29), and a staff member who may only
view runs none of them.

A view-only staff member had hidden a chat message, deactivated house rules, closed a season
and extended a fixture's deadline by posting the admin's actions, which declared no permission.
Here every action of every registered admin (read from the admin site, so a new one is walked
too) is posted over HTTP, as the admin's own form posts it, with every row of its list selected:
by a view-only member nothing in the database changes and nothing answers 5xx; by the superuser
the same post does change something, so the walk would have caught the gap.
"""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from axes.models import AccessAttempt
from django.apps import apps
from django.contrib import admin
from django.contrib.admin.helpers import ACTION_CHECKBOX_NAME
from django.contrib.auth.models import Permission
from django.contrib.sessions.models import Session
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from cardclub.chat.models import Message
from cardclub.leagues.models import League, Season
from tests.web.table_helpers import start_match, variant

pytestmark = pytest.mark.django_db


def every_action():
    """(model, action name) for every action every registered admin has, Django's own
    "delete selected" included."""
    return sorted(
        (
            (model, name)
            for model, model_admin in admin.site._registry.items()
            for _func, name, _description in model_admin._get_base_actions()
        ),
        key=lambda pair: (pair[0]._meta.label, pair[1]),
    )


def custom_actions():
    return [(model, name) for model, name in every_action() if name != "delete_selected"]


@pytest.fixture
def club(make_member, alice, bob, viewer, boss):
    """A row or more in every admin that has an action, in a state the action would change.
    Made after the staff logged in: a login clears the expired login attempts."""
    match = start_match("escoba", [alice, bob])
    Message.objects.create(match=match, author=alice, text="hola")
    Message.objects.create(match=match, author=bob, text="adiós", hidden_at=timezone.now())
    league = League.objects.create(
        name="Liga", game="schotten_totten", variant=variant("schotten_totten")
    )
    running = Season.objects.create(league=league, name="running", starts_on=date.today())
    draft = Season.objects.create(league=league, name="draft", starts_on=date.today())
    for member in [alice, bob, make_member("dora"), make_member("eva")]:
        running.add_player(member)
        draft.add_player(member)
    running.generate_fixtures()
    # Divisions: a finished Division I and next season's, for "promote and relegate".
    last = Season.objects.create(
        league=league, name="last", division=1, starts_on=date.today() - timedelta(days=30)
    )
    last.add_player(alice)
    Season.objects.filter(pk=last.pk).update(status=Season.Status.FINISHED)
    Season.objects.create(league=league, name="next", division=1, starts_on=date.today())
    attempt = AccessAttempt.objects.create(
        username="alice", ip_address="10.0.0.1", failures_since_start=3, user_agent="x"
    )
    AccessAttempt.objects.filter(pk=attempt.pk).update(
        attempt_time=timezone.now() - timedelta(days=2)
    )


@pytest.fixture
def viewer(django_user_model):
    """A staff member with every "view" permission and no other."""
    user = django_user_model.objects.create_user("viewer", password="x", is_staff=True)
    user.user_permissions.set(Permission.objects.filter(codename__startswith="view_"))
    # A server error is answered (and counted) as the server would, not raised in the test.
    client = Client(raise_request_exception=False)
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


@pytest.fixture
def boss(django_user_model):
    user = django_user_model.objects.create_superuser("boss", "boss@example.com", "x")
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


def snapshot() -> dict:
    """Every row of every table (sessions aside: they carry the admin's messages)."""
    return {
        model._meta.label: list(model._base_manager.order_by("pk").values())
        for model in apps.get_models()
        if model is not Session
    }


def post_action(client, model, name):
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    selected = [str(pk) for pk in model._default_manager.values_list("pk", flat=True)]
    return client.post(url, {"action": name, ACTION_CHECKBOX_NAME: selected, "index": 0})


def test_every_custom_action_declares_a_permission():
    undeclared = [
        f"{model._meta.label}.{name}"
        for model, model_admin in admin.site._registry.items()
        for func, name, _description in model_admin._get_base_actions()
        if not getattr(func, "allowed_permissions", None)
    ]
    assert undeclared == []
    assert len(custom_actions()) >= 12


def test_a_view_only_staff_member_runs_no_action_and_gets_no_error(club, viewer):
    # The first request writes the member's "last seen"; that is not an action's doing.
    assert viewer.get(reverse("admin:index")).status_code == 200
    offered, changed, errors = [], [], []
    for model, name in every_action():
        action = f"{model._meta.label}.{name}"
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        page = viewer.get(url)
        assert page.status_code == 200, url
        form = page.context.get("action_form")
        if form and name in [value for value, _label in form.fields["action"].choices]:
            offered.append(action)
        before = snapshot()
        response = post_action(viewer, model, name)
        if response.status_code >= 500:
            errors.append(action)
        if snapshot() != before:
            changed.append(action)
    assert (offered, changed, errors) == ([], [], [])
    assert len(every_action()) >= 13


@pytest.mark.parametrize(
    "model, name", custom_actions(), ids=lambda v: v if isinstance(v, str) else v._meta.label
)
def test_the_superuser_runs_the_same_post_and_it_changes_the_club(club, boss, model, name):
    """The control: the walk's posts are the ones that work for a member allowed to."""
    assert boss.get(reverse("admin:index")).status_code == 200
    before = snapshot()
    response = post_action(boss, model, name)
    assert response.status_code == 302, f"{model._meta.label}.{name}"
    assert snapshot() != before, f"{model._meta.label}.{name} changed nothing"


def test_league_results_need_their_own_permission_beside_change(club, django_user_model):
    """ "Can change season/fixture" lets a member close a season or extend a deadline, not
    write results: generating fixtures, the next round and forfeits need "Can manage league
    results"."""
    user = django_user_model.objects.create_user("clerk", password="x", is_staff=True)
    user.user_permissions.set(
        Permission.objects.filter(
            codename__in=["view_season", "change_season", "view_fixture", "change_fixture"]
        )
    )
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")

    def offered(model_name):
        page = client.get(reverse(f"admin:leagues_{model_name}_changelist"))
        return {value for value, _label in page.context["action_form"].fields["action"].choices}

    assert offered("season") == {"", "close_season", "promote_and_relegate"}
    assert offered("fixture") == {"", "extend_deadline"}
    user.user_permissions.add(Permission.objects.get(codename="manage_league_results"))
    assert {"generate_fixtures", "next_round"} <= offered("season")
    assert {"forfeit_first", "forfeit_all", "forfeit_holding_up"} <= offered("fixture")
    response = post_action(client, Season, "next_round")
    assert response.status_code == 302
    assert Season.objects.get(name="running").current_round == 2
