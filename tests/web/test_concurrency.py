"""Two requests for the same version of a match, at the same moment: exactly one applies.

Real concurrent requests, each thread with its own client and database connection, against the
same database (a file on SQLite, the server on PostgreSQL).
"""

from __future__ import annotations

import threading

import pytest
from django.db import connection
from django.urls import reverse

from games.models import Match, MoveRecord

from .table_helpers import engine_state, start_match


@pytest.mark.django_db(transaction=True)
def test_two_simultaneous_posts_for_the_same_version_apply_exactly_once(alice, bob, client_for):
    match = start_match("escoba", [alice, bob])
    state = engine_state(match)
    seat = match.engine.to_move(state)[0]
    mover = alice if seat == 0 else bob
    moves = match.engine.legal_moves(state, seat)
    codes = [moves[0].code, moves[-1].code]
    barrier = threading.Barrier(len(codes))
    responses = []

    def post(code):
        client = client_for(mover)
        barrier.wait()
        try:
            responses.append(
                client.post(
                    reverse("games:move", args=[match.pk]),
                    {"code": code, "v": match.version},
                    HTTP_HX_REQUEST="true",
                )
            )
        finally:
            connection.close()

    threads = [threading.Thread(target=post, args=(code,)) for code in codes]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert [r.status_code for r in responses] == [200, 200]
    # The refused one says so in the page (contexts are not reliable across threads).
    refused = [r for r in responses if 'class="message error"' in r.content.decode()]
    assert len(refused) == 1
    assert MoveRecord.objects.filter(match=match).count() == 1
    assert Match.objects.get(pk=match.pk).version == match.version + 1
