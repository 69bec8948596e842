from __future__ import annotations

import re

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core.cache import cache
from django.core.paginator import Paginator
from django.db.models import F
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.http import HttpResponseClientRedirect, trigger_client_event

from cardclub.accounts.models import Preferences
from cardclub.converters import id_param
from cardclub.http import private_no_store
from games import access, registry, timeouts, versions, writes
from games.forms import NewTableForm
from games.locking import ActionError, NoSuchMatch
from games.log import describe_events, match_log, seat_names
from games.models import Match, RuleVariant, Seat
from games.present import (
    describe_options,
    public_facts,
    spectators_table_context,
    table_context,
)
from games.signals import match_page_open, match_viewed
from games.streams import can_stream, mine_stamp


def _game_or_404(game: str) -> registry.GameAppConfig:
    try:
        return registry.get(game)
    except KeyError:
        raise Http404(_("There is no such game.")) from None


# The lobby shows this many of a member's live matches at most, the most urgent first, so its
# cost stays flat however many a league's week gives them; the rest are on "your matches".
LOBBY_MATCHES = 12
MATCHES_PER_PAGE = 30
OPEN_TABLES = 50
OPEN_TABLES_CACHE_SECONDS = 60
# "My matches" is kept under a key that changes with every move at the member's matches and
# every minute; this bounds only what the key cannot see (an opponent renamed).
MINE_CACHE_SECONDS = 60
# How long the lobby keeps a member's drawn "recently finished" list. Its key changes whenever
# a match ends; this bounds only what the key cannot see (a member renamed).
FINISHED_CACHE_SECONDS = 5 * 60


def _my_live_seats(user):
    """The member's seats at matches not over yet, the most urgent first: their turn, then the
    clock that runs out first, then the latest change. One query from the member's live seats
    (a range of the partial ``seat_member_live`` index, whatever the member's history) to the
    match rows, reading only the columns the list shows."""
    match_fields = [f"match__{name}" for name in Match.LIST_FIELDS]
    return (
        Seat.objects.filter(user=user, live=True)
        .select_related("match__variant")
        .only(
            "to_move",
            "match",
            *match_fields,
            "match__variant__name_es",
            "match__variant__name_en",
        )
        .order_by(
            "-to_move",
            F("match__clock_deadline").asc(nulls_last=True),
            "-match__updated_at",
            "-match_id",
        )
    )


def _matches_of(seats) -> list[Match]:
    """The matches of these seats, each marked ``my_turn`` when the seat is awaited."""
    matches = []
    for seat in seats:
        seat.match.my_turn = seat.to_move
        matches.append(seat.match)
    return matches


def _mine(user) -> dict:
    """The lobby's "My matches": the most urgent few, how many there are and how many await
    the member (what live.js reads for the page's title and sound).

    The list is drawn once per change and kept: one aggregate over the member's live seats
    (the ``seat_member_live`` index) counts them and finds their matches' latest change, and
    every move, join, leave and end of a match writes ``updated_at``. The key has the minute
    in it, for the time left on correspondence clocks; a member with a live clock running
    somewhere gets the list drawn afresh (its seconds count down from when it was drawn).
    """
    stamp = Seat.live_stamp(user.pk)  # the same reading as the list's stream (streams.py)
    kept = stamp["total"] and not stamp["live_clocks"]
    minute = timezone.now().replace(second=0, microsecond=0)
    return {
        "mine": SimpleLazyObject(lambda: _matches_of(_my_live_seats(user)[:LOBBY_MATCHES])),
        "mine_total": stamp["total"],
        "mine_shown": LOBBY_MATCHES,
        "my_turns": stamp["my_turns"],
        "mine_version": mine_stamp(stamp["total"], stamp["changed"]),
        "mine_key": (
            (user.pk, stamp["total"], stamp["my_turns"], stamp["changed"], minute) if kept else None
        ),
        "mine_cache_seconds": MINE_CACHE_SECONDS,
    }


def _open_tables() -> list[Match]:
    """The newest tables waiting for players, every member's lobby alike: kept under their
    number and their latest change (every join, leave and start writes ``updated_at``), which
    one aggregate over the ``(status, -updated_at)`` index reads, so that the list itself (a
    join of three tables, longer for PostgreSQL to plan than to run) is read once per change.
    The short life only bounds what that key cannot see (a member renamed)."""
    count, newest = Match.objects.open_tables_stamp()
    return cache.get_or_set(
        f"lobby-open:{count}:{newest}",
        lambda: list(
            Match.objects.open()
            .public()
            .listed()
            .select_related("created_by")
            .only(
                *Match.LIST_FIELDS, "variant__name_es", "variant__name_en", "created_by__username"
            )
            .order_by("-created_at")[: OPEN_TABLES * 2]
        ),
        OPEN_TABLES_CACHE_SECONDS,
    )


