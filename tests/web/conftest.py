"""Fixtures the league tests share (a module asks for ``in_english`` with ``usefixtures``)."""

from __future__ import annotations

import pytest
from django.utils import translation

from cardclub.leagues.models import League
from tests.web.table_helpers import variant


@pytest.fixture
def in_english():
    """Messages are compared in English (the site's default is Spanish)."""
    with translation.override("en"):
        yield


@pytest.fixture
def league():
    return League.objects.create(
        name="Liga de otoño", game="schotten_totten", variant=variant("schotten_totten")
    )


@pytest.fixture
def english_client_for(client_for):
    """``client_for``, its pages in English."""

    def make(user):
        client = client_for(user)
        client.cookies["django_language"] = "en"
        return client

    return make
