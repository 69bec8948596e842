"""Each game is its own Django app: the shared machinery names no game, and a game is a folder."""

from __future__ import annotations

import dataclasses
import gzip
import importlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import types
from pathlib import Path

import pytest
from django.conf import settings
from django.test import override_settings
from django.urls import reverse

from games import registry
from games.engine import replay
from games.models import Match, MoveRecord, RuleVariant

ROOT = Path(settings.BASE_DIR)
SHARED_PLACES = ["cardclub", "games", "templates", "static"]
SOURCE_SUFFIXES = {".py", ".html", ".css", ".js", ".txt", ".svg"}


def files_outside_the_game_apps():
    game_folders = [Path(config.path) for config in registry.games()]
    for place in SHARED_PLACES:
        for path in sorted((ROOT / place).rglob("*")):
            if path.suffix not in SOURCE_SUFFIXES or not path.is_file():
                continue
            if any(folder in path.parents for folder in game_folders):
                continue
            yield path


def test_the_installed_games_come_from_one_app_each():
    assert registry.game_keys() == ("escoba", "schotten_totten", "scout")
    for config in registry.games():
        assert config.name == f"games.{config.key}"
        assert config.name in settings.INSTALLED_APPS
        app = Path(config.path)
        for name in ("engine.py", "bots.py", "apps.py"):
            assert (app / name).is_file(), f"{config.key} has no {name}"
        for name in ("table.html", "card.html", "rules_es.html", "rules_en.html"):
            assert (app / "templates" / config.key / name).is_file(), f"{config.key}: {name}"
        assert (app / "static" / config.key / "table.css").is_file()


def test_no_file_outside_a_game_app_spells_a_game_key():
    keys = "|".join(map(re.escape, registry.game_keys()))
    # A key as a word of its own: "scout" but not "scouted", "escoba" but not "escobas".
    spelled = re.compile(rf"(?<![\w-])({keys})(?![\w])")
    found = []
    for path in files_outside_the_game_apps():
        if path == ROOT / "cardclub" / "settings.py":
            continue  # INSTALLED_APPS lists the game apps, and nothing else there names one
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if spelled.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def test_the_key_test_finds_a_key_where_one_is_spelled(tmp_path):
    # The test above would pass on an empty file list; make sure the scan reaches real files.
    scanned = [path.relative_to(ROOT).as_posix() for path in files_outside_the_game_apps()]
    assert "games/views.py" in scanned
    assert "templates/games/match.html" in scanned
    assert not any(path.startswith("games/scout/") for path in scanned)


CLUB_APPS = list(settings.INSTALLED_APPS)
TOY_APPS = [*CLUB_APPS, "tests.toygame"]


def seed_toy_house_rules():
    """What ``migrate`` does for the toy game when it is installed: its one data migration.

    (The test database is made with the club's apps only, so the migration is run by hand.)
    """
    from django.apps import apps

    migration = importlib.import_module("tests.toygame.migrations.0001_house_rules").Migration
    (seed,) = migration.operations
    seed.code(apps, None)


@pytest.fixture
def toy_game(db):
    with override_settings(INSTALLED_APPS=TOY_APPS):
        seed_toy_house_rules()
        yield RuleVariant.objects.get(game="toygame", slug="standard")


def test_a_fourth_game_in_its_own_folder_shows_in_the_lobby_and_plays_a_move(
    toy_game, alice, bob, client_for
):
    assert "toygame" in registry.game_keys()
    alice_client, bob_client = client_for(alice), client_for(bob)
    lobby = alice_client.get(reverse("games:lobby"))
    assert reverse("games:new_table", args=["toygame"]) in lobby.content.decode()
    response = alice_client.post(
        reverse("games:new_table", args=["toygame"]),
        {"variant": toy_game.pk, "players": 2, "seat_1": "open"},
    )
    match = Match.objects.get(game="toygame")
    assert response.status_code == 302 and response["Location"] == match.get_absolute_url()
    bob_client.post(reverse("games:join", args=[match.pk]))
    match.refresh_from_db()
    assert match.status == Match.Status.PLAYING

    page = alice_client.get(match.get_absolute_url())
    assert page.status_code == 200
    assert "toygame/table.css" in page.content.decode()
    hand = match.engine.view(match.engine.load(match.state), 0)["hand"]
    assert hand and all(f"<li>{card}</li>" in page.content.decode() for card in hand)

    code = f"p:{hand[0]}"
    response = alice_client.post(
        reverse("games:move", args=[match.pk]),
        {"code": code, "v": match.version},
        HTTP_HX_REQUEST="true",
    )
    assert response.status_code == 200
    assert list(MoveRecord.objects.filter(match=match).values_list("code", flat=True)) == [code]
    match.refresh_from_db()
    assert match.engine.dump(match.replay()) == match.state
    rules = bob_client.get(reverse("games:rules", args=["toygame"]))
    assert "Juega tus cartas" in rules.content.decode()


