"""Scout's table, from the engine's view for one seat (never the state).

Cards are named for people and screen readers; the legal moves are regrouped the way a player
chooses them: a show by its first card, then its last; a scout by the end of the active set and
its orientation, then the gap of the hand where it goes. A scout & show is chosen in two steps
(the scout, then the show in the hand it makes) because listing every combination at once would
mean hundreds of buttons: :func:`scout_show_step` builds the second step for one chosen scout.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.translation import get_language, ngettext
from django.utils.translation import gettext as _

from games.contract import Presentation
from games.present import move_line, per_language
from games.scout import engine

ENDS = ("L", "R")
# The address (?ss=…) of a scout & show's first step.
SS_START = "go"


@per_language
def card(text: str) -> dict:
    """A card written ``up/down`` (``7/3``: the 7 is in play), or an id ``a-b`` (shown ``a``)."""
    if "/" in text:
        up, down = (int(part) for part in text.split("/"))
    else:
        up, down = (int(part) for part in text.split("-"))
    return {
        "text": f"{up}/{down}",
        "up": up,
        "down": down,
        "name": _("%(up)s (other end %(down)s)") % {"up": up, "down": down},
    }


def card_name(card_id: str) -> str:
    """A card's name in the active language, for messages that name a card."""
    return card(card_id)["name"]


def cards(texts, language: str | None = None) -> list[dict]:
    """``card`` for each card; ``language`` as ``card`` takes it."""
    return [card(t, language) for t in texts]


def _values(texts) -> list[int]:
    return [int(t.split("/")[0]) for t in texts]


def _flip(text: str) -> str:
    up, down = text.split("/")
    return f"{down}/{up}"


def describe_set(texts) -> dict | None:
    """The kind and strength of shown cards, in words: what a show is measured by."""
    values = _values(texts)
    kind = engine.set_kind(values)
    if kind is None:
        return None
    count, low, high = len(values), min(values), max(values)
    if kind == "single":
        text = _("Single %(value)s") % {"value": values[0]}
    elif kind == "group":
        text = _("Matching set of %(count)s × %(value)s") % {"count": count, "value": low}
    else:
        text = _("Run of %(count)s, %(low)s to %(high)s") % {
            "count": count,
            "low": low,
            "high": high,
        }
    return {"kind": kind, "count": count, "low": low, "high": high, "text": text}


def _window_groups(hand: list[str], windows: list[tuple[int, int, str]]) -> list[dict]:
    """Showable windows grouped by their first card: ``(start, length, code)`` per window.

    A window is named by its set in words (kind, length, values): the hand above it already
    draws its cards, so they are not drawn again per window."""
    groups: dict[int, dict] = {}
    for start, length, code in sorted(windows):
        group = groups.setdefault(start, {"index": start, "windows": []})
        group["windows"].append(
            {
                "code": code,
                "start": start,
                "length": length,
                "set": describe_set(hand[start : start + length]),
            }
        )
    return [groups[k] for k in sorted(groups)]


def _hand_row(
    hand: list[str], groups: list[dict], marked: int | None = None, gaps: bool = False
) -> list[dict]:
    """The hand as one row: each card, whether a show may start there, and (``gaps``) the
    place before it where a scouted card may go, named for screen readers."""
    starts = {g["index"] for g in groups}
    return [
        {
            "index": i,
            "card": card(t),
            "starts": i in starts,
            "marked": i == marked,
            "gap": _gap_label(hand, i) if gaps else "",
        }
        for i, t in enumerate(hand)
    ]


def _scouted(active: list[str], end: str, turn: bool) -> tuple[str, list[str]]:
    """The card taken from ``end`` of the active set as it goes into the hand, and the rest."""
    if end == "L":
        taken, rest = active[0], active[1:]
    else:
        taken, rest = active[-1], active[:-1]
    return (_flip(taken) if turn else taken), rest


def _scout_show_windows(
    hand: list[str], active: list[str], end: str, turn: bool, pos: int, codes: set[str]
) -> tuple[list[str], list[tuple[int, int, str]]]:
    """The hand after the scout, and its windows whose scout & show is a legal move."""
    taken, rest = _scouted(active, end, turn)
    new_hand = [*hand[:pos], taken, *hand[pos:]]
    windows = []
    for start, length in engine.show_windows(_values(new_hand), _values(rest)):
        code = f"cs:{end}:{int(turn)}:{pos}:{start}:{length}"
        # The engine lists one canonical code per outcome and accepts the others.
        if engine.parse_move(code).code in codes:
            windows.append((start, length, code))
    return new_hand, windows


