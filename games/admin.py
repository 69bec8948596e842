"""The club's admins manage house rules here; the option fields come from each engine's OPTIONS."""

from __future__ import annotations

import json

from django import forms
from django.contrib import admin, messages
from django.contrib.admin.utils import flatten_fieldsets
from django.core.exceptions import FieldDoesNotExist
from django.db.models import ProtectedError
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from games import registry
from games.models import Clock, Match, MoveRecord, RuleVariant, Seat

OPTION_PREFIX = "opt__"


def option_field(opt) -> forms.Field:
    """A form field for one engine option: a select, a number or a checkbox."""
    label, help_text = gettext(opt.label), gettext(opt.help) if opt.help else ""
    if opt.kind == "choice":
        return forms.TypedChoiceField(
            label=label,
            help_text=help_text,
            choices=[(value, gettext(text)) for value, text in opt.choices],
            coerce=lambda raw, opt=opt: next(v for v, _t in opt.choices if str(v) == str(raw)),
            initial=opt.default,
        )
    if opt.kind == "int":
        return forms.IntegerField(
            label=label,
            help_text=help_text,
            min_value=opt.min_value,
            max_value=opt.max_value,
            initial=opt.default,
        )
    return forms.BooleanField(label=label, help_text=help_text, required=False, initial=opt.default)


def field_name(game: str, opt) -> str:
    return f"{OPTION_PREFIX}{game}__{opt.name}"


