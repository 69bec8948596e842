import pytest
from django.urls import reverse
from tests.web.table_helpers import post_move, start_match
from games.models import Match
import random

@pytest.mark.parametrize(("game", "players", "moves"), [("scout", 5, 200), ("escoba", 4, 200), ("escoba", 2, 120)])
def test_dump(game, players, moves, make_member, client_for):
    members = [make_member(f"player{n}") for n in range(players)]
    match = start_match(game, members)
    clients = {n: client_for(m) for n, m in enumerate(members)}
    rng = random.Random(22); best = (0, b"")
    poll_url = reverse("games:poll", args=[match.pk])
    for _ in range(moves):
        match.refresh_from_db()
        if match.status != Match.Status.PLAYING: break
        state = match.engine.load(match.state)
        seat = match.engine.to_move(state)[0]
        code = rng.choice(match.engine.legal_moves(state, seat)).code
        was = match.version
        r = post_move(clients[seat], match, code)
        best = max(best, (len(r.content), r.content))
        for o, c in clients.items():
            if o != seat:
                r = c.get(f"{poll_url}?v={was}", HTTP_HX_REQUEST="true")
                best = max(best, (len(r.content), r.content))
    open(f"/work/prof/max_{game}{players}.html", "wb").write(best[1])
    print(game, players, best[0])
