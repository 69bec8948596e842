"""Requests sent at the same instant: one thread per member, each with its own client and
database connection, released together by a barrier (real concurrency at the database, for the
row locks that keep two answers from both acting)."""

from __future__ import annotations

import threading

from django.db import connection


def at_once(client_for, members, send) -> list:
    """``send(client, member)`` for every member at the same instant; their responses, in the
    order they came back."""
    barrier = threading.Barrier(len(members))
    responses = []

    def one(member):
        client = client_for(member)
        barrier.wait()
        try:
            responses.append(send(client, member))
        finally:
            connection.close()

    threads = [threading.Thread(target=one, args=(member,)) for member in members]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return responses