def lobby(request):
    # The member's own open tables are in "My matches": the summary names every seat, so they
    # are left out here rather than by a subquery.
    open_tables = [
        match
        for match in _open_tables()
        if all(seat.user_id != request.user.pk for seat in match.summary_seats())
    ][:OPEN_TABLES]

    def finished():
        return list(
            Match.objects.filter(status=Match.Status.FINISHED, seats__user=request.user)
            .listed()
            .order_by("-finished_at")[:10]
        )

    return TemplateResponse(
        request,
        "games/lobby.html",
        {
            **_mine(request.user),
            "open_tables": open_tables,
            # The member's finished matches change only when a match ends: drawn once per
            # finished match in the club and kept; read only when the kept copy is missing.
            "finished": SimpleLazyObject(finished),
            "finished_key": (request.user.pk, Match.objects.newest_finished_pk()),
            "finished_cache_seconds": FINISHED_CACHE_SECONDS,
            "games": registry.choices(),
            "can_stream": can_stream(request),
            "keepalive": int(settings.PUSH_KEEPALIVE_SECONDS),
        },
    )


@private_no_store
@require_GET
def my_matches(request):
    """The lobby's "My matches" list alone: what its live stream (or its poll) fetches."""
    if not request.htmx:
        return redirect("games:lobby")
    return TemplateResponse(request, "games/lobby.html#mine", _mine(request.user))


@private_no_store
@require_GET
def all_my_matches(request):
    """Every match the member is playing or waiting to start, a page at a time, in the lobby's
    order (their turn first)."""
    page = Paginator(_my_live_seats(request.user), MATCHES_PER_PAGE).get_page(
        request.GET.get("page")
    )
    return TemplateResponse(
        request,
        "games/my_matches.html",
        {"page": page, "mine": _matches_of(page.object_list)},
    )


@require_http_methods(["GET", "POST"])
def new_table(request, game):
    app = _game_or_404(game)
    engine = app.engine
    if request.method == "POST":
        form = NewTableForm(game, engine, request.POST)
        if form.is_valid():
            try:
                match = writes.create_match(
                    request.user,
                    form.cleaned_data["variant"],
                    form.cleaned_data["players"],
                    form.fillers(),
                    private=form.cleaned_data["private"],
                )
            except ActionError as error:
                form.add_error(None, str(error))
            else:
                if match.status == Match.Status.OPEN:
                    messages.success(
                        request, _("Your table is open. Share the invitation link with a friend.")
                    )
                return redirect(match)
    else:
        form = NewTableForm.drawn_again(game, engine, request.GET)
    template = "games/new_table.html"
    if request.htmx:
        template += "#table-form"
    return TemplateResponse(
        request,
        template,
        {"form": form, "game": game, "game_title": app.title, "engine": engine},
    )


def _after_action(request, match):
    if request.htmx:
        return HttpResponseClientRedirect(match.get_absolute_url())
    return redirect(match)


@require_POST
def join(request, pk):
    match = access.match_for_viewer(pk, request.user)
    try:
        match = writes.join_match(match.pk, request.user)
    except ActionError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, _("You have taken a seat."))
    return _after_action(request, match)


@require_POST
def leave(request, pk):
    match = access.match_for_viewer(pk, request.user)
    try:
        writes.leave_match(match.pk, request.user)
    except ActionError as error:
        messages.error(request, str(error))
        return _after_action(request, match)
    messages.success(request, _("You have left the table."))
    return redirect("games:lobby")


@require_GET
def invite(request, token):
    match = access.match_by_invite(token, request.user)
    return redirect(match)


# Indentation and blank lines: a template's tags leave many, and outside <pre> and <textarea>
# (no table has either) a browser shows any run of them as one space, as it shows a newline.
_BLANK_RUNS = re.compile(rb"\n\s+")


def _compacted(response: TemplateResponse) -> TemplateResponse:
    """A table fragment with each run of whitespace that starts a line sent as one newline:
    every poll and move carries one, and they were a twentieth of it."""

    def compact(rendered):
        rendered.content = _BLANK_RUNS.sub(b"\n", rendered.content)

    response.add_post_render_callback(compact)
    return response


