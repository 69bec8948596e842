from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_visitor_signs_up_logs_out_and_logs_in_again_in_chromium(live_server, page):
    page.goto(live_server.url + "/accounts/signup/")
    page.get_by_label("Nombre de usuario").fill("elena")
    page.locator("#id_password1").fill("una-clave-muy-larga-7")
    page.locator("#id_password2").fill("una-clave-muy-larga-7")
    page.get_by_role("button", name="Crear mi cuenta").click()
    page.wait_for_url(live_server.url + "/")
    assert get_user_model().objects.filter(username="elena").exists()
    page.get_by_role("button", name="Cerrar sesión").click()
    page.get_by_role("link", name="Iniciar sesión").first.click()
    page.get_by_label("Nombre de usuario").fill("elena")
    page.locator("#id_password").fill("una-clave-muy-larga-7")
    page.get_by_role("button", name="Iniciar sesión").click()
    page.wait_for_url(live_server.url + "/")
    assert page.get_by_role("link", name="elena").is_visible()
