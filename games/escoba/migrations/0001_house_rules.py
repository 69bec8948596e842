"""The house rules of this game that the club starts with (they were seeded by the shared
``games`` app before each game had its own app: a database from then keeps its rows)."""

from django.db import migrations

from games.seeding import HouseRules, seed_house_rules

VARIANTS = [
    HouseRules(
        "standard",
        "Estándar",
        "Standard",
        "Recogida opcional, escoba de mano para quien reparte, un punto a cada empatado.",
        "Optional capture, opening escoba for the dealer, a point to each tied side.",
        {},
        0,
    ),
    HouseRules(
        "recogida-obligatoria",
        "Recogida obligatoria",
        "Obligatory capture",
        "Si la carta que juegas puede recoger, tiene que recoger (eliges qué baza).",
        "If the card you play can capture, it must capture (you choose which).",
        {"capture_rule": "obligatory"},
        10,
    ),
    HouseRules(
        "recogida-obligatoria-estricta",
        "Recogida obligatoria estricta",
        "Strict obligatory capture",
        "Si alguna carta de tu mano puede recoger, tienes que recoger con una de ellas.",
        "If any card in your hand can capture, you must capture with one of them.",
        {"capture_rule": "obligatory_strict"},
        20,
    ),
    HouseRules(
        "renuncio",
        "Renuncio",
        "Renuncio (penalised)",
        "Puedes no recoger, pero el siguiente jugador se lleva tu carta y las que sumaban 15.",
        "You may decline a capture, but the next player takes your card and the cards it could have captured.",
        {"capture_rule": "penalized"},
        30,
    ),
    HouseRules(
        "sin-escoba-de-mano",
        "Sin escoba de mano",
        "No opening escoba",
        "Las cuatro cartas iniciales de la mesa nunca cuentan como escoba.",
        "The four opening table cards never count as an escoba.",
        {"opening_escoba": "none"},
        40,
    ),
    HouseRules(
        "escoba-de-mano-para-el-mano",
        "Escoba de mano para el mano",
        "Opening escoba for the first player",
        "La escoba de las cuatro cartas iniciales es para el jugador mano, no para quien reparte.",
        "The opening escoba goes to the first player, not the dealer.",
        {"opening_escoba": "mano"},
        50,
    ),
    HouseRules(
        "sin-puntos-en-empate",
        "Sin puntos en los empates",
        "No points for ties",
        "Si hay empate en cartas, oros o sietes, nadie se lleva ese punto.",
        "A tie for most cards, oros or sevens gives that point to nobody.",
        {"tie_points": "none"},
        60,
    ),
    HouseRules(
        "por-parejas",
        "Por parejas",
        "In pairs",
        "Cuatro jugadores en dos parejas (asientos 1 y 3 contra 2 y 4) a 21 puntos.",
        "Four players in two pairs (seats 1 and 3 against 2 and 4) to 21 points.",
        {"pairs": True},
        70,
    ),
]


class Migration(migrations.Migration):
    dependencies = [("games", "0004_rebuild_scout_states")]

    operations = [seed_house_rules("escoba", VARIANTS)]
