from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from games.forms import SEAT_CHOICES, NewTableForm

from .challenges import refusal

#: A challenge's further seats may also go to a member named in the field beside them.
CHALLENGE_SEAT_CHOICES = [*SEAT_CHOICES, ("member", gettext_lazy("A member I name"))]


class ChallengeForm(NewTableForm):
    """The new-table form for a challenge: the challenger sits at seat 1 and the challenged
    member at seat 2, so only the seats after those two are chosen, each open, a bot, or a
    further member named beside it (challenged too). A name is checked here as a lone
    challenge to them would be, so the error stands by its field."""

    PER_SEAT = ("seat_", "member_")

    def __init__(self, game: str, engine, *args, challenger=None, person=None, **kwargs):
        super().__init__(game, engine, *args, **kwargs)
        self.challenger, self.person = challenger, person
        self.fields.pop("seat_1", None)
        # A challenge's table is as private as its house rules make it.
        self.fields.pop("private", None)
        for name in [n for n in self.fields if n.startswith("seat_")]:
            index = int(name.removeprefix("seat_"))
            self.fields[name].choices = CHALLENGE_SEAT_CHOICES
            self.fields[f"member_{index}"] = forms.CharField(
                label=_("Member at seat %(number)s") % {"number": index + 1},
                required=False,
                max_length=150,
                help_text=_("Their name, if you chose “A member I name”."),
            )
        self._others: list = []

    def seat_rows(self):
        """Each further seat's choice with the name field beside it."""
        return [
            (self[name], self[f"member_{name.removeprefix('seat_')}"])
            for name in self.fields
            if name.startswith("seat_")
        ]

    def clean(self):
        cleaned = super().clean()
        players = cleaned.get("players")
        if not players:
            return cleaned
        taken = {self.person.pk} if self.person is not None else set()
        self._others = []
        for index in range(2, players):
            choice = cleaned.get(f"seat_{index}")
            name = (cleaned.get(f"member_{index}") or "").strip()
            if choice != "member":
                if name:
                    self.add_error(
                        f"member_{index}",
                        _("Choose “A member I name” for this seat, or leave the name empty."),
                    )
                continue
            field = f"member_{index}"
            if not name:
                self.add_error(field, _("Say which member sits here."))
                continue
            member = get_user_model().objects.filter(username__iexact=name, is_active=True).first()
            if member is None:
                self.add_error(field, _("There is no member with that name."))
                continue
            refused = refusal(self.challenger, member) if self.challenger else None
            if refused:
                self.add_error(field, refused)
            elif member.pk in taken:
                self.add_error(
                    field,
                    _("%(name)s already has a seat at this table.")
                    % {"name": member.get_username()},
                )
            else:
                taken.add(member.pk)
                self._others.append(member)
        return cleaned

    def fillers(self) -> list[str]:
        players = self.cleaned_data["players"]
        return [self.cleaned_data[f"seat_{index}"] for index in range(2, players)]

    def others(self) -> list:
        """The further members named, in the order of their seats."""
        return list(self._others)
