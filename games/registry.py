"""The installed games: every Django app whose config is a :class:`GameAppConfig`.

The table machinery (models, views, writes, admin, ratings, leagues) asks this module for a
game's engine, bots, presentation and title (what each must be: ``games/contract.py``) and never
names a game itself, so adding a game is one app folder and one ``INSTALLED_APPS`` line. The list is read from Django's app registry each
time rather than copied into a module-level dict in ``ready()``: a test that installs a toy game
with ``override_settings(INSTALLED_APPS=…)`` sees it appear and disappear with the setting.
"""

from __future__ import annotations

import importlib
from functools import cached_property
from pathlib import Path
from types import ModuleType

from django.apps import AppConfig, apps

from games import contract
from games.contract import Presentation


class GameAppConfig(AppConfig):
    """The config of a game app. The app's label is the game's key, stored in ``Match.game``.

    What the app holds is the contract of ``games/contract.py``, checked when the app is ready.
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
    def present(self) -> Presentation:
        """The game's ``present.PRESENTATION``, every optional hook filled in."""
        module = importlib.import_module(f"{self.name}.present")
        return contract.check(self.name, self.engine, self.bots, module).bound(
            self.template("card.html")
        )

    def template(self, name: str) -> str:
        """The name of one of the game's own templates, e.g. ``template("table.html")``."""
        return f"{self.key}/{name}"

    def ready(self) -> None:
        # Fail at start-up, not on the first table, if the app lacks what every game needs.
        if not self.title:
            raise TypeError(f"{self.__class__.__name__} needs a title")
        self.present  # noqa: B018  (checks the engine, the bots and the presentation)
        folder = Path(self.path)
        needed = [Path("templates", self.key, name) for name in contract.TEMPLATES]
        needed.append(Path("static", self.key, "table.css"))
        missing = [str(path) for path in needed if not (folder / path).is_file()]
        if missing:
            raise TypeError(f"{self.name} does not meet the game contract: no {', '.join(missing)}")


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


def present(key: str) -> Presentation:
    """The presentation of a game (``games.contract.Presentation``); ``KeyError`` for an
    unknown key."""
    return get(key).present


def title(key: str) -> str:
    return get(key).title


def choices() -> list[tuple[str, str]]:
    """``(key, title)`` for the ``choices`` of every model field that holds a game key.

    Passed as a callable, so installing a game changes the choices without a migration.
    """
    return [(config.key, config.title) for config in games()]