def _end_choices(active: list[str]) -> list[dict]:
    choices = []
    for end in ENDS[: 1 if len(active) == 1 else 2]:
        for turn in (False, True):
            taken, _rest = _scouted(active, end, turn)
            if len(active) == 1:
                where = _("the card")
            elif end == "L":
                where = _("the left card")
            else:
                where = _("the right card")
            choices.append(
                {
                    "key": f"{end}{int(turn)}",
                    # The first half of a scout's code, sent as the radio "pick" (c:*:<gap>).
                    "pick": f"{end}:{int(turn)}",
                    "end": end,
                    "turn": turn,
                    "card": card(taken),
                    "label": (_("%(where)s, turned") if turn else _("%(where)s, as it lies"))
                    % {"where": where},
                }
            )
    return choices


def _gap_label(hand: list[str], pos: int) -> str:
    """Where a gap of the hand is, by the values in play beside it (the hand itself names
    its cards in full just before and after the gap)."""
    if not hand:
        return _("into your hand")
    if pos == 0:
        return _("before %(card)s") % {"card": _up(hand[0])}
    if pos == len(hand):
        return _("after %(card)s") % {"card": _up(hand[-1])}
    return _("between %(left)s and %(right)s") % {
        "left": _up(hand[pos - 1]),
        "right": _up(hand[pos]),
    }


def _up(text: str) -> str:
    return text.split("/")[0]


def scout_show_step(data: dict | None, key: str | None) -> dict | None:
    """A later step of a scout & show, from the page's address (``?ss=…``).

    ``go`` gives the first step, which card and which way up (``"stage": "end"``): the table
    only links to it, since a scout & show is played once a round. ``<L|R><0|1>`` gives the gaps of the hand after which a show
    is possible (``"stage": "gap"``); ``<L|R><0|1>-<pos>`` gives the hand after that scout and
    its shows (``"stage": "show"``). Anything that is not one of this seat's possible scouts
    gives ``None`` (the first step is shown again).
    """
    if not data or not key or len(key) > 8:
        return None
    if key == SS_START:
        return {"stage": "end"} if any(data["gaps"].values()) else None
    end_turn, sep, pos_text = key.partition("-")
    gaps = data["gaps"].get(end_turn)
    if not gaps:
        return None
    end, turn = end_turn[0], end_turn[1] == "1"
    taken, rest = _scouted(data["active"], end, turn)
    step = {"key": end_turn, "card": card(taken), "rest": cards(rest)}
    step["rest_set"] = describe_set(rest) if rest else None
    if not sep:
        return {**step, "stage": "gap", "gaps": gaps}
    if not pos_text.isdigit() or int(pos_text) not in gaps:
        return None
    pos = int(pos_text)
    new_hand, windows = _scout_show_windows(
        data["hand"], data["active"], end, turn, pos, data["codes"]
    )
    groups = _window_groups(new_hand, windows)
    return {
        **step,
        "stage": "show",
        "pos": pos,
        "hand": _hand_row(new_hand, groups, marked=pos),
        "groups": groups,
    }


def _scout_context(view: dict, moves: list, hand: list[str]) -> dict:
    """Scout and scout & show choices of the seat on turn (empty when it has none)."""
    active = view["active"]
    context: dict = {"scout_ends": [], "ss_ends": [], "ss": None}
    if not active:
        return context
    ends = _end_choices(active)
    if any(isinstance(m, engine.Scout) for m in moves):
        context["scout_ends"] = ends
    ss_codes = {m.code for m in moves if isinstance(m, engine.ScoutShow)}
    if ss_codes:
        # Which gaps, per card and way up, leave a show possible: only those are offered.
        gaps = {
            e["key"]: {
                pos
                for pos in range(len(hand) + 1)
                if _scout_show_windows(hand, active, e["end"], e["turn"], pos, ss_codes)[1]
            }
            for e in ends
        }
        data = {"hand": hand, "active": active, "codes": ss_codes, "gaps": gaps}
        context.update(ss_ends=[e for e in ends if gaps[e["key"]]], ss=data)
    if context["scout_ends"] or context["ss"]:
        context["last_gap"] = _gap_label(hand, len(hand))
    return context


def _players(view: dict, seat: int | None) -> list[dict]:
    players = []
    for info in view["seats"]:
        i = info["seat"]
        players.append(
            {
                **info,
                "me": i == seat,
                "owner": i == view["active_owner"] and bool(view["active"]),
                "on_turn": view["phase"] == engine.PLAY and i == view["turn"],
                "score": view["scores"][i],
                "score_text": number(view["scores"][i]),
            }
        )
    return players