def test_the_fourth_game_is_gone_when_its_app_is_not_installed(toy_game):
    # A game is its app and nothing else: without the app, nothing of it is left behind.
    assert "toygame" in registry.game_keys()
    with override_settings(INSTALLED_APPS=CLUB_APPS):
        assert "toygame" not in registry.game_keys()
        with pytest.raises(KeyError):
            registry.engine("toygame")


OLD_DATABASE = ROOT / "tests" / "fixtures" / "club_before_game_apps.sqlite3.gz"


def test_a_database_made_before_the_game_apps_migrates_forward_with_every_match_replayable(
    tmp_path,
):
    """The fixture was made by main before this layout: the demo club, an admin's edit to a
    house rule, finished, live and open matches of every game, ratings."""
    path = tmp_path / "club.sqlite3"
    path.write_bytes(gzip.decompress(OLD_DATABASE.read_bytes()))
    before = sqlite3.connect(path)
    variants_before = before.execute(
        "SELECT game, slug, name_en, active FROM games_rulevariant ORDER BY game, slug"
    ).fetchall()
    matches_before = before.execute("SELECT id, state FROM games_match ORDER BY id").fetchall()
    ratings_before = before.execute("SELECT count(*) FROM ratings_rating").fetchone()[0]
    before.close()
    assert ("escoba", "renuncio", "Renuncio (club edit)", 1) in variants_before
    assert ratings_before > 0

    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env.update(SQLITE_PATH=str(path), DEBUG="1")
    subprocess.run(
        [sys.executable, "manage.py", "migrate", "--noinput", "-v0"],
        cwd=ROOT,
        env=env,
        check=True,
        timeout=120,
    )

    after = sqlite3.connect(path)
    applied = {row[0] for row in after.execute("SELECT app FROM django_migrations")}
    assert set(registry.game_keys()) <= applied
    # The admins' rules are kept as they were, and none is seeded a second time.
    assert (
        after.execute(
            "SELECT game, slug, name_en, active FROM games_rulevariant ORDER BY game, slug"
        ).fetchall()
        == variants_before
    )
    assert after.execute("SELECT count(*) FROM ratings_rating").fetchone()[0] == ratings_before
    matches = after.execute(
        "SELECT id, game, players, options, seed, state FROM games_match ORDER BY id"
    ).fetchall()
    assert [m[0] for m in matches] == [m[0] for m in matches_before]
    replayed = 0
    for match_id, game, players, options, seed, state in matches:
        if state is None:
            continue  # an open table has no game yet
        engine = registry.engine(game)
        moves = after.execute(
            "SELECT seat, code FROM games_moverecord WHERE match_id = ? ORDER BY seq", [match_id]
        )
        replayed_state = replay(
            engine, engine.new_game(players, options=json.loads(options), seed=seed), moves
        )
        assert engine.dump(replayed_state) == json.loads(state), f"match {match_id} ({game})"
        replayed += 1
    after.close()
    assert replayed == 14


def _play_the_toy_to_the_end(match, clients):
    """Every move through the site, each member laying the first card of their hand."""
    while True:
        match.refresh_from_db()
        state = match.engine.load(match.state)
        if match.engine.is_over(state):
            return match
        (seat,) = match.engine.to_move(state)
        card = match.engine.view(state, seat)["hand"][0]
        response = clients[seat].post(
            reverse("games:move", args=[match.pk]),
            {"code": f"p:{card}", "v": match.version},
            HTTP_HX_REQUEST="true",
        )
        assert response.status_code == 200


