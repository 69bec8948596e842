from __future__ import annotations

from django import template

register = template.Library()


@register.inclusion_tag("chat/chat.html", takes_context=True)
def table_chat(context, match):
    """The table's chat on the match page, for logged-in members only: a visitor gets nothing,
    neither the messages nor the form."""
    from cardclub.chat.views import chat_context

    request = context["request"]
    if not request.user.is_authenticated:
        return {"chat_off": True}
    return {
        **chat_context(match, request.user),
        "request": request,
        "csrf_token": context.get("csrf_token"),
        "chat_off": False,
    }
