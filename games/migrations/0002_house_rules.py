"""Each game's standard rules and the house rules the rules files name."""

from django.db import migrations

VARIANTS = [
    # game, slug, name_es, name_en, description_es, description_en, options, ordering
    ("escoba", "standard", "Estándar", "Standard",
     "Recogida opcional, escoba de mano para quien reparte, un punto a cada empatado.",
     "Optional capture, opening escoba for the dealer, a point to each tied side.", {}, 0),
    ("escoba", "recogida-obligatoria", "Recogida obligatoria", "Obligatory capture",
     "Si la carta que juegas puede recoger, tiene que recoger (eliges qué baza).",
     "If the card you play can capture, it must capture (you choose which).",
     {"capture_rule": "obligatory"}, 10),
    ("escoba", "recogida-obligatoria-estricta", "Recogida obligatoria estricta",
     "Strict obligatory capture",
     "Si alguna carta de tu mano puede recoger, tienes que recoger con una de ellas.",
     "If any card in your hand can capture, you must capture with one of them.",
     {"capture_rule": "obligatory_strict"}, 20),
    ("escoba", "renuncio", "Renuncio", "Renuncio (penalised)",
     "Puedes no recoger, pero el siguiente jugador se lleva tu carta y las que sumaban 15.",
     "You may decline a capture, but the next player takes your card and the cards it could have captured.",
     {"capture_rule": "penalized"}, 30),
    ("escoba", "sin-escoba-de-mano", "Sin escoba de mano", "No opening escoba",
     "Las cuatro cartas iniciales de la mesa nunca cuentan como escoba.",
     "The four opening table cards never count as an escoba.",
     {"opening_escoba": "none"}, 40),
    ("escoba", "escoba-de-mano-para-el-mano", "Escoba de mano para el mano",
     "Opening escoba for the first player",
     "La escoba de las cuatro cartas iniciales es para el jugador mano, no para quien reparte.",
     "The opening escoba goes to the first player, not the dealer.",
     {"opening_escoba": "mano"}, 50),
    ("escoba", "sin-puntos-en-empate", "Sin puntos en los empates", "No points for ties",
     "Si hay empate en cartas, oros o sietes, nadie se lleva ese punto.",
     "A tie for most cards, oros or sevens gives that point to nobody.",
     {"tie_points": "none"}, 60),
    ("escoba", "por-parejas", "Por parejas", "In pairs",
     "Cuatro jugadores en dos parejas (asientos 1 y 3 contra 2 y 4) a 21 puntos.",
     "Four players in two pairs (seats 1 and 3 against 2 and 4) to 21 points.",
     {"pairs": True}, 70),
    ("schotten_totten", "standard", "Estándar", "Standard",
     "Reglas de 2016: juegas, reclamas mojones y robas. Una ronda.",
     "2016 rules: play, claim stones, then draw. One round.", {}, 0),
    ("schotten_totten", "reglas-1999", "Reglas de 1999", "1999 rules",
     "Los mojones se reclaman al principio del turno, antes de jugar la carta.",
     "Stones are claimed at the start of the turn, before playing a card.",
     {"claim_timing": "before_play"}, 10),
    ("schotten_totten", "a-3-rondas", "A 3 rondas", "Three rounds",
     "Tres rondas: el ganador de cada ronda suma 5 puntos y el perdedor 1 por mojón.",
     "Three rounds: each round's winner scores 5, the loser 1 per stone held.",
     {"rounds": 3}, 20),
    ("scout", "standard", "Estándar", "Standard",
     "Las reglas de Scout para 2 a 5 jugadores.",
     "Scout's rules for 2 to 5 players.", {}, 0),
]


def create(apps, schema_editor):
    RuleVariant = apps.get_model("games", "RuleVariant")
    for game, slug, name_es, name_en, desc_es, desc_en, options, ordering in VARIANTS:
        RuleVariant.objects.update_or_create(
            game=game,
            slug=slug,
            defaults=dict(
                name_es=name_es,
                name_en=name_en,
                description_es=desc_es,
                description_en=desc_en,
                options=options,
                ordering=ordering,
            ),
        )


def remove(apps, schema_editor):
    RuleVariant = apps.get_model("games", "RuleVariant")
    for game, slug, *_rest in VARIANTS:
        RuleVariant.objects.filter(game=game, slug=slug, matches__isnull=True).delete()


class Migration(migrations.Migration):
    dependencies = [("games", "0001_initial")]
    operations = [migrations.RunPython(create, remove)]
