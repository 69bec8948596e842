"""Escoba's cards in sentences: each Spanish card with its own article (la sota, el caballo,
el rey, el as, el 4), and in English the cards' English names, in every kind of move the game
log, the last moves and the replay put into words (they all come from ``describe_move``)."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from games.escoba import present
from games.escoba.engine import DECK

SUIT_ES = {"o": "oros", "c": "copas", "e": "espadas", "b": "bastos"}
SUIT_EN = {"o": "coins", "c": "cups", "e": "swords", "b": "clubs"}
RANK_ES = {1: "el as", 8: "la sota", 9: "el caballo", 10: "el rey"}
RANK_EN = {1: "the ace", 8: "the jack", 9: "the knight", 10: "the king"}
NAMES = ["Ana", "Beto"]


def events_with(card_id: str) -> list[tuple[str, dict]]:
    """Every kind of Escoba event, with ``card_id`` as the played card and as a taken one."""
    other = "5o" if card_id != "5o" else "6o"
    return [
        ("capture, played", {"kind": "capture", "card": card_id, "cards": [other]}),
        ("capture, taken", {"kind": "capture", "card": other, "cards": [card_id]}),
        ("capture, taken last", {"kind": "capture", "card": other, "cards": [other, card_id]}),
        ("lay", {"kind": "lay", "card": card_id, "cards": []}),
        ("penalty, played", {"kind": "penalty", "card": card_id, "cards": [other]}),
        ("penalty, taken", {"kind": "penalty", "card": other, "cards": [card_id]}),
        ("opening", {"kind": "opening", "card": None, "cards": [other, card_id]}),
        ("last take", {"kind": "last_take", "card": None, "cards": [card_id, other]}),
    ]


def sentence(event: dict, language: str) -> str:
    event = {"seat": 1, "from_seat": 0, "hand": 1, "escobas": 0, **event}
    with translation.override(language):
        return present.describe_move(event, NAMES)["sentence"]


def spanish(card_id: str) -> str:
    value, suit = int(card_id[:-1]), card_id[-1]
    return f"{RANK_ES.get(value, f'el {value}')} de {SUIT_ES[suit]}"


def english(card_id: str) -> str:
    value, suit = int(card_id[:-1]), card_id[-1]
    return f"{RANK_EN.get(value, f'the {value}')} of {SUIT_EN[suit]}"


@pytest.mark.parametrize("card_id", DECK)
def test_every_spanish_card_sentence_gives_the_card_its_own_article(card_id):
    for kind, event in events_with(card_id):
        text = sentence(event, "es")
        assert spanish(card_id) in text, (kind, text)
        # No article of the sentence's own before a card's ("el la sota"), no wrong gender.
        assert not re.search(r"\b(el|la) (el|la)\b", text), (kind, text)
        assert not re.search(r"\bel sota\b|\bla (as|caballo|rey)\b", text, re.I), (kind, text)


@pytest.mark.parametrize("card_id", DECK)
def test_every_english_card_sentence_names_the_card_in_english(card_id):
    for kind, event in events_with(card_id):
        text = sentence(event, "en")
        assert english(card_id) in text, (kind, text)
        assert not re.search(r"\b(de|oros|copas|espadas|bastos|Sota|Caballo|Rey)\b", text), (
            kind,
            text,
        )


def test_a_card_on_its_own_is_named_without_an_article_in_both_languages():
    with translation.override("es"):
        assert [present.card_name(c) for c in ("8b", "1c", "4o")] == [
            "Sota de bastos",
            "As de copas",
            "4 de oros",
        ]
    with translation.override("en"):
        assert [present.card_name(c) for c in ("9c", "4o")] == ["Knight of cups", "4 of coins"]


def test_the_cards_taken_are_a_list_with_and_before_the_last():
    event = {"kind": "capture", "card": "8b", "cards": ["1c", "3e", "3o"]}
    assert sentence(event, "es") == (
        "Beto juega la sota de bastos y se lleva el as de copas, el 3 de espadas y el 3 de oros"
    )
    assert sentence(event, "en") == (
        "Beto plays the jack of clubs and takes the ace of cups, the 3 of swords and the 3 of coins"
    )


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        ("es", ["Ana juega el 7 rojo en el mojón 3", "Ana hace scout del 7 (al otro lado 3)"]),
        ("en", ["Ana plays the Red 7 on stone 3", "Ana scouts 7 (other end 3)"]),
    ],
)
def test_the_other_games_cards_read_right_in_their_sentences_too(language, expected):
    from games.schotten_totten import present as schotten_totten
    from games.scout import present as scout

    with translation.override(language):
        play = schotten_totten.describe_move(
            {"kind": "play", "card": "R7", "stone": 2, "seat": 0}, NAMES
        )
        scouting = scout.describe_move(
            {"kind": "scout", "scouted": "7/3", "end": "left", "seat": 0, "cards": []},
            [*NAMES, "Cris"],
        )
    assert play["sentence"] == expected[0]
    assert scouting["sentence"].startswith(expected[1])


@pytest.mark.parametrize(
    ("card", "card_id", "spanish", "english"),
    [
        ("scout", "7/3", "7 (al otro lado 3)", "7 (other end 3)"),
        ("schotten_totten", "R7", "7 rojo", "Red 7"),
    ],
)
def test_a_card_kept_once_per_language_is_named_in_the_language_of_each_page(
    card, card_id, spanish, english
):
    from games.schotten_totten import present as schotten_totten
    from games.scout import present as scout

    describe = {"scout": scout.card, "schotten_totten": schotten_totten.card}[card]
    for _round in range(2):  # the second time, from what the first kept
        with translation.override("es"):
            named = describe(card_id)
            assert named["name"] == spanish
            named["name"] = "changed by one page"
        with translation.override("en"):
            assert describe(card_id)["name"] == english
