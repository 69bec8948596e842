"""Partners at the table: in Escoba in pairs the seats panel marks each seat's pair and names
its partner, on the page and in every update."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tests.web.table_helpers import start_match

pytestmark = pytest.mark.django_db


def _seats(html: str) -> list[str]:
    panel = re.search(r'<aside id="seats".*?</aside>', html, re.S).group(0)
    return re.findall(r'<li class="seat.*?</li>', panel, re.S)


def test_in_pairs_each_seat_is_marked_by_its_pair_with_its_partner_named(alice, bob, client_for):
    match = start_match("escoba", [alice, bob], slug="por-parejas", fillers=["easy", "hard"])
    client = client_for(alice)
    seats = _seats(client.get(match.get_absolute_url()).content.decode())
    assert len(seats) == 4
    # Seats 1 and 3 against 2 and 4: alice with the easy bot, bob with the hard bot.
    assert "pair-1" in seats[0] and "pareja 1" in seats[0] and "con Bot fácil 3" in seats[0]
    assert "pair-2" in seats[1] and "con Bot difícil 4" in seats[1]
    assert "con alice" in seats[2] and "con bob" in seats[3]
    # The seats panel of an update says the same.
    fragment = client.get(
        reverse("games:poll", args=[match.pk]), {"v": 0}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "con Bot fácil 3" in fragment


def test_without_pairs_no_seat_is_marked(alice, bob, client_for):
    match = start_match("escoba", [alice, bob])
    seats = _seats(client_for(alice).get(match.get_absolute_url()).content.decode())
    assert not any("pair-" in seat or "pareja" in seat for seat in seats)
