"""What the games app hears: every committed save of a match reaches its open pages.

Wired by :func:`connect`, which ``GamesConfig.ready()`` calls, as every app's receivers are
(see ``games/signals.py``).
"""

from __future__ import annotations

from django.db.models.signals import post_save

from games import push
from games.models import Match


def match_saved(sender, instance, created=False, **kwargs) -> None:
    """Every saved match is announced after its commit, whoever saved it (a web worker, the
    background worker, the admin), so no code path that saves a match can forget. A match just
    created has no seats yet; its first real save (the start, a join) is announced."""
    if not created:
        push.announce_on_commit(instance)


def connect() -> None:
    post_save.connect(match_saved, sender=Match, dispatch_uid="games.match_saved")
