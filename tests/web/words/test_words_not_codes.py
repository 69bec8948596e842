"""No page shows a member a raw move code or card id, in Spanish or in English.

A club night is built (every game live and finished, a closed table, a league), every kind of
page is opened by a seated member and by the admin, and the text a person reads is scanned —
the rendered text, not the attributes, where ids may serve as hooks for scripts and tests.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from django.test import Client
from django.urls import reverse

from games import registry
from tests.web.club_night import club_night

pytestmark = pytest.mark.django_db


class _Text(HTMLParser):
    SKIP = {"script", "style", "template", "svg"}

    def __init__(self):
        super().__init__()
        self.parts: list[str] = []
        self.skipping = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skipping += 1

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.skipping:
            self.skipping -= 1

    def handle_data(self, data):
        if not self.skipping:
            self.parts.append(data)


def visible_text(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    # Text nodes joined with a space: two spans side by side are two words on screen.
    return " ".join(parser.parts)


# Every move code has a colon (``l:7o``, ``c:10e:5o``, ``p:R5:0``, ``cs:L:1:…``), except Scout's
# hand decision (``k``/``r``), which is too short to scan for and is never written out.
CODE = re.compile(r"(?<![\w/])[a-z]{1,2}:[\w:+/-]+")


def card_ids(game: str) -> set[str]:
    engine = registry.engine(game)
    data = engine.dump(engine.new_game(engine.INFO.max_players, seed=3))
    ids = set()
    for key in ("hands", "deck", "set_aside", "table"):
        zone = data.get(key) or []
        for item in zone:
            ids.update(item if isinstance(item, list) else [item])
    return {i for i in ids if isinstance(i, str)}


def ids_in(text: str, ids: set[str]) -> list[str]:
    return sorted(i for i in ids if re.search(rf"(?<![\w/-]){re.escape(i)}(?![\w/-])", text))


@pytest.fixture
def night(make_member):
    return club_night(make_member)


def client_for(user, language):
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client


@pytest.mark.parametrize("language", ["es", "en"])
def test_no_page_shows_a_member_a_move_code_or_a_card_id(night, language):
    member = client_for(night.members[0], language)
    game_ids = {game: card_ids(game) for game in registry.game_keys()}
    # Page kinds that name no game may still show any game's matches (lobby, profile).
    every_id = set().union(*game_ids.values())
    found = {}
    for name, url in night.pages():
        response = member.get(url)
        assert response.status_code == 200, (name, url, response.status_code)
        text = visible_text(response.content.decode())
        game = next((g for g in registry.game_keys() if name.startswith(g)), None)
        ids = game_ids[game] if game else every_id
        # Scout's ids ("3-7") are also how dates and scores are written: only on its own pages.
        if game is None:
            ids = {i for i in ids if "-" not in i}
        problems = CODE.findall(text) + ids_in(text, ids)
        if problems:
            found[name] = problems[:5]
    assert found == {}


def test_the_scan_would_see_a_card_id_or_a_code_if_one_were_shown():
    assert CODE.findall(visible_text("<p>Ana: <code>c:10e:5o</code></p>")) == ["c:10e:5o"]
    assert ids_in(visible_text("<li>Con O7 O8 aún te ganaría</li>"), {"O7", "O8", "O9"}) == [
        "O7",
        "O8",
    ]
    assert ids_in(visible_text('<span data-card="O7">7</span>'), {"O7"}) == []


@pytest.mark.parametrize("language", ["es", "en"])
def test_the_admin_index_and_move_records_speak_the_members_language(night, language):
    admin = client_for(night.admin, language)
    index = admin.get(reverse("admin:index")).content.decode()
    expected = {"es": "Registros de jugadas", "en": "Move records"}[language]
    assert expected in visible_text(index)


def test_engine_errors_name_cards_not_ids():
    from django.utils import translation

    from games.engine import IllegalMove
    from games.models import translate_engine_error

    error = IllegalMove("%(card)s can make 15, so it must capture (obligatory capture).", card="3e")
    with translation.override("es"):
        text = translate_engine_error(error, "escoba")
    assert text.startswith("3 de espadas puede sumar 15")
    # Something that is not a card id is left as it was typed, never a 500.
    garbage = IllegalMove("You do not hold %(card)s.", card="zz")
    with translation.override("en"):
        assert translate_engine_error(garbage, "escoba") == "You do not hold zz."


def test_schotten_totten_reasons_name_the_cards():
    from django.utils import translation

    present = registry.present("schotten_totten")
    with translation.override("es"):
        names = [present.card_name(c) for c in ("O7", "O8", "O9")]
    assert names == ["7 naranja", "8 naranja", "9 naranja"]
