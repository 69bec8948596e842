"""Data migrations that a game app runs to bring its house rules into the club's database."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import migrations


@dataclass(frozen=True)
class HouseRules:
    slug: str
    name_es: str
    name_en: str
    description_es: str
    description_en: str
    options: dict = field(default_factory=dict)
    ordering: int = 100


def seed_house_rules(game: str, variants: list[HouseRules]) -> migrations.RunPython:
    """A migration operation that creates a game's house rules in a database that has none.

    A database made before the game had its own app already holds these rows (perhaps edited
    or deactivated by the club's admins since): it is left exactly as it is.
    """

    def create(apps, schema_editor):
        RuleVariant = apps.get_model("games", "RuleVariant")
        if RuleVariant.objects.filter(game=game).exists():
            return
        RuleVariant.objects.bulk_create(
            RuleVariant(
                game=game,
                slug=v.slug,
                name_es=v.name_es,
                name_en=v.name_en,
                description_es=v.description_es,
                description_en=v.description_en,
                options=v.options,
                ordering=v.ordering,
            )
            for v in variants
        )

    def remove(apps, schema_editor):
        RuleVariant = apps.get_model("games", "RuleVariant")
        slugs = [v.slug for v in variants]
        RuleVariant.objects.filter(game=game, slug__in=slugs, matches__isnull=True).delete()

    create.seeds_house_rules = True  # found by the tests, to seed again after a flush
    return migrations.RunPython(create, remove)
