from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from games.models import Clock, RuleVariant

SEAT_CHOICES = [
    ("open", _("Open: for another member")),
    ("easy", _("Easy bot")),
    ("hard", _("Hard bot")),
]


class VariantChoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj):
        # The clock is part of the choice: a member should know before sitting down.
        if obj.clock != Clock.NONE:
            from games.clocks import describe

            return f"{obj.name} ({describe(obj)})"
        return obj.name


class NewTableForm(forms.Form):
    """Open a table of one game: house rules, number of seats, and who fills each other seat.

    The seat fields follow the number of players, so the form is rebuilt with the players
    value it was given (the page re-renders it when that choice changes).
    """

    variant = VariantChoiceField(
        label=_("House rules"),
        queryset=RuleVariant.objects.none(),
        widget=forms.RadioSelect,
        empty_label=None,
    )
    players = forms.TypedChoiceField(label=_("Players"), coerce=int)
    private = forms.BooleanField(
        label=_("Private table"),
        required=False,
        help_text=_(
            "Only its seated members and those you send the invitation link see it: it is in no"
            " list."
        ),
    )

    def __init__(self, game: str, engine, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.game = game
        self.engine = engine
        self.fields["variant"].queryset = RuleVariant.objects.active().for_game(game)
        info = engine.INFO
        counts = list(range(info.min_players, info.max_players + 1))
        self.fields["players"].choices = [(n, str(n)) for n in counts]
        self.fields["players"].initial = info.min_players
        players = self._players_asked(counts)
        for index in range(1, players):
            self.fields[f"seat_{index}"] = forms.ChoiceField(
                label=_("Seat %(number)s") % {"number": index + 1},
                choices=SEAT_CHOICES,
                initial="open",
            )
        variants = list(self.fields["variant"].queryset)
        if variants and not self.is_bound:
            self.fields["variant"].initial = variants[0].pk

    # The fields one per seat, named with the seat's number after these.
    PER_SEAT = ("seat_",)

    @classmethod
    def drawn_again(cls, game: str, engine, query, **kwargs) -> NewTableForm:
        """The form drawn again for another number of players (htmx on a change of it, or
        "Update seats" without JavaScript), both of which send the whole form: what was chosen
        so far stays chosen. Drawn from the players alone, the house rules went back to the
        first ones, and a table opened next was played under rules nobody chose."""
        kept = {
            name: value
            for name, value in query.items()
            if name in ("variant", "players", "private") or name.startswith(cls.PER_SEAT)
        }
        return cls(game, engine, initial=kept, **kwargs)

    def _players_asked(self, counts: list[int]) -> int:
        raw = self.data.get("players") if self.is_bound else self.initial.get("players")
        try:
            players = int(raw)
        except (TypeError, ValueError):
            return counts[0]
        return players if players in counts else counts[0]

    def seat_fields(self):
        return [self[name] for name in self.fields if name.startswith("seat_")]

    def clean(self):
        cleaned = super().clean()
        variant, players = cleaned.get("variant"), cleaned.get("players")
        if variant and players and players not in variant.player_counts():
            counts = ", ".join(str(n) for n in variant.player_counts())
            raise forms.ValidationError(
                _("%(rules)s are played by %(counts)s players only.")
                % {"rules": variant.name, "counts": counts}
            )
        return cleaned

    def fillers(self) -> list[str]:
        players = self.cleaned_data["players"]
        return [self.cleaned_data[f"seat_{index}"] for index in range(1, players)]