def test_the_toy_game_plays_to_the_end_with_its_log_and_replay_from_the_contract_alone(
    toy_game, alice, bob, client_for
):
    # Its house rules come from its own data migration, as a real game's do.
    assert set(RuleVariant.objects.filter(game="toygame").values_list("slug", flat=True)) == {
        "standard",
        "quick",
    }
    clients = [client_for(alice), client_for(bob)]
    clients[0].post(
        reverse("games:new_table", args=["toygame"]),
        {"variant": toy_game.pk, "players": 2, "seat_1": "open"},
    )
    match = Match.objects.get(game="toygame")
    clients[1].post(reverse("games:join", args=[match.pk]))
    match = _play_the_toy_to_the_end(match, clients)
    assert match.status == Match.Status.FINISHED
    assert match.moves.count() == 6  # three cards each

    log = clients[1].get(reverse("games:log", args=[match.pk])).content.decode()
    replay = clients[0].get(reverse("games:replay", args=[match.pk]) + "?step=2")
    assert log.count("juega c") == 6  # the toy's describe_move, once per move (in Spanish)
    assert replay.status_code == 200
    # Two cards laid at step 2: the last-moves list says both, each drawn by toygame/card.html.
    assert replay.content.decode().count('<span class="toycard">') >= 2


def _module_without(name: str, missing: str):
    module = importlib.import_module(name)
    broken = types.ModuleType(name)
    broken.__dict__.update({k: v for k, v in vars(module).items() if k != missing})
    return broken


def _fresh_toy_config():
    from tests import toygame
    from tests.toygame.apps import ToyGameConfig

    return ToyGameConfig("tests.toygame", toygame)


@pytest.mark.parametrize(
    ("module", "missing"),
    [
        ("tests.toygame.engine", "apply_logged"),
        ("tests.toygame.engine", "DECK"),
        ("tests.toygame.bots", "choose"),
        ("tests.toygame.present", "PRESENTATION"),
    ],
)
def test_a_game_missing_a_required_part_fails_at_start_with_a_message_naming_it(
    module, missing, monkeypatch
):
    monkeypatch.setitem(sys.modules, module, _module_without(module, missing))
    with pytest.raises(TypeError, match=rf"{re.escape(module)} .*\b{missing}\b"):
        _fresh_toy_config().ready()


def test_a_game_missing_a_template_fails_at_start_naming_it(tmp_path):
    config = _fresh_toy_config()
    config.path = str(tmp_path)
    with pytest.raises(TypeError, match=r"templates/toygame/table\.html"):
        config.ready()


def test_a_complete_game_passes_the_check_and_gets_every_optional_hook_by_default(toy_game):
    config = _fresh_toy_config()
    config.ready()
    present = config.present
    assert present.card_name("c7") == "c7"
    assert present.card_sprite() == ""
    assert present.last_move({"last_moves": []}, []) == ([], [])
    assert present.table_context({}, [], 0) == {}
    assert present.log_group == "round" and present.last_moves_drawn
    assert present.card_html("c7", small=True).strip() == '<span class="toycard">c7</span>'


def test_no_module_of_the_machinery_looks_a_game_hook_up_by_name():
    """Every hook is named once, in games/contract.py, with its default: a lookup by name
    elsewhere (``getattr(present, "card_html", None)``) would be a second, hidden contract."""
    from games.contract import Bots, Engine, Presentation

    hooks = {f.name for f in dataclasses.fields(Presentation)}
    hooks |= {name for protocol in (Engine, Bots) for name in vars(protocol) if name[0] != "_"}
    hooks |= {"LOG_GROUP", "LAST_MOVES_DRAWN", "PRESENTATION"}
    lookup = re.compile(rf"\b(?:getattr|hasattr)\([^)]*[\"']({'|'.join(hooks)})[\"']")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for place in ("games", "cardclub")
        for path in sorted((ROOT / place).rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if lookup.search(line)
    ]
    assert found == []
    assert lookup.search('draw = getattr(present, "card_html", None)')  # the scan can find one
