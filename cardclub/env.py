"""Reading the environment: the readers every module that takes a variable uses (the settings,
and the server protocol, which loads before Django's settings do).

An empty or unset variable means the default. A value that is not one the reader takes (a typo
such as ``ture``, ``ten`` for a number) stops the start with ``ImproperlyConfigured`` naming the
variable, never a traceback or a quiet default.
"""

from __future__ import annotations

import math
import os

from django.core.exceptions import ImproperlyConfigured

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off"})


def env_value(name: str) -> str | None:
    """The variable's value, or None when it is unset or empty (an empty value means default)."""
    value = os.environ.get(name, "").strip()
    return value or None


def env_bool(name: str, default: bool) -> bool:
    """A yes/no variable. A word that is neither (a typo such as ``ture``) stops the start rather
    than quietly meaning "no"."""
    value = env_value(name)
    if value is None:
        return default
    if value.lower() in TRUE_WORDS:
        return True
    if value.lower() in FALSE_WORDS:
        return False
    raise ImproperlyConfigured(
        f"{name} must be one of {', '.join(sorted(TRUE_WORDS | FALSE_WORDS))}, not {value!r}."
    )


def env_int(name: str, default: int) -> int:
    """A count or a number of seconds: a whole number, 0 or more."""
    value = env_value(name)
    if value is None:
        return default
    try:
        number = int(value)
    except ValueError:
        number = -1
    if number < 0:
        raise ImproperlyConfigured(f"{name} must be a whole number, 0 or more, not {value!r}.")
    return number


def env_float(name: str, default: float) -> float:
    """A number of seconds: finite, 0 or more (``0.5`` and ``30`` both do)."""
    value = env_value(name)
    if value is None:
        return float(default)
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not math.isfinite(number) or number < 0:
        raise ImproperlyConfigured(f"{name} must be a number, 0 or more, not {value!r}.")
    return number


def env_list(name: str, default: str = "") -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]
