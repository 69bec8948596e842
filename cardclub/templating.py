"""Django's template backend, leaving no reference cycle behind a render, and with the words of
``{% translate %}`` kept (issue 34).

Every render makes a ``Context`` whose first pushed ``ContextDict`` (the view's own context)
points back at it, so the whole context of a page (the match, its seats, the engine's view: a
few hundred objects) was garbage that only the cyclic collector could free. At a few hundred
requests a second that garbage made the collector's full passes run every second or two in each
server process, each stopping every thread of it for 80-300 ms: most of a move's p95 on a
server that was only half busy. Emptying the context's stack once the template is drawn breaks
the cycle, so all of it is freed at once by reference counting.

Every ``{% load i18n %}`` gets ``cardclub/i18n_tags.py``, Django's library with each literal's
words kept per language. It is put in place here rather than named in ``OPTIONS["libraries"]``,
where Django's check (``templates.W003``) would take a library named as another for a mistake.
Each render notes the active language on its context once, for the tags that word or draw per
language (``i18n_tags.language_of``).
"""

from __future__ import annotations

from django.template import TemplateDoesNotExist
from django.template.backends import django as django_backend
from django.template.context import make_context
from django.template.library import import_library

from cardclub.i18n_tags import note_language


class Template(django_backend.Template):
    def render(self, context=None, request=None):
        # As Django's own render, and then the stack emptied (its ContextDicts point back).
        context = make_context(context, request, autoescape=self.backend.engine.autoescape)
        note_language(context)
        try:
            return self.template.render(context)
        except TemplateDoesNotExist as exc:
            django_backend.reraise(exc, self.backend)
        finally:
            context.dicts.clear()
            context.render_context.dicts.clear()


class DjangoTemplates(django_backend.DjangoTemplates):
    def __init__(self, params):
        super().__init__(params)
        self.engine.template_libraries["i18n"] = import_library("cardclub.i18n_tags")

    def from_string(self, template_code):
        return Template(self.engine.from_string(template_code), self)

    def get_template(self, template_name):
        try:
            return Template(self.engine.get_template(template_name), self)
        except TemplateDoesNotExist as exc:
            django_backend.reraise(exc, self)
