"""Django's ``i18n`` template library, with a ``{% translate "literal" %}`` kept per language
once drawn (issue 34). Put in place of Django's own by the club's template backend
(cardclub/templating.py), so every ``{% load i18n %}`` gets it, the admin's included, and the
templates stay as Django writes them.

Django draws a ``{% translate %}`` afresh at every render: a lazy string made and cast, the
active translation looked up twice through asgiref's context-local, the catalogue read, the
result escaped: twenty of them took 140 µs, against 38 µs kept. A table's fragment has about
twenty and a move's answer fifteen. But the words of a literal depend only on the language and
on the catalogues the process loaded (Django marks a template's literal safe, so it is never
escaped), so each node keeps them per language and gives them back at the cost of one lookup.
A ``{% translate %}`` of a variable, with a filter or with a context held in a variable is
drawn as Django draws it. The catalogues change only when a setting does (a test's
``override_settings``): every kept word is then forgotten (cardclub/club/receivers.py).

``{% blocktranslate %}`` is left as Django's: its variables are drawn at every render anyway,
and the catalogue lookup is a small part of it.

The language itself is looked up once per render (``language_of``): asking Django for the
active language goes through asgiref's context-local, 4 µs here, and a fragment asked it at
every ``{% translate %}`` and every card, forty times. The club's backend
(cardclub/templating.py) notes the language on the context it makes; ``{% language %}`` notes
the one it switches to for its body. A context made elsewhere has none noted, and is asked afresh.
"""

from __future__ import annotations

from django import template
from django.templatetags import i18n as django_i18n
from django.utils import translation

register = template.Library()
register.tags.update(django_i18n.register.tags)
register.filters.update(django_i18n.register.filters)


def note_language(context) -> None:
    """Notes the active language on ``context``, for ``language_of`` during its render."""
    context.language = translation.get_language()


def language_of(context) -> str | None:
    """The language ``context`` is being drawn in: as noted, else the active one."""
    try:
        return context.language
    except AttributeError:
        return translation.get_language()


# Every node's kept words, keyed by the node: one dict to forget at once. The request threads
# share it; a dict's get and set need no lock, and a word drawn twice by a race is the same word.
# The club's templates hold a few hundred words in two languages; templates made from strings
# (tests) could add more, so past this many all are forgotten at once.
KEPT_MOST = 8192
_kept: dict = {}


def forget(**_kwargs) -> None:
    """Every kept word forgotten (on a changed setting: cardclub/club/receivers.py)."""
    _kept.clear()


class KeptTranslateNode(django_i18n.TranslateNode):
    def __init__(self, node: django_i18n.TranslateNode):
        super().__init__(node.filter_expression, node.noop, node.asvar, node.message_context)
        context = self.message_context
        self.constant = (
            self.filter_expression.var.literal is not None
            and not self.filter_expression.filters
            and (context is None or (not context.is_var and not context.filters))
        )
        # Django's own node without the ``as``, which draws the words the first time.
        self.plain = django_i18n.TranslateNode(
            node.filter_expression, node.noop, None, node.message_context
        )

    def render(self, context):
        if not self.constant:
            return super().render(context)
        key = (self, language_of(context))
        words = _kept.get(key)
        if words is None:
            if len(_kept) >= KEPT_MOST:
                _kept.clear()
            words = _kept[key] = self.plain.render(context)
        if self.asvar:
            context[self.asvar] = words
            return ""
        return words


@register.tag("translate")
@register.tag("trans")
def do_translate(parser, token):
    return KeptTranslateNode(django_i18n.do_translate(parser, token))


_NOTHING = object()


class LanguageNode(django_i18n.LanguageNode):
    """Django's ``{% language %}``, noting the language it switches to for its body."""

    def render(self, context):
        noted = context.__dict__.get("language", _NOTHING)
        with translation.override(self.language.resolve(context)):
            note_language(context)
            try:
                return self.nodelist.render(context)
            finally:
                if noted is _NOTHING:
                    del context.language
                else:
                    context.language = noted


@register.tag("language")
def language(parser, token):
    node = django_i18n.language(parser, token)
    return LanguageNode(node.nodelist, node.language)
