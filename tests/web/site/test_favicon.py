"""Pages that link no icon (the admin's) make the browser ask for /favicon.ico: it gets the
club's icon, not a 404, logged in or not."""

from __future__ import annotations

import pytest
from django.test import Client

pytestmark = pytest.mark.django_db


def test_favicon_ico_leads_to_the_clubs_icon_for_anybody():
    client = Client()
    response = client.get("/favicon.ico")
    assert response.status_code == 302
    assert response["Location"].endswith(".svg")
    icon = client.get(response["Location"])
    assert icon.status_code == 200
    assert icon["Content-Type"].startswith("image/svg+xml")
