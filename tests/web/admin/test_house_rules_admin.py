"""House rules in the Django admin: fields from the engine's OPTIONS, validated by the engine."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import translation

from games import registry, writes
from games.models import RuleVariant
from tests.web.table_helpers import variant

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin_client(client, django_user_model):
    boss = django_user_model.objects.create_superuser("boss", "boss@example.com", "pw-long-boss-1")
    client.force_login(boss, backend="django.contrib.auth.backends.ModelBackend")
    return client


def base_data(**extra):
    return {
        "slug": "casa",
        "name_es": "De la casa",
        "name_en": "House",
        "description_es": "",
        "description_en": "",
        "active": "on",
        "rated": "on",
        "ordering": 5,
        **extra,
    }


def test_the_migration_creates_the_standard_rules_and_the_named_house_rules():
    names = set(RuleVariant.objects.values_list("game", "name_es"))
    for expected in [
        ("escoba", "Estándar"),
        ("escoba", "Recogida obligatoria"),
        ("escoba", "Recogida obligatoria estricta"),
        ("escoba", "Renuncio"),
        ("escoba", "Sin escoba de mano"),
        ("escoba", "Por parejas"),
        ("schotten_totten", "Estándar"),
        ("schotten_totten", "Reglas de 1999"),
        ("schotten_totten", "A 3 rondas"),
        ("scout", "Estándar"),
    ]:
        assert expected in names


def test_the_english_words_of_the_house_rules_name_the_suit_as_the_tables_do():
    ties = RuleVariant.objects.get(game="escoba", slug="sin-puntos-en-empate")
    assert (
        ties.description_en == "A tie for most cards, coins or sevens gives that point to nobody."
    )


def test_the_admin_form_has_a_field_of_the_right_kind_per_engine_option(admin_client):
    page = admin_client.get(reverse("admin:games_rulevariant_add"), {"game": "escoba"})
    form = page.context["adminform"].form
    assert form.fields["opt__escoba__capture_rule"].widget.input_type == "select"
    assert form.fields["opt__escoba__target"].widget.input_type == "number"
    assert form.fields["opt__escoba__pairs"].widget.input_type == "checkbox"
    assert not any(name.startswith("opt__scout") for name in form.fields)


def test_an_admin_saves_house_rules_built_from_the_options(admin_client):
    response = admin_client.post(
        reverse("admin:games_rulevariant_add") + "?game=escoba",
        base_data(
            game="escoba",
            opt__escoba__capture_rule="obligatory",
            opt__escoba__opening_escoba="dealer",
            opt__escoba__tie_points="none",
            opt__escoba__target=15,
        ),
    )
    assert response.status_code == 302, response.context["adminform"].form.errors
    saved = RuleVariant.objects.get(slug="casa")
    assert saved.options == {"capture_rule": "obligatory", "tie_points": "none", "target": 15}


def test_the_admin_tells_house_rules_saved_in_spanish_that_agrees_with_their_name(admin_client):
    # Every option at its default (a box left unticked is not sent).
    defaults = {
        f"opt__escoba__{option.name}": option.default
        for option in registry.engine("escoba").OPTIONS
        if option.default is not False
    }
    response = admin_client.post(
        reverse("admin:games_rulevariant_add") + "?game=escoba",
        base_data(game="escoba", **defaults),
        HTTP_ACCEPT_LANGUAGE="es",
        follow=True,
    )
    assert response.redirect_chain, response.context["adminform"].form.errors
    [said] = [re.sub(r"<[^>]+>", "", str(message)) for message in response.context["messages"]]
    assert said == "Se ha añadido correctamente: reglas de la casa “Escoba de 15 — De la casa”."


def test_an_invalid_combination_cannot_be_saved(admin_client):
    response = admin_client.post(
        reverse("admin:games_rulevariant_add") + "?game=schotten_totten",
        base_data(
            game="schotten_totten",
            **{
                "opt__schotten_totten__claim_timing": "after_play",
                "opt__schotten_totten__rounds": 12,
            },
        ),
    )
    assert response.status_code == 200
    assert response.context["adminform"].form.errors
    assert not RuleVariant.objects.filter(slug="casa").exists()


def test_house_rules_used_by_a_match_cannot_be_deleted(admin_client, alice):
    rules = variant("escoba", "renuncio")
    writes.create_match(alice, rules, 2, ["open"])
    admin_client.post(reverse("admin:games_rulevariant_delete", args=[rules.pk]), {"post": "yes"})
    assert RuleVariant.objects.filter(pk=rules.pk).exists()


def test_inactive_house_rules_are_not_offered_for_new_tables(alice_client):
    rules = variant("escoba", "renuncio")
    rules.active = False
    rules.save()
    page = alice_client.get(reverse("games:new_table", args=["escoba"]))
    offered = list(page.context["form"].fields["variant"].queryset)
    assert rules not in offered and variant("escoba") in offered


def test_the_model_refuses_an_engines_internal_option_with_a_clear_message():
    """Scout's ``_legacy_round_end_moves`` replays matches stored before a rules revision; the
    engine takes it, but no house rules may carry it (issue 29)."""
    from django.core.exceptions import ValidationError

    rules = RuleVariant(
        game="scout",
        slug="legacy",
        name_es="Antigua",
        name_en="Old",
        options={"_legacy_round_end_moves": 3},
    )
    with pytest.raises(ValidationError) as refused, translation.override("en"):
        rules.full_clean()
    assert "_legacy_round_end_moves: internal to the game, not a house rule" in str(refused.value)
    with pytest.raises(ValidationError) as refused, translation.override("es"):
        rules.full_clean()
    assert "_legacy_round_end_moves: interna del juego" in str(refused.value)


@pytest.mark.parametrize(
    "options, words",
    [
        ({"_legacy_round_end_moves": 3}, "internal to the game"),
        ({"no_such_rule": 1}, "Unknown house rule: no_such_rule"),
        ([1, 2], "must be a JSON object"),
    ],
)
def test_the_model_validates_raw_options_against_the_declared_ones(options, words):
    from django.core.exceptions import ValidationError

    rules = RuleVariant(game="scout", slug="raw", name_es="x", name_en="x", options=options)
    with translation.override("en"):
        with pytest.raises(ValidationError) as refused:
            rules.full_clean()
        assert words in str(refused.value)


def test_escobas_raw_options_are_checked_value_by_value():
    from django.core.exceptions import ValidationError

    good = RuleVariant(game="escoba", slug="raw", name_es="x", name_en="x", options={"target": 21})
    good.full_clean()
    bad = RuleVariant(game="escoba", slug="raw2", name_es="x", name_en="x", options={"target": "x"})
    with pytest.raises(ValidationError):
        bad.full_clean()


def test_the_admin_refuses_raw_options_with_an_internal_option_and_saves_nothing(admin_client):
    before = RuleVariant.objects.count()
    with translation.override("en"):
        response = admin_client.post(
            reverse("admin:games_rulevariant_add") + "?game=scout",
            base_data(game="scout", options='{"_legacy_round_end_moves": 3}'),
            HTTP_ACCEPT_LANGUAGE="en",
        )
    assert response.status_code == 200
    page = response.content.decode()
    assert "internal to the game, not a house rule" in page or "interna del juego" in page
    assert RuleVariant.objects.count() == before


def test_an_existing_variant_keeps_its_typed_options_when_raw_ones_are_refused(admin_client):
    rules = variant("scout")
    url = reverse("admin:games_rulevariant_change", args=[rules.pk])
    data = base_data(slug=rules.slug, options='{"_legacy_round_end_moves": 3}')
    response = admin_client.post(url, data)
    assert response.status_code == 200
    rules.refresh_from_db()
    assert "_legacy_round_end_moves" not in rules.options
