"""``{% kept key ... %}…{% endkept %}``: the parts of the site's frame (base.html) drawn once per
process and key, and kept (issue 30).

Every full page draws the frame, and most of it is the same for every request in a language:
the stylesheets' hashed names, the nav's links and words, the language menu. Drawn afresh, its
dozen ``{% url %}``, ``{% static %}`` and ``{% translate %}`` cost the frame about as much as a
bare logged-in request costs altogether. A kept part is drawn the first time its key is seen
and then copied out of this process's memory: no cache round trip, nothing pickled.

What is inside a ``{% kept %}`` may depend only on its key (name the language, the member's
name…) and on the code: URLs, static names and translations. Never the CSRF token, the
request's path, messages or a count: those stay outside. The URLconf and script prefix in force
are part of every key, and a changed setting (a test's ``override_settings``) forgets them all.
"""

from __future__ import annotations

from django import template
from django.conf import settings
from django.template.loader_tags import BlockNode
from django.urls import get_script_prefix, get_urlconf
from django.utils.safestring import mark_safe

register = template.Library()

# A few parts per language and member at most; past this many all are forgotten at once (a
# plain dict: the request threads share it, and a dict's get and set need no lock).
KEPT_MOST = 4096
_kept: dict = {}


def forget(**_kwargs) -> None:
    """Every kept part forgotten (on a changed setting: cardclub/club/receivers.py)."""
    _kept.clear()


# Where a ``{% fresh %}`` stood in a kept part as it was first drawn: the part is kept as the
# text between them, and they are drawn anew each time. NUL appears in no page.
_MARK = "\x00fresh\x00"


class KeptNode(template.Node):
    child_nodelists = ("nodelist",)

    def __init__(self, nodelist, keys, origin_key):
        self.nodelist, self.keys, self.origin_key = nodelist, keys, origin_key
        # A block inside may be overridden by the page's own template: that is then a key too.
        self.per_page = bool(nodelist.get_nodes_by_type(BlockNode))

    def render(self, context):
        key = (
            self.origin_key,
            get_urlconf() or settings.ROOT_URLCONF,
            get_script_prefix(),
            context.template.name if self.per_page else None,
            *(value.resolve(context) for value in self.keys),
        )
        kept = _kept.get(key)
        if kept is None:
            outer = getattr(context, "_kept_fresh", None)
            context._kept_fresh = fresh = []
            try:
                drawn = self.nodelist.render(context)
            finally:
                context._kept_fresh = outer
            if len(_kept) >= KEPT_MOST:
                _kept.clear()
            kept = _kept[key] = (drawn.split(_MARK), fresh)
        texts, fresh = kept
        if not fresh:
            return mark_safe(texts[0])  # noqa: S308 (drawn by the template engine, escaped)
        parts = [texts[0]]
        for node, text in zip(fresh, texts[1:], strict=True):
            parts.append(node.nodelist.render(context))
            parts.append(text)
        return mark_safe("".join(parts))  # noqa: S308 (as above)


class FreshNode(template.Node):
    child_nodelists = ("nodelist",)

    def __init__(self, nodelist):
        self.nodelist = nodelist

    def render(self, context):
        fresh = getattr(context, "_kept_fresh", None)
        if fresh is None:  # not inside a kept part being drawn: just this
            return self.nodelist.render(context)
        fresh.append(self)
        return _MARK


@register.tag
def kept(parser, token):
    """``{% kept LANGUAGE_CODE user.username %}…{% endkept %}``: see the module."""
    keys = [parser.compile_filter(bit) for bit in token.split_contents()[1:]]
    nodelist = parser.parse(("endkept",))
    parser.delete_first_token()
    # Which template and where in it: two kept parts with the same key are different parts.
    origin = (parser.origin.name if parser.origin else "", token.lineno)
    return KeptNode(nodelist, keys, origin)


@register.tag
def fresh(parser, token):
    """``{% fresh %}…{% endfresh %}`` inside a kept part: drawn anew on every request (the CSRF
    token, the request's path, a count). The kept part's key must decide whether and how often
    it is reached (an ``{% if %}`` around it on a key, never a loop over the request's data)."""
    nodelist = parser.parse(("endfresh",))
    parser.delete_first_token()
    return FreshNode(nodelist)