class RuleVariantForm(forms.ModelForm):
    """Shows one field per house-rule option of the variant's game and validates the set with
    the engine, so a variant no game could be played under cannot be saved."""

    class Meta:
        model = RuleVariant
        # The options are edited through one field per engine option, never as raw JSON.
        fields = [
            "game",
            "slug",
            "name_es",
            "name_en",
            "description_es",
            "description_en",
            "active",
            "rated",
            "private",
            "takebacks",
            "ordering",
            # The clock is a house rule of the table, validated by the model (clock_errors).
            "clock",
            "clock_minutes",
            "clock_increment",
            "clock_days",
        ]

    def __init__(self, *args, games=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.option_games = games or list(registry.game_keys())
        # No clock unless the admin sets one (a form posted without the clock fields, e.g. by
        # older tools, keeps today's behaviour).
        for name in ("clock", "clock_increment"):
            if name in self.fields:
                self.fields[name].required = False
        current = self.instance.options if self.instance.pk else {}
        for game in self.option_games:
            for opt in registry.engine(game).OPTIONS:
                field = option_field(opt)
                if self.instance.pk and self.instance.game == game and opt.name in current:
                    field.initial = current[opt.name]
                self.fields[field_name(game, opt)] = field

    def clean(self):
        cleaned = super().clean()
        if "clock" in self.fields and not cleaned.get("clock"):
            cleaned["clock"] = Clock.NONE
        if "clock_increment" in self.fields and cleaned.get("clock_increment") is None:
            cleaned["clock_increment"] = 0
        game = cleaned.get("game") or self.instance.game
        if not registry.is_game(game):
            return cleaned
        engine = registry.engine(game)
        options = {}
        for opt in engine.OPTIONS:
            name = field_name(game, opt)
            if name in cleaned and cleaned[name] is not None:
                value = cleaned[name]
                if value != opt.default:
                    options[opt.name] = value
        # Options posted as raw JSON (an older tool, a hand-made request) are checked like the
        # fields' and with the same rule as the model's: an engine's internal option is refused
        # with a message, never saved nor silently dropped.
        raw = self.data.get("options")
        if raw:
            try:
                options = {**json.loads(raw), **options}
            except (TypeError, ValueError):
                raise forms.ValidationError(_("The options must be a JSON object.")) from None
        error = RuleVariant.options_error(game, options)
        if error:
            raise forms.ValidationError(error)
        self.instance.options = options
        return cleaned


@admin.register(RuleVariant)
class RuleVariantAdmin(admin.ModelAdmin):
    form = RuleVariantForm
    list_display = [
        "name_es",
        "name_en",
        "game",
        "active",
        "rated",
        "clock",
        "options_summary",
        "used_by",
    ]
    list_filter = ["game", "active", "rated"]
    list_editable = ["active", "rated"]
    search_fields = ["name_es", "name_en", "slug"]
    prepopulated_fields = {"slug": ["name_en"]}
    actions = ["deactivate"]

    def _game_for(self, request, obj):
        if obj is not None:
            return obj.game
        game = request.POST.get("game") or request.GET.get("game")
        return game if registry.is_game(game) else None

    def get_form(self, request, obj=None, change=False, **kwargs):
        # The option fields are added by the form itself; the model form factory only knows
        # the model's fields.
        kwargs["fields"] = [
            name
            for name in flatten_fieldsets(self.get_fieldsets(request, obj))
            if not name.startswith(OPTION_PREFIX)
        ]
        base = super().get_form(request, obj, change=change, **kwargs)
        game = self._game_for(request, obj)
        games = [game] if game else None

        class Form(base):
            def __init__(self, *args, **kw):
                super().__init__(*args, games=games, **kw)

        return Form

    def get_fieldsets(self, request, obj=None):
        game = self._game_for(request, obj)
        games = [game] if game else list(registry.game_keys())
        fieldsets = [
            (
                None,
                {
                    "fields": [
                        "game",
                        "slug",
                        ("name_es", "name_en"),
                        "description_es",
                        "description_en",
                        # One per line: side by side, the admin runs their help texts together.
                        "active",
                        "rated",
                        "private",
                        "takebacks",
                        "ordering",
                    ]
                },
            )
        ]
        fieldsets.append(
            (
                _("Clock"),
                {
                    "fields": ["clock", ("clock_minutes", "clock_increment"), "clock_days"],
                    "description": _(
                        "Live: minutes per member for the whole match, plus seconds added after "
                        "each move. Correspondence: days for each move. A member out of time "
                        "loses on time."
                    ),
                },
            )
        )
        titles = dict(registry.choices())
        for key in games:
            names = [field_name(key, opt) for opt in registry.engine(key).OPTIONS]
            if names:
                description = "" if game else _("Only the options of the chosen game are used.")
                fieldsets.append(
                    (
                        _("%(game)s options") % {"game": titles[key]},
                        {"fields": names, "description": description},
                    )
                )
        return fieldsets

    def get_readonly_fields(self, request, obj=None):
        # Options of another game make no sense on an existing variant.
        return ["game"] if obj is not None else []

    @admin.display(description=_("options"))
    def options_summary(self, obj):
        return ", ".join(f"{k}={v}" for k, v in sorted(obj.options.items())) or "—"

    @admin.display(description=_("matches"))
    def used_by(self, obj):
        return obj.matches.count()

    @admin.action(description=_("Deactivate the selected house rules"), permissions=["change"])
    def deactivate(self, request, queryset):
        count = queryset.update(active=False)
        self.message_user(request, _("%(count)s house rules deactivated.") % {"count": count})

    def delete_model(self, request, obj):
        try:
            obj.delete()
        except ProtectedError:
            self.message_user(
                request,
                _("These house rules are used by matches and cannot be deleted; deactivate them."),
                messages.ERROR,
            )

    def delete_queryset(self, request, queryset):
        for obj in queryset:
            self.delete_model(request, obj)


# What a spectator could not see of a live match: the seed (with the move log it rebuilds every
# hand and the deck), the engine state, the move codes (Scout's keep/rotate decision is secret)
# and the invite link. Club admins play in the league too, so the admin shows none of it, nor
# filters, searches or orders by it, until the match is over.
SECRET_FIELDS = {(Match, "seed"), (Match, "state"), (Match, "invite_token"), (MoveRecord, "code")}


def touches_secret(model, path: str) -> bool:
    """Whether a lookup, ordering or search path (``seed__gt``, ``-seed``, ``moves__code``,
    ``match__state__hand``) reads a secret field, following relations from ``model``."""
    for part in path.lstrip("-").split("__"):
        try:
            field = model._meta.get_field(part)
        except FieldDoesNotExist:
            return False
        if (model, field.name) in SECRET_FIELDS:
            return True
        if not field.is_relation or field.related_model is None:
            return False
        model = field.related_model
    return False


class HidesLiveSecrets:
    """Refuses every changelist lookup, filter, search and ordering on a secret field, for live
    and finished matches alike: a range query on the seed needs no column to leak it.
    A refused lookup is Django's DisallowedModelAdminLookup, a 400."""

    def lookup_allowed(self, lookup, value, request=None):
        if touches_secret(self.model, lookup):
            return False
        return super().lookup_allowed(lookup, value, request)

    def _public(self, names):
        return [
            name
            for name in names
            if not (isinstance(name, str) and touches_secret(self.model, name))
            and not (isinstance(name, (list, tuple)) and touches_secret(self.model, name[0]))
        ]

    def get_list_filter(self, request):
        return self._public(super().get_list_filter(request))

    def get_search_fields(self, request):
        return self._public(super().get_search_fields(request))

    def get_ordering(self, request):
        return self._public(super().get_ordering(request) or [])

    def get_sortable_by(self, request):
        return self._public(super().get_sortable_by(request))


HIDDEN = _("hidden until the match is over")


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ["index", "user", "bot_level", "to_move", "resigned", "timed_out", "score", "rank"]
    readonly_fields = fields
    # Seats are taken, left and ended by the club's own actions (games/writes.py), never here:
    # a seat added or removed under a match would break the game its state is dealt for.
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Match)
class MatchAdmin(HidesLiveSecrets, admin.ModelAdmin):
    list_display = ["pk", "game", "variant", "status", "rated", "players", "created_at"]
    list_filter = ["game", "status", "rated"]
    date_hierarchy = "created_at"
    # What a spectator sees; the seed, the state and the moves join once the match is over.
    public_fields = [
        "game",
        "variant",
        "options",
        "players",
        "status",
        "rated",
        "clock",
        "clock_minutes",
        "clock_increment",
        "clock_days",
        "clock_deadline",
        "version",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
    ]
    revealed_fields = ["seed", "state", "move_log"]
    inlines = [SeatInline]

    def get_fields(self, request, obj=None):
        if obj is not None and obj.is_over:
            return self.public_fields + self.revealed_fields
        return self.public_fields

    def get_readonly_fields(self, request, obj=None):
        return self.get_fields(request, obj)

    def has_add_permission(self, request):
        return False

    @admin.display(description=_("moves"))
    def move_log(self, obj):
        if not obj.is_over:
            return HIDDEN
        return ", ".join(f"{m.seat}:{m.code}" for m in obj.moves.order_by("seq")) or "—"


@admin.register(MoveRecord)
class MoveRecordAdmin(HidesLiveSecrets, admin.ModelAdmin):
    list_display = ["match", "seq", "seat", "shown_code", "created_at"]
    fields = ["match", "seq", "seat", "shown_code", "created_at"]
    readonly_fields = fields
    list_select_related = ["match"]

    def has_add_permission(self, request):
        return False

    def has_change_permission(self, request, obj=None):
        return False

    @admin.display(description=_("move"))
    def shown_code(self, obj):
        return obj.code if obj.match.is_over else HIDDEN
