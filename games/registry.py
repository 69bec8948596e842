"""Game key -> engine module (and bots module).

Pure Python so engine tests can iterate over every game without Django. Modules are imported
lazily so that importing the registry stays cheap.
"""

from __future__ import annotations

import importlib
from types import ModuleType

GAME_KEYS: tuple[str, ...] = ("escoba", "schotten_totten", "scout")


def engine(key: str) -> ModuleType:
    """The engine module of a game; ``KeyError`` for an unknown key."""
    if key not in GAME_KEYS:
        raise KeyError(key)
    return importlib.import_module(f"games.{key}.engine")


def bots(key: str) -> ModuleType:
    """The bots module of a game; ``KeyError`` for an unknown key."""
    if key not in GAME_KEYS:
        raise KeyError(key)
    return importlib.import_module(f"games.{key}.bots")


def engines() -> dict[str, ModuleType]:
    return {key: engine(key) for key in GAME_KEYS}
