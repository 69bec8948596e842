"""Two requests for the same version of a match, at the same moment: exactly one applies.

Real concurrent requests, each thread with its own client and database connection, against the
same database (a file on SQLite, the server on PostgreSQL).
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from games.models import Match, MoveRecord
from tests.web.simultaneous import at_once
from tests.web.table_helpers import engine_state, start_match


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_posts_for_the_same_version_apply_exactly_once(alice, bob, client_for):
    match = start_match("escoba", [alice, bob])
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    mover = alice if seat == 0 else bob
    moves = match.engine.legal_moves(state, seat)
    codes = [moves[0].code, moves[-1].code]
    # The same member twice, each request with a move of its own.
    responses = at_once(
        lambda sent: client_for(sent[0]),
        [(mover, code) for code in codes],
        lambda client, sent: client.post(
            reverse("games:move", args=[match.pk]),
            {"code": sent[1], "v": match.version},
            HTTP_HX_REQUEST="true",
        ),
    )

    assert [r.status_code for r in responses] == [200, 200]
    # The refused one says so in the page (contexts are not reliable across threads).
    refused = [r for r in responses if 'class="message error"' in r.content.decode()]
    assert len(refused) == 1
    assert MoveRecord.objects.filter(match=match).count() == 1
    assert Match.objects.get(pk=match.pk).version == match.version + 1


@pytest.mark.django_db(transaction=True)
def test_two_members_saying_ready_at_the_same_instant_start_exactly_one_match(
    alice, bob, client_for
):
    from datetime import date

    from cardclub.leagues.models import Fixture, League, Season
    from tests.web.table_helpers import variant

    league = League.objects.create(
        name="Liga", game="schotten_totten", variant=variant("schotten_totten")
    )
    season = Season.objects.create(league=league, name="2026", starts_on=date.today())
    for member in (alice, bob):
        season.add_player(member)
    season.generate_fixtures()
    fixture = Fixture.objects.get(round__season=season, round__number=1)
    responses = at_once(
        client_for,
        [alice, bob],
        lambda client, member: client.post(reverse("leagues:ready", args=[fixture.pk])),
    )

    assert [r.status_code for r in responses] == [302, 302]
    fixture.refresh_from_db()
    assert fixture.status == Fixture.Status.PLAYING
    assert Match.objects.count() == 1
    assert fixture.match_id == Match.objects.get().pk
    # Whoever came second started it and went to the table; both are marked ready.
    assert fixture.match.get_absolute_url() in [r["Location"] for r in responses]
    assert fixture.seats.filter(ready_at__isnull=True).count() == 0
