"""What a chat message may be: one short line of plain text."""

from __future__ import annotations

import re
import unicodedata

from django import forms
from django.conf import settings
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

# A tag's opening: "<b", "</b", "<!--", "<?xml". A lone "<" as in "3 < 5" is ordinary text
# (and everything is escaped on output anyway); markup is refused so nobody is surprised to see
# their tags printed instead of obeyed.
MARKUP = re.compile(r"<(?:/?[A-Za-z]|[!?])")
# Control and format characters (tabs, newlines, zero-width and direction marks…) and the
# Unicode line and paragraph separators: a message is one visible line.
FORBIDDEN_CATEGORIES = {"Cc", "Cf", "Zl", "Zp"}


def max_length() -> int:
    return settings.CHAT_MAX_LENGTH


class MessageForm(forms.Form):
    # Not stripped by the field: control characters at the ends (a trailing newline) are refused
    # like those inside, and the length counts what is kept.
    text = forms.CharField(label=_("Message"), required=False, strip=False)

    def clean_text(self) -> str:
        raw = self.cleaned_data["text"]
        if any(unicodedata.category(char) in FORBIDDEN_CATEGORIES for char in raw):
            raise ValidationError(
                _(
                    "A message is one line of plain text: no line breaks, tabs or other "
                    "control characters."
                ),
                code="control",
            )
        text = raw.strip()
        if not text:
            raise ValidationError(_("Write something first: the message is empty."), code="empty")
        limit = max_length()
        if len(text) > limit:
            raise ValidationError(
                ngettext(
                    "A message has at most %(limit)d character; this one has %(n)d.",
                    "A message has at most %(limit)d characters; this one has %(n)d.",
                    limit,
                )
                % {"limit": limit, "n": len(text)},
                code="long",
            )
        if MARKUP.search(text):
            raise ValidationError(
                _("Write plain text: HTML tags such as <b> are not allowed."), code="markup"
            )
        return text
