from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.urls import reverse

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db
User = get_user_model()


def signup(client, **fields):
    data = {
        "username": "dora",
        "email": "",
        "password1": PASSWORD,
        "password2": PASSWORD,
        **fields,
    }
    return client.post(reverse("signup"), data)


def login(client, username, password):
    return client.post(reverse("login"), {"username": username, "password": password})


def test_signing_up_creates_the_member_and_logs_them_in(client):
    response = signup(client)
    assert response.status_code == 302
    user = User.objects.get(username="dora")
    assert client.session["_auth_user_id"] == str(user.pk)


def test_signing_up_with_a_taken_username_shows_an_error_and_creates_nothing(client, alice):
    response = signup(client, username="Alice")
    assert response.status_code == 200
    assert "username" in response.context["form"].errors
    assert User.objects.count() == 1


def test_a_weak_password_is_refused_on_the_form(client):
    response = signup(client, password1="12345678", password2="12345678")
    assert response.status_code == 200
    assert response.context["form"].errors["password2"]
    assert not User.objects.filter(username="dora").exists()


def test_mismatched_passwords_are_refused_on_the_form(client):
    response = signup(client, password2=PASSWORD + "x")
    assert response.context["form"].errors["password2"]
    assert not User.objects.exists()


def test_a_member_logs_in_with_the_right_password(client, alice):
    response = login(client, "alice", PASSWORD)
    assert response.status_code == 302
    assert client.session["_auth_user_id"] == str(alice.pk)


def test_a_wrong_password_shows_a_clear_message(client, alice):
    response = login(client, "alice", "not-the-password")
    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert "_auth_user_id" not in client.session


def test_logout_is_a_post_and_ends_the_session(alice_client):
    assert alice_client.get(reverse("logout")).status_code == 405
    response = alice_client.post(reverse("logout"))
    assert response.status_code == 302
    assert "_auth_user_id" not in alice_client.session


def test_pages_for_members_send_visitors_to_the_login_page(client):
    response = client.get(reverse("profile_edit"))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))


def test_the_home_page_and_login_are_public(client):
    assert client.get(reverse("home")).status_code == 200
    assert client.get(reverse("login")).status_code == 200
    assert client.get(reverse("signup")).status_code == 200


def test_a_member_changes_their_password(alice_client, alice):
    response = alice_client.post(
        reverse("password_change"),
        {
            "old_password": PASSWORD,
            "new_password1": "another-long-pass-42",
            "new_password2": "another-long-pass-42",
        },
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("another-long-pass-42")


def test_a_password_reset_sends_an_email_with_a_working_link(client, alice):
    response = client.post(reverse("password_reset"), {"email": "alice@example.com"})
    assert response.status_code == 302
    assert len(mail.outbox) == 1
    link = re.search(r"https?://[^/]+(/\S+)", mail.outbox[0].body).group(1)
    form_page = client.get(link, follow=True)
    assert form_page.context["validlink"]
    response = client.post(
        form_page.redirect_chain[-1][0],
        {"new_password1": "reset-long-pass-77", "new_password2": "reset-long-pass-77"},
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password("reset-long-pass-77")


def test_five_wrong_passwords_lock_the_account_out_with_a_clear_message(client, alice):
    for _ in range(5):
        login(client, "alice", "wrong")
    response = login(client, "alice", PASSWORD)
    assert response.status_code == 429
    assert "15" in response.content.decode()
    assert "_auth_user_id" not in client.session


def test_a_successful_login_resets_the_failure_count(client, alice):
    for _ in range(4):
        login(client, "alice", "wrong")
    assert login(client, "alice", PASSWORD).status_code == 302
    client.post(reverse("logout"))
    for _ in range(4):
        login(client, "alice", "wrong")
    assert login(client, "alice", PASSWORD).status_code == 302


def test_a_member_edits_their_profile(alice_client, alice):
    response = alice_client.post(
        reverse("profile_edit"),
        {"first_name": "Alicia", "last_name": "Pérez", "email": "a@example.com"},
    )
    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.get_full_name() == "Alicia Pérez"
    page = alice_client.get(reverse("member", args=["alice"]))
    assert "Alicia Pérez" in page.content.decode()


def test_an_unknown_member_is_a_404(alice_client):
    assert alice_client.get(reverse("member", args=["nobody"])).status_code == 404


def test_django_s_own_messages_on_the_sign_up_form_speak_to_a_member_as_tu(client):
    page = client.get(reverse("signup"), HTTP_ACCEPT_LANGUAGE="es").content.decode()
    assert "Tu contraseña no puede tener solo números." in page
    refused = signup(client, username="dora luz").content.decode()
    assert "Escribe un nombre de usuario válido" in refused
    for formal in ("Su contraseña", "Introduza", "Introduzca", "Escoja"):
        assert formal not in page + refused, formal