def describe_move(event: dict, names: Sequence[str]) -> dict:
    """One public event (an entry of the view's ``last_moves``) in words, for the table's last
    moves, the game log and the replay alike: the one place where a move is put into words.

    ``names`` are the seats' names by seat index. The result has ``seat`` and ``who`` (who made
    the move, or ``None``), ``text`` (what happened, in the active language), ``cards`` (cards
    to draw beside it), ``badge`` (or ``None``) and ``sentence`` (``who`` and ``text``
    together). A hand decision says only that it was made: whether a hand was kept or turned
    is that player's secret, and the engine's event does not carry it.
    """
    kind = event["kind"]
    shown = cards(event.get("cards") or ())
    scouted = card(event["scouted"]) if event.get("scouted") else None
    side = ""
    if event.get("end") == "left":
        side = _("from the left end")
    elif event.get("end") == "right":
        side = _("from the right end")
    took = event.get("took") or 0
    taking = ""
    if took:
        taking = " " + ngettext("and takes %(n)s card", "and takes %(n)s cards", took) % {"n": took}
    kind_of_set = describe_set(event["cards"]) if event.get("cards") else None
    # A single card needs no kind: "shows 3" says it all.
    set_text = f" ({kind_of_set['text']})" if kind_of_set and kind_of_set["count"] > 1 else ""
    text = ""
    if kind == "round_end":
        text = _("Round %(number)s ends.") % {"number": event["round"]}
        if event.get("seat") is not None:
            text += " " + _("Ended by %(name)s.") % {"name": names[event["seat"]]}
        return {
            "seat": event.get("seat"),
            "kind": kind,
            "who": None,
            "text": text,
            "cards": [],
            "badge": None,
            "sentence": text,
        }
    if kind == "decide":
        text = _("has decided on their hand")
    elif kind == "show":
        text = _("shows %(cards)s") % {"cards": _card_names(shown)} + set_text + taking
    elif kind == "scout":
        text = _("scouts %(card)s %(side)s") % {"card": scouted["name"], "side": side}
        shown = [scouted]
    elif kind == "scout_show":
        text = (
            _("scouts %(card)s %(side)s, then shows %(cards)s")
            % {"card": scouted["name"], "side": side, "cards": _card_names(shown)}
            + set_text
            + taking
        )
        shown = [scouted, *shown]
    elif kind == "pass":
        text = _("passes: the round ends")
    return move_line(event, names, kind, text, shown, None)


def _card_names(shown: list[dict]) -> str:
    return ", ".join(str(c["up"]) for c in shown)


def signed(points: int) -> str:
    """Points as a score sheet writes them: ``+3``, ``0``, ``−2`` (a real minus sign)."""
    return f"+{points}" if points > 0 else number(points)


def number(value: int) -> str:
    """An int with a real minus sign (``−2``), as the round tables write totals."""
    return f"\u2212{-value}" if value < 0 else str(value)


def _rounds(view: dict, seat: int | None) -> list[dict]:
    """Every finished round's scoring, from the view's ``round_summaries``.

    How the round ended and who ended it (the owner of the active set, exempt from paying for
    the cards in hand), then per seat the counts behind the points, the points and the running
    total. In the 2-player game the round ended by a pass, made by the ender's opponent.
    """
    n = view["player_count"]
    rows = []
    for summary in view["round_summaries"]:
        ender = summary["ender"]
        passer = None
        if summary["end"] == engine.END_PASS and n == 2 and ender is not None:
            passer = 1 - ender
        rows.append(
            {
                "round": summary["round"],
                "end": summary["end"],
                "ender": ender,
                "passer": passer,
                # Cards the exemption spared the ender (0 when a show emptied the hand).
                "exempt_hand": 0 if ender is None else summary["seats"][ender]["hand"],
                "points": [s["points"] for s in summary["seats"]],
                "points_text": [signed(s["points"]) for s in summary["seats"]],
                "seats": [_round_seat(s, seat) for s in summary["seats"]],
            }
        )
    return rows


def _round_seat(row: dict, seat: int | None) -> dict:
    """One seat's line of a round summary, with its contributions written as points."""
    # The exemption only shows where it spared something: the ender of end (a) has no cards.
    spared = row["exempt"] and row["hand"] > 0
    css = " ".join(name for name, on in (("mine", row["seat"] == seat), ("exempt", spared)) if on)
    return {
        **row,
        "me": row["seat"] == seat,
        "spared": spared,
        "css": css,
        "points_text": signed(row["points"]),
        "total_text": number(row["total"]),
        "hand_text": "0" if row["exempt"] else signed(-row["hand"]),
    }


def _standings(view: dict, seat: int | None) -> list[dict]:
    """The final totals, best first; equal totals share the place (rules, "Scoring each round")."""
    scores = view["scores"]
    rows = []
    for i, score in enumerate(scores):
        rank = 1 + sum(1 for other in scores if other > score)
        flags = (("winner", rank == 1), ("mine", i == seat))
        rows.append(
            {
                "seat": i,
                "score": score,
                "score_text": number(score),
                "rank": rank,
                "winner": rank == 1,
                "css": " ".join(name for name, on in flags if on),
            }
        )
    return sorted(rows, key=lambda row: (row["rank"], row["seat"]))


