"""Each game's card tags draw a card once per language and look (issue 34) and in the language
the template is drawn in, a ``{% language %}`` block's included: a card drawn in one language
is never given to a page in the other."""

from __future__ import annotations

import pytest
from django.template import engines
from django.utils import translation

CARDS = {
    # game: (tag library, the tags drawing one card, the card's name in Spanish and English)
    "escoba": (
        "escoba_tags",
        [
            "{% escoba_card_html '10o' %}",
            "{% escoba_card_html '10o' small=True %}",
            "{% escoba_table_card '10o' %}",
            "{% escoba_table_card '10o' pick=True %}",
            "{% escoba_table_card '10o' small=True %}",
            "{% escoba_table_card '10o' pick=True small=True %}",
        ],
        ("Rey de oros", "King of coins"),
    ),
    "schotten_totten": (
        "schotten_totten_tags",
        ["{% st_card_html 'R7' %}", "{% st_card_html 'R7' small=True %}"],
        (" rojo", "Red "),
    ),
    "scout": (
        "scout_tags",
        ["{% scout_card_html '7/3' %}", "{% scout_card_html '7/3' small=True %}"],
        ("al otro lado", "other end"),
    ),
}


def drawn(library: str, tag: str, language: str, inner: str | None = None) -> str:
    source = f"{{% load i18n {library} %}}{tag}"
    if inner:
        source = f'{{% load i18n {library} %}}{{% language "{inner}" %}}{tag}{{% endlanguage %}}'
    with translation.override(language):
        return engines["django"].from_string(source).render({})


@pytest.mark.parametrize("game", CARDS)
def test_a_card_is_drawn_in_each_language_in_turn_however_often_it_is_drawn(game):
    library, tags, (spanish, english) = CARDS[game]
    for tag in tags:
        in_spanish, in_english = drawn(library, tag, "es"), drawn(library, tag, "en")
        for _ in range(2):
            assert drawn(library, tag, "es") == in_spanish
            assert drawn(library, tag, "en") == in_english
        assert english not in in_spanish and spanish not in in_english, tag
        # A card drawn without its name for screen readers (a small Escoba card off the table)
        # carries no words; the others name the card in the page's language.
        if "aria-label" in in_spanish or "<b>" in in_spanish:
            assert spanish in in_spanish and english in in_english, tag


@pytest.mark.parametrize("game", CARDS)
def test_a_card_in_a_language_block_is_drawn_in_that_language(game):
    library, tags, _ = CARDS[game]
    for tag in tags:
        assert drawn(library, tag, "es", inner="en") == drawn(library, tag, "en")
        assert drawn(library, tag, "en", inner="es") == drawn(library, tag, "es")
