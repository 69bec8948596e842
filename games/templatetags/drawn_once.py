"""``{% drawnonce "name" %}…{% enddrawnonce %}``: a part of a page drawn once per match version
and language in this process, and given back to every later request that may be shown the
same (issue 34).

It draws once only when the view put a key in the context as ``shared_drawing_key``: the view
answers for who is shown the same (``games.access.spectators_drawing_key``: the spectators of a
match being played). Without one the block is drawn every time, so a template
may hold it for every viewer. What only the drawing reads, the view may leave to a function in
the context as ``drawing_context``, called for the first request's drawing alone. A drawing
that holds the time as of its drawing (a clock) is given only for as many seconds as the view
puts in the context as ``shared_drawing_fresh_for``, then drawn again.

The drawing is kept with the version (``games.versions.drawn``), keyed by the block's template
and name, the language, and escaping and number formatting.
"""

from __future__ import annotations

from django import template

from cardclub.i18n_tags import language_of
from games import versions

register = template.Library()


class DrawnOnceNode(template.Node):
    def __init__(self, name: str, nodelist):
        self.name, self.nodelist = name, nodelist

    def render(self, context) -> str:
        key = context.get("shared_drawing_key")
        if key is None:
            return self.nodelist.render(context)
        name = (
            self.origin.name,
            self.name,
            language_of(context),
            context.autoescape,
            context.use_l10n,
        )
        fresh_for = context.get("shared_drawing_fresh_for")
        return versions.drawn(key, name, lambda: self._draw(context), fresh_for)

    def _draw(self, context) -> str:
        # The view may leave what only the drawing reads to be worked out for it.
        more = context.get("drawing_context")
        with context.push(more() if more is not None else {}):
            return self.nodelist.render(context)


@register.tag("drawnonce")
def drawn_once(parser, token):
    bits = token.split_contents()
    if len(bits) != 2 or bits[1][0] not in "'\"" or bits[1][0] != bits[1][-1]:
        raise template.TemplateSyntaxError(f"{bits[0]} takes one argument: its name, in quotes")
    nodelist = parser.parse(("enddrawnonce",))
    parser.delete_first_token()
    return DrawnOnceNode(bits[1][1:-1], nodelist)