def table_context(view: dict, moves: list, seat: int | None) -> dict:
    hand = view.get("hand") or []
    two = view["player_count"] == 2
    kinds = {type(m) for m in moves}
    my_turn = view["phase"] == engine.PLAY and bool(moves)
    deciding = engine.Decide in kinds
    rounds = _rounds(view, seat)
    language = get_language()  # once for the hand, the active set and the cards taken
    context: dict = {
        "sc_two": two,
        "sc_my_turn": my_turn,
        "sc_deciding": deciding,
        "sc_hand": [{"index": i, "card": card(t, language)} for i, t in enumerate(hand)],
        "sc_rotated": cards(view["rotated_hand"], language) if view.get("rotated_hand") else [],
        "sc_active": cards(view["active"], language),
        "sc_active_set": describe_set(view["active"]) if view["active"] else None,
        "sc_players": _players(view, seat),
        "sc_waiting": [s["seat"] for s in view["seats"] if not s["decided"]],
        "sc_rounds": rounds,
        "sc_standings": [],
        "sc_taken_cards": cards(view["taken_cards"], language),
        "sc_show": [],
        "sc_scout_ends": [],
        "sc_ss_ends": [],
        "sc_ss": None,
        "sc_pass": engine.Pass in kinds,
        "sc_me": None,
        "sc_round_end": None,
        "sc_winners": [],
    }
    if seat is not None:
        context["sc_me"] = view["seats"][seat]
    # The round just ended, while the next one's hands are being decided (at the end of the
    # match the final standings and the round-by-round scoring say it all).
    if view["phase"] == engine.DECIDE and rounds and rounds[-1]["round"] == view["round"] - 1:
        context["sc_round_end"] = rounds[-1]
    if view["phase"] == engine.OVER:
        standings = _standings(view, seat)
        context["sc_standings"] = standings
        context["sc_winners"] = [row["seat"] for row in standings if row["winner"]]
    if my_turn:
        windows = [(m.start, m.length, m.code) for m in moves if isinstance(m, engine.Show)]
        groups = _window_groups(hand, windows)
        scout = _scout_context(view, moves, hand)
        context["sc_show"] = groups
        context["sc_scout_ends"] = scout["scout_ends"]
        context["sc_last_gap"] = scout.get("last_gap", "")
        # The hand once for every kind of move: its cards start a show, its gaps take a scout.
        context["sc_play_hand"] = _hand_row(hand, groups, gaps=bool(scout.get("last_gap")))
        context["sc_ss_ends"] = scout["ss_ends"]
        context["sc_ss"] = scout["ss"]
    return context


def recent_events(view: dict) -> list[dict]:
    """The table's last moves: what the others did since a player's last turn (at least three
    events, since a player of the 2-player game may scout several times in a turn). What came
    before is in the game log; every fragment carries these lines."""
    return view["last_moves"][-max(3, view["player_count"] - 1) :]


_MOVE_KINDS = {"decide", "show", "scout", "scout_show", "pass"}


def last_move(view: dict, names: Sequence[str]) -> tuple[list[dict], list[str]]:
    """What the last move did, from the view's public events: its events in words (by
    ``describe_move``, as in the game log) and the cards it showed or scouted (for the table's
    "just happened" strip). A scouted card was face up on the table, so naming it tells nobody
    anything hidden."""
    events = view.get("last_moves") or []
    starts = [i for i, e in enumerate(events) if e["kind"] in _MOVE_KINDS]
    group = events[starts[-1] :] if starts else events[-1:]
    lines, ids = [], []
    for raw in group:
        line = describe_move(raw, names)
        if not line["text"]:
            continue
        lines.append(line)
        ids.extend(raw["cards"])
        if raw["scouted"]:
            ids.append(raw["scouted"])
    if any(raw["kind"] == "round_end" for raw in group):
        # The round's cards were dealt again: nothing of it is on the new table.
        ids = []
    return lines, ids


def card_html(card, small: bool = False) -> str:
    """One card as HTML, as the table draws it, for the move lines drawn by ``move_line``: they
    put their cards in an ``aria-hidden`` span beside the move in words, so the card is drawn
    without a name of its own."""
    from games.scout.templatetags.scout_tags import scout_card_html  # they import this module

    return scout_card_html(card, small=small, named=False)


#: What the table machinery uses of this module (the contract: games/contract.py).
PRESENTATION = Presentation(
    describe_move=describe_move,
    table_context=table_context,
    recent_events=recent_events,
    last_move=last_move,
    card_name=card_name,
    card_html=card_html,
    # The table's last moves say every card's value in words ("shows 3, 2 (a run of 2, 2 to 3)"):
    # their drawings are left out there (games.present.table_context), kept in the game log.
    last_moves_drawn=False,
)
