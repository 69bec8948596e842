"""The installed games: every Django app whose config is a :class:`GameAppConfig`.

The table machinery (models, views, actions, admin, ratings, leagues) asks this module for a
game's engine, bots, presentation and title and never names a game itself, so adding a game is
one app folder and one ``INSTALLED_APPS`` line. The list is read from Django's app registry each
time rather than copied into a module-level dict in ``ready()``: a test that installs a toy game
with ``override_settings(INSTALLED_APPS=…)`` sees it appear and disappear with the setting.
"""

from __future__ import annotations

import importlib
from functools import cached_property
from types import ModuleType

from django.apps import AppConfig, apps


class GameAppConfig(AppConfig):
    """The config of a game app. The app's label is the game's key, stored in ``Match.game``.

    The app package holds ``engine.py`` and ``bots.py`` (pure Python), a ``present.py``
    (``table_context(view, moves, seat)``: extra context for the table; and
    ``describe_move(event, names)``: one public event of the view's ``last_moves`` in words —
    a dict with ``seat``, ``kind``, ``who``, ``text``, ``cards``, ``badge`` and ``sentence`` —
    used alike by the table's last moves, the game log and the replay), and the templates ``<key>/table.html``, ``<key>/card.html``, ``<key>/rules_es.html`` and
    ``<key>/rules_en.html``, and the stylesheet ``static/<key>/table.css``.
    """

    #: The game's name; a proper name, the same in every language.
    title = ""
    #: One sentence for the home page (a lazy translation).
    summary = ""

    @property
    def key(self) -> str:
        return self.label

    @cached_property
    def engine(self) -> ModuleType:
        return importlib.import_module(f"{self.name}.engine")

    @cached_property
    def bots(self) -> ModuleType:
        return importlib.import_module(f"{self.name}.bots")

    @cached_property
    def present(self) -> ModuleType | None:
        try:
            return importlib.import_module(f"{self.name}.present")
        except ModuleNotFoundError as error:
            if error.name != f"{self.name}.present":
                raise  # present.py exists but imports something missing: not ours to hide
            return None

    def template(self, name: str) -> str:
        """The name of one of the game's own templates, e.g. ``template("table.html")``."""
        return f"{self.key}/{name}"

    def ready(self) -> None:
        # Fail at start-up, not on the first table, if the app lacks what every game needs.
        for attribute in ("INFO", "OPTIONS", "new_game", "apply", "view"):
            if not hasattr(self.engine, attribute):
                raise TypeError(f"{self.name}.engine has no {attribute}")
        if not self.title:
            raise TypeError(f"{self.__class__.__name__} needs a title")


def games() -> list[GameAppConfig]:
    """Every installed game, in ``INSTALLED_APPS`` order."""
    return [config for config in apps.get_app_configs() if isinstance(config, GameAppConfig)]


def game_keys() -> tuple[str, ...]:
    return tuple(config.key for config in games())


def get(key: str) -> GameAppConfig:
    """The installed game with that key; ``KeyError`` for anything else."""
    for config in games():
        if config.key == key:
            return config
    raise KeyError(key)


def is_game(key: object) -> bool:
    return isinstance(key, str) and key in game_keys()


def engine(key: str) -> ModuleType:
    """The engine module of a game; ``KeyError`` for an unknown key."""
    return get(key).engine


def bots(key: str) -> ModuleType:
    """The bots module of a game; ``KeyError`` for an unknown key."""
    return get(key).bots


def present(key: str) -> ModuleType | None:
    return get(key).present


def title(key: str) -> str:
    return get(key).title


def choices() -> list[tuple[str, str]]:
    """``(key, title)`` for the ``choices`` of every model field that holds a game key.

    Passed as a callable, so installing a game changes the choices without a migration.
    """
    return [(config.key, config.title) for config in games()]
