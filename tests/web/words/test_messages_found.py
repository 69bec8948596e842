"""Every message the code translates is one `make messages` finds: xgettext does not read inside
an f-string, so a `_("…")` there was dropped from locale/ the next time the catalogue was made,
and Spanish members were shown English (nine places were, before this test)."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
SOURCES = ["cardclub", "games"]
# A gettext call inside an f-string's braces.
CALL = re.compile(r"\{[^{}]*\b(_|gettext|ngettext|pgettext|gettext_lazy|ngettext_lazy)\(")


def translated_inside_f_strings(source: str) -> list[int]:
    lines = []
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        prefix = re.match(r"[A-Za-z]*", token.string).group(0).lower()
        if token.type == tokenize.STRING and "f" in prefix and CALL.search(token.string):
            lines.append(token.start[0])
    return lines


def test_no_message_is_translated_inside_an_f_string():
    found = [
        f"{path.relative_to(ROOT)}:{line}"
        for folder in SOURCES
        for path in sorted((ROOT / folder).rglob("*.py"))
        for line in translated_inside_f_strings(path.read_text(encoding="utf-8"))
    ]
    assert found == []


def test_the_check_sees_a_translation_inside_an_f_string():
    assert translated_inside_f_strings("x = f\"{n}: {_('withdrawn.')}\"\n") == [1]
    assert translated_inside_f_strings('said = _("withdrawn.")\nx = f"{n}: {said}"\n') == []
