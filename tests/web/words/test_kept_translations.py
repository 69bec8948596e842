"""A ``{% translate "…" %}`` is kept per language once drawn (cardclub/i18n_tags.py, issue 34):
each page still gets the words of its own language, escaped as its template escapes, and what is
not a literal is drawn afresh every time."""

from __future__ import annotations

import pytest
from django.template import Context, Engine, engines
from django.test import override_settings
from django.utils import translation

from cardclub import i18n_tags


def draw(source: str, language: str, **context) -> str:
    template = engines["django"].from_string("{% load i18n %}" + source)
    with translation.override(language):
        return template.render(context)


def test_every_template_that_loads_i18n_gets_the_kept_translate_tag():
    template = engines["django"].from_string('{% load i18n %}{% translate "Log in" %}')
    assert isinstance(template.template.nodelist[-1], i18n_tags.KeptTranslateNode)


def test_one_node_gives_each_language_its_own_words_in_turn():
    template = engines["django"].from_string('{% load i18n %}{% translate "Log in" %}')
    drawn = []
    for language in ["es", "en", "es", "en"]:
        with translation.override(language):
            drawn.append(template.render({}))
    assert drawn == ["Iniciar sesión", "Log in", "Iniciar sesión", "Log in"]


def test_a_message_context_picks_its_own_translation_and_as_sets_the_variable():
    source = '{% translate "wins" context "the winner of a Scout match" as w %}[{{ w }}]'
    assert draw(source, "es") == "[gana]"
    assert draw(source, "en") == "[wins]"
    assert draw('{% translate "wins" %}', "es") == "victorias"


def test_a_translated_variable_follows_the_variable_on_every_render():
    source = "{% translate word %}"
    assert draw(source, "es", word="Log in") == "Iniciar sesión"
    assert draw(source, "es", word="Sign up") != "Iniciar sesión"


def test_a_changed_setting_forgets_every_kept_word():
    draw('{% translate "Log in" %}', "es")
    assert i18n_tags._kept
    with override_settings(LANGUAGES=[("en", "English")]):
        assert not i18n_tags._kept


@pytest.mark.parametrize("language", ["es", "en"])
def test_the_kept_words_are_those_django_draws_escaped_or_not(language):
    words = (
        '{% translate "Log in" %} {% translate "A < B & C" %} {% translate "50%" %}'
        ' {% translate "wins" context "the winner of a Scout match" %} {{ x }}'
    )
    source = f"{{% load i18n %}}{words}|{{% autoescape off %}}{words}{{% endautoescape %}}"
    djangos = Engine(libraries={"i18n": "django.templatetags.i18n"}).from_string(source)
    with translation.override(language):
        theirs = djangos.render(Context({"x": "<i>"}))
    ours = draw(source.removeprefix("{% load i18n %}"), language, x="<i>")
    assert ours == theirs
    assert "&lt;i&gt;" in ours and "<i>" in ours  # the template did escape where asked


def test_a_render_asks_django_for_the_language_once_however_many_words_it_draws(monkeypatch):
    template = engines["django"].from_string(
        "{% load i18n %}" + '{% translate "Log in" %} {% translate "Sign up" %}' * 10
    )
    asked = []
    real = translation.get_language
    with translation.override("es"):
        monkeypatch.setattr(translation, "get_language", lambda: asked.append(1) or real())
        assert template.render({}).startswith("Iniciar sesión")
    assert len(asked) == 1


def test_a_language_block_draws_its_words_in_its_language_and_then_goes_back():
    source = (
        '{% translate "Log in" %}|{% language "en" %}{% translate "Log in" %}'
        '|{% language "es" %}{% translate "Sign up" %}{% endlanguage %}'
        '|{% translate "Sign up" %}{% endlanguage %}|{% translate "Sign up" %}'
    )
    assert draw(source, "es").split("|") == [
        "Iniciar sesión",
        "Log in",
        "Darse de alta",
        "Sign up",
        "Darse de alta",
    ]


def test_a_template_drawn_with_a_context_of_its_own_asks_for_the_active_language():
    # Not through the club's backend (as Django's form renderer or a hand-made Context draws):
    # no language is noted on the context, so each word asks Django.
    template = engines["django"].from_string('{% load i18n %}{% translate "Log in" %}').template
    for language, words in [("es", "Iniciar sesión"), ("en", "Log in")]:
        with translation.override(language):
            assert template.render(Context()) == words