def _render_table(request, match, state=None, error=None, shown_status=None):
    """The table partial for htmx (with the seats panel out of band), or the whole page.

    ``shown_status``: the match's status on the page asking, when known. The controls (Resign)
    depend only on it, so a fragment carries them only when it changed.
    """
    key = None
    if request.htmx:
        key = access.spectators_drawing_key(match, match.seat_of(request.user), request.GET)
    if key is None:
        context = table_context(match, request.user, state=state, error=error)
    else:
        fresh_for = access.spectators_drawing_fresh_for(match)
        context = spectators_table_context(
            match, request.user, key, fresh_for, state=state, error=error
        )
    context["controls_changed"] = shown_status != match.status
    # Who has the page open: spectators, and the seated members of a finished match (is
    # anyone still at the table for a rematch?). Not the member whose move just ended it: that
    # response stays within its queries, and their page's keep-alives say it soon enough.
    if request.user.is_authenticated and (
        context["my_seat"] is None
        or (match.status == Match.Status.FINISHED and not match.ended_just_now)
    ):
        match_viewed.send(sender=Match, match=match, user=request.user)
    if request.htmx:
        # The fragment is the table and the seats; the house rules are only on the full page.
        return _compacted(TemplateResponse(request, "games/match.html#updates", context))
    context["rules"] = describe_options(match.game, match.options)
    context["turn_sound"] = context["my_seat"] is not None and Preferences.turn_sound_for(
        request.user
    )
    context["can_stream"] = can_stream(request)
    context["keepalive"] = int(settings.PUSH_KEEPALIVE_SECONDS)
    return TemplateResponse(request, "games/match.html", context)


def _clock_due(status, deadline) -> bool:
    return status == Match.Status.PLAYING and deadline is not None and deadline <= timezone.now()


def _on_time(match: Match) -> Match:
    """The match, with the time-out its clock has come to applied first: the worker's sweep
    may be a few seconds away, and nobody should see a clock at zero with the game going on."""
    if _clock_due(match.status, match.clock_deadline):
        timeouts.time_out(match.pk)
        match = access.match_for_viewer(match.pk)
    return match


@private_no_store
@require_GET
def match_page(request, pk):
    match = _on_time(access.match_to_show(pk, request.user))
    return _render_table(request, match)


PLAYING = Match.Status.PLAYING.value


def _int_param(request, name: str) -> int | None:
    try:
        return int(request.GET.get(name, ""))
    except ValueError:
        return None


@private_no_store
@require_GET
def poll(request, pk):
    """204 when the table is still at version ``v``; otherwise the table as it is now.

    Moves in a row (bots) are paced in one place, the worker: each is committed as its own
    version ``BOT_MOVE_PAUSE`` after the one before, and the stream brings each to the page.
    """
    version = _int_param(request, "v")
    fields = ("version", "status", "clock_deadline", "updated_at")
    row = versions.row(pk, fields)
    if row is None:
        raise Http404(_("There is no match with that number."))
    if _clock_due(row[1], row[2]):
        timeouts.time_out(pk)
        row = versions.row(pk, fields)
    if row[0] == version:
        # The page of a finished match is still open, though nothing changed (is its member
        # still at the table for a rematch?): kept at most every WATCH_WRITE_EVERY seconds (the
        # receiver's cache key). Not while playing: a poll then stays at its four queries.
        if row[1] == Match.Status.FINISHED:
            match_page_open.send(sender=Match, match_id=pk, user_id=request.user.pk)
        return HttpResponse(status=204)
    match = access.match_to_show(pk, request.user, key=(pk, row[0], row[3]))
    return _render_table(request, match, shown_status=request.GET.get("s"))


@private_no_store
@require_POST
def move(request, pk):
    code = request.POST.get("code", "")[:64]
    try:
        version = int(request.POST.get("v", ""))
    except ValueError:
        version = None
    try:
        # A move chosen in two steps (a card from the hand, then where it goes; or the cards
        # to take, then the card that takes them) sends the first choice as the inputs named
        # "pick" (a radio button, or checkboxes: joined with "+") and leaves its place in the
        # button's code as "*": one button per place instead of one per combination.
        if "*" in code:
            picks = [pick[:8] for pick in request.POST.getlist("pick")[:40] if pick]
            if not picks:
                raise ActionError(_("Pick the cards for this move first."))
            code = code.replace("*", "+".join(picks), 1)[:400]
        result = writes.play_move(pk, request.user, code, version)
    except NoSuchMatch:
        raise Http404(_("There is no match with that number.")) from None
    except ActionError as error:
        if not request.htmx:
            messages.error(request, str(error))
            return redirect("games:match", pk=pk)
        # The refusal is said in the page's messages (the fragment's #messages, out of band)
        # beside the table as it is now; the event tells static/js/live.js to put the member's
        # choices back where the new table still offers them.
        response = _render_table(
            request,
            access.match_to_show(pk, request.user),
            error=str(error),
            shown_status=PLAYING,
        )
        return trigger_client_event(response, "cardclub:moveRefused")
    if not request.htmx:
        return redirect("games:match", pk=pk)
    # The match and the state as the move left them, seats included: nothing to read again.
    # (A move is made from a page of a match being played.) Kept as committed for the other
    # pages, which the push sends to fetch this version: unless the move ended the match,
    # whose end others write to its seats (ratings) after the move.
    if result.match.status == Match.Status.PLAYING:
        versions.keep(result.match, result.state)
    return _render_table(request, result.match, state=result.state, shown_status=PLAYING)


