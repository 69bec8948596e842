"""House rules and moves in words a member reads: a rule's 0 that means "by the number of
players" is said so, and a sentence that ends in "¡Escoba!" takes no full stop after it."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from django.urls import reverse

from games.models import RuleVariant
from games.present import just_happened
from tests.web.table_helpers import start_match

pytestmark = pytest.mark.django_db


def rules_in_force(page: str) -> dict[str, str]:
    panel = re.search(r'<details class="panel rules-in-force">(.*?)</details>', page, re.S)
    return dict(re.findall(r"<dt>(.*?)</dt><dd>(.*?)</dd>", panel.group(1)))


@pytest.mark.parametrize(
    ("language", "label", "said"),
    [
        (
            "es",
            "Meta",
            "Según el número de jugadores: 21 con dos jugadores o dos parejas, 31 si no",
        ),
        (
            "en",
            "Target",
            "By the number of players: 21 with two players or two pairs, 31 otherwise",
        ),
    ],
)
def test_an_escoba_target_left_to_the_number_of_players_is_said_so_not_shown_as_0(
    language, label, said, alice, bob, client_for
):
    match = start_match("escoba", [alice, bob])
    assert match.options.get("target", 0) == 0
    page = client_for(alice).get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE=language)
    assert rules_in_force(page.content.decode())[label] == said


def test_a_target_a_club_chose_is_shown_as_its_number(alice, bob, client_for):
    RuleVariant.objects.create(
        game="escoba", slug="to-15", name_es="A 15", name_en="To 15", options={"target": 15}
    )
    match = start_match("escoba", [alice, bob], slug="to-15")
    page = client_for(alice).get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en")
    assert rules_in_force(page.content.decode())["Target"] == "15"


def test_the_link_to_escoba_s_rules_reads_well_in_spanish(alice, client_for):
    page = client_for(alice).get(reverse("games:new_table", args=["escoba"])).content.decode()
    assert "Cómo se juega: Escoba de 15" in page


def _strip_of(*lines):
    """The "just happened" strip of a move that made ``lines`` (sentence, badge)."""
    made = [{"sentence": sentence, "badge": badge, "seat": 0} for sentence, badge in lines]
    present = SimpleNamespace(last_move=lambda _view, _names: (made, []))
    return just_happened(present, {}, [])["sentence"]


def test_a_move_that_sweeps_the_table_ends_with_the_cheer_and_no_full_stop_after_it():
    assert _strip_of(("ana takes the 7 of coins", "¡Escoba!")) == (
        "ana takes the 7 of coins — ¡Escoba!"
    )
    assert _strip_of(("ana takes the 7 of coins", "¡Escoba!"), ("bea lays down the 3", None)) == (
        "ana takes the 7 of coins — ¡Escoba! bea lays down the 3."
    )
    assert _strip_of(("bea lays down the 3.", None)) == "bea lays down the 3."
