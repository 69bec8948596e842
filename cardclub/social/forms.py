from __future__ import annotations

from games.forms import NewTableForm


class ChallengeForm(NewTableForm):
    """The new-table form for a challenge: the challenger sits at seat 1 and the challenged
    member at seat 2, so only the seats after those two are chosen."""

    def __init__(self, game: str, engine, *args, **kwargs):
        super().__init__(game, engine, *args, **kwargs)
        self.fields.pop("seat_1", None)
        # A challenge's table is as private as its house rules make it.
        self.fields.pop("private", None)

    def fillers(self) -> list[str]:
        players = self.cleaned_data["players"]
        return [self.cleaned_data[f"seat_{index}"] for index in range(2, players)]