@require_POST
def resign(request, pk):
    match = access.match_for_viewer(pk, request.user)
    try:
        writes.resign(match.pk, request.user)
    except ActionError as error:
        messages.error(request, str(error))
    else:
        messages.info(request, _("You resigned. The match is over."))
    return _after_action(request, match)


@private_no_store
@require_GET
def replay(request, pk):
    match = access.finished_match_for_replay(pk, request.user)
    app = registry.get(match.game)
    engine = app.engine
    records = list(match.moves.order_by("seq").values_list("seat", "code"))
    try:
        step = int(request.GET.get("step", len(records)))
    except ValueError:
        step = len(records)
    step = max(0, min(step, len(records)))
    state = match.replay(upto=step, moves=records)
    data = engine.dump(state)
    view = engine.view(state, None)
    seats = list(match.seats.all())
    facts = public_facts(match, seats)
    context = {
        "match": facts,
        "seats": facts.seats,
        "log": match_log(match, seats=seats, records=records),
        "step_links": True,
        "step": step,
        "total": len(records),
        "view": view,
        "moves": [],
        "hands": [(seat, data["hands"][seat.index]) for seat in facts.seats],
        "game_template": app.template("table.html"),
        "card_template": app.template("card.html"),
        "last_lines": describe_events(app.present, view["last_moves"], seat_names(seats)),
        "replaying": True,
        # Each step is shown as it was played, whoever was to move then.
        "stopped": False,
        "rules": describe_options(match.game, match.options),
        "rules_url": match.get_rules_url(),
    }
    context.update(app.present.table_context(view, [], None))
    return TemplateResponse(request, "games/replay.html", context)


@private_no_store
@require_GET
def export(request, pk):
    """A finished match as a JSON file (format: docs/match-export.md): game, house rules, seed,
    seats, every move in order and the outcome, enough to replay it through the engine.

    Only once the match is over, like the replay: while it is being played the seed would
    deal every hidden card.
    """
    match = access.finished_match_for_replay(pk, request.user)
    response = JsonResponse(match.export(), json_dumps_params={"ensure_ascii": False, "indent": 1})
    response["Content-Disposition"] = f'attachment; filename="match-{match.pk}.json"'
    return response


@private_no_store
@require_GET
def game_log(request, pk):
    """The whole match so far in words (public events only), for any member who may watch it.

    The table's "Game log" fetches this when it is opened (htmx), and links to it without JS.
    """
    match = access.match_for_viewer(pk, request.user)
    seats = list(match.seats.all())
    context = {
        "match": public_facts(match, seats),
        "log": match_log(match, seats=seats) if match.state is not None else [],
        "card_template": registry.get(match.game).template("card.html"),
    }
    template = "games/log.html#log" if request.htmx else "games/log.html"
    return TemplateResponse(request, template, context)


@login_not_required
@require_GET
def rules_index(request):
    return TemplateResponse(request, "games/rules_index.html", {"games": registry.games()})


@login_not_required
@require_GET
def rules(request, game):
    app = _game_or_404(game)
    variant = None
    variant_id = id_param(request.GET.get("variant"))
    if variant_id is not None:
        variant = RuleVariant.objects.filter(game=game, pk=variant_id).first()
    variants = RuleVariant.objects.active().for_game(game)
    language = "en" if (request.LANGUAGE_CODE or "es").startswith("en") else "es"
    return TemplateResponse(
        request,
        "games/rules.html",
        {
            "game": game,
            "game_title": app.title,
            "rules_template": app.template(f"rules_{language}.html"),
            "variant": variant,
            "variant_rules": describe_options(game, variant.options) if variant else None,
            "variants": [(v, describe_options(game, v.options)) for v in variants],
        },
    )
