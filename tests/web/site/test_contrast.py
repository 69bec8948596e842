"""Text on the table surfaces is readable: WCAG contrast of at least 4.5:1, read from the CSS.

A small parser reads the site's and every game's stylesheet, resolves the custom properties of
``:root`` and checks (1) every rule that sets both a text colour and a solid background, and
(2) every text colour that a rule gives inside a table surface (a rule whose background is the
felt), including what ``.muted`` and ``.help`` text turns into there: "La mesa está vacía." was
the site's grey on the green felt (1.24:1).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from games import registry

ROOT = Path(__file__).resolve().parents[3]
MINIMUM = 4.5


def stylesheets() -> list[Path]:
    files = sorted((ROOT / "static" / "css").glob("*.css"))
    for app in registry.games():
        files += sorted(Path(app.path, "static", app.label).glob("*.css"))
    return files


def rules(path: Path) -> list[tuple[list[str], dict[str, str]]]:
    """(selectors, declarations) for every rule, @media blocks flattened."""
    text = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)
    found = []
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", text):
        selectors = [s.strip() for s in selector.split(",") if s.strip()]
        declarations = {}
        for declaration in body.split(";"):
            if ":" in declaration:
                name, value = declaration.split(":", 1)
                declarations[name.strip().lower()] = value.strip()
        found.append((selectors, declarations))
    return found


def custom_properties() -> dict[str, str]:
    props = {}
    for path in stylesheets():
        for selectors, declarations in rules(path):
            if selectors == [":root"]:
                props.update({k: v for k, v in declarations.items() if k.startswith("--")})
    return props


PROPS = custom_properties()


def resolve(value: str) -> str:
    for _ in range(5):
        value = re.sub(r"var\((--[\w-]+)\)", lambda m: PROPS.get(m.group(1), m.group(0)), value)
    return value


def colours_in(value: str) -> list[tuple[float, float, float]] | None:
    """The opaque colours in a CSS value (every stop of a gradient); ``None`` when the value
    holds something translucent or unknown, whose colour on screen depends on what is behind."""
    value = resolve(value).lower()
    found = []
    for token in re.findall(
        r"#[0-9a-f]{3,8}\b|rgba?\([^)]*\)|\bwhite\b|\bblack\b|\btransparent\b", value
    ):
        if token == "white":
            found.append((255, 255, 255))
        elif token == "black":
            found.append((0, 0, 0))
        elif token == "transparent":
            return None
        elif token.startswith("#"):
            digits = token[1:]
            if len(digits) in (3, 4):
                digits = "".join(d * 2 for d in digits)
            if len(digits) == 8 and digits[6:] != "ff":
                return None
            found.append(tuple(int(digits[i : i + 2], 16) for i in (0, 2, 4)))
        else:
            parts = [p.strip() for p in token[token.index("(") + 1 : -1].split(",")]
            if len(parts) == 4 and float(parts[3]) < 1:
                return None
            found.append(tuple(float(p) for p in parts[:3]))
    return found or None


def luminance(rgb) -> float:
    def channel(c):
        c = c / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(c) for c in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def background_of(declarations: dict[str, str]):
    value = declarations.get("background-color") or declarations.get("background")
    return colours_in(value) if value else None


def test_the_contrast_formula_gives_the_known_figures():
    assert contrast((0, 0, 0), (255, 255, 255)) == pytest.approx(21)
    grey, felt = colours_in("#566070")[0], colours_in("#1f5c3f")[0]
    assert contrast(grey, felt) == pytest.approx(1.24, abs=0.01)


def test_every_rule_with_text_and_background_colours_is_readable():
    low = []
    for path in stylesheets():
        for selectors, declarations in rules(path):
            backgrounds = background_of(declarations)
            text = colours_in(declarations["color"]) if "color" in declarations else None
            if not backgrounds or not text:
                continue
            worst = min(contrast(t, b) for t in text for b in backgrounds)
            if worst < MINIMUM:
                low.append(f"{path.name}: {', '.join(selectors)} {worst:.2f}:1")
    assert low == []


def felt_surfaces() -> list[tuple[str, list]]:
    """Every selector whose background is the felt, and its colours."""
    felt = colours_in("var(--felt)")
    surfaces = []
    for path in stylesheets():
        for selectors, declarations in rules(path):
            if declarations.get("background") == "var(--felt)":
                surfaces += [(selector, felt) for selector in selectors]
    return surfaces


def test_there_are_table_surfaces_to_check():
    assert len(felt_surfaces()) >= len(registry.games())


def test_text_on_every_table_surface_is_readable():
    all_rules = [(path, r) for path in stylesheets() for r in rules(path)]
    shared = {}  # what .muted and .help are everywhere, unless a surface says otherwise
    for _path, (selectors, declarations) in all_rules:
        for selector in selectors:
            if selector in (".muted", ".help") and "color" in declarations:
                shared[selector] = declarations["color"]
    low = []
    for surface, felt in felt_surfaces():
        inside = {}
        for path, (selectors, declarations) in all_rules:
            if "color" not in declarations or background_of(declarations):
                continue  # a rule with a background of its own is checked against that one
            for selector in selectors:
                if selector == surface or selector.startswith(surface + " "):
                    inside[selector] = (path.name, declarations["color"])
        for cls, colour in shared.items():
            inside.setdefault(f"{surface} {cls}", ("club.css", colour))
        for selector, (name, colour) in inside.items():
            text = colours_in(colour)
            if not text:
                continue
            worst = min(contrast(t, f) for t in text for f in felt)
            if worst < MINIMUM:
                low.append(f"{name}: {selector} {worst:.2f}:1")
    assert low == []
