"""The social pages and forms: rematch answers, challenges and the matches being played. All plain forms (they work
without JavaScript); the pages they change hear of it through their own streams."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.db.models import Count, Max
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from cardclub.http import private_no_store
from games import registry
from games.locking import ActionError, NoSuchMatch
from games.models import Match
from games.present import describe_options

from . import challenges, takebacks
from . import rematch as rematches
from .forms import ChallengeForm
from .models import Challenge, Rematch, Takeback, Watcher

User = get_user_model()


def _offer(request) -> int | None:
    """The offer a form answers; ``None`` for a bare "Play again"; garbage refuses nothing
    more than an expired offer would (it names no offer)."""
    raw = request.POST.get("offer", "").strip()
    if not raw:
        return None
    try:
        return int(raw[:12])
    except ValueError:
        return -1


@require_POST
def play_again(request, pk):
    try:
        rematch = rematches.play_again(pk, request.user, _offer(request))
    except NoSuchMatch:
        raise Http404(_("There is no match with that number.")) from None
    except ActionError as error:
        messages.error(request, str(error))
        return redirect("games:match", pk=pk)
    if rematch.status == Rematch.Status.STARTED:
        messages.success(request, _("The rematch has started."))
        return redirect(rematch.new_match)
    if rematch.status == Rematch.Status.LEFT:
        messages.error(request, rematches.left_message(rematch))
        return redirect("games:match", pk=pk)
    messages.success(request, _("You said yes to a rematch. The others are asked."))
    return redirect("games:match", pk=pk)


@require_POST
def rematch_no(request, pk):
    offer = _offer(request)
    try:
        rematch = rematches.say_no(pk, request.user, -1 if offer is None else offer)
    except NoSuchMatch:
        raise Http404(_("There is no match with that number.")) from None
    except ActionError as error:
        messages.error(request, str(error))
    else:
        if rematch.status == Rematch.Status.WITHDRAWN:
            messages.info(request, _("You withdrew the rematch offer."))
        else:
            messages.info(request, _("You declined the rematch."))
    return redirect("games:match", pk=pk)


@require_POST
def rematch_leave(request, pk):
    """ "Leave the table" at a finished match: no rematch with this member, and off to the
    lobby, as at Board Game Arena."""
    try:
        rematches.leave(pk, request.user)
    except NoSuchMatch:
        raise Http404(_("There is no match with that number.")) from None
    except ActionError as error:
        messages.error(request, str(error))
        return redirect("games:match", pk=pk)
    messages.success(request, _("You have left the table."))
    return redirect("games:lobby")


# --- Challenges --------------------------------------------------------------------------------


def _person_or_404(username: str):
    person = User.objects.filter(username=username, is_active=True).first()
    if person is None:
        raise Http404(_("There is no member with that name."))
    return person


@require_http_methods(["GET", "POST"])
def challenge_new(request, username):
    """Challenge a member: first the game (links), then its house rules and seats (the new-table
    form without the two seats the members take). A refusal is said before any form."""
    person = _person_or_404(username)
    context = {"person": person, "games": registry.choices(), "form": None}
    refused = challenges.refusal(request.user, person)
    game = request.POST.get("game") or request.GET.get("game") or ""
    if refused or not registry.is_game(game):
        context["refused"] = refused
        return TemplateResponse(request, "social/challenge_new.html", context)
    engine = registry.engine(game)
    if request.method == "POST":
        form = ChallengeForm(game, engine, request.POST, challenger=request.user, person=person)
        if form.is_valid():
            try:
                challenge = challenges.make(
                    request.user,
                    person,
                    form.cleaned_data["variant"],
                    form.cleaned_data["players"],
                    form.fillers(),
                    form.others(),
                )
            except ActionError as error:
                form.add_error(None, str(error))
            else:
                said = _("%(name)s has been challenged. You will hear the answer.")
                if form.others():
                    said = _("%(name)s have been challenged. You will hear their answers.")
                names = [person, *form.others()]
                messages.success(
                    request, said % {"name": ", ".join(m.get_username() for m in names)}
                )
                return redirect(challenge)
    else:
        form = ChallengeForm.drawn_again(
            game, engine, request.GET, challenger=request.user, person=person
        )
    context.update(form=form, game=game, game_title=registry.get(game).title)
    return TemplateResponse(request, "social/challenge_new.html", context)


def _challenge_for(request, pk) -> Challenge:
    challenge = (
        Challenge.objects.concerning(request.user)
        .select_related("challenger", "challenged", "variant", "match")
        .filter(pk=pk)
        .first()
    )
    if challenge is None:
        raise Http404(_("There is no such challenge."))
    return challenge


@private_no_store
@require_GET
def challenge_page(request, pk):
    challenge = _challenge_for(request, pk)
    return TemplateResponse(
        request,
        "social/challenge.html",
        {
            "challenge": challenge,
            "party": challenge.party() if challenge.is_party else [],
            "rules": describe_options(challenge.variant.game, challenge.variant.options),
        },
    )


def _answer(request, pk, answer):
    try:
        challenge = answer(pk, request.user)
    except challenges.NoSuchChallenge:
        raise Http404(_("There is no such challenge.")) from None
    except ActionError as error:
        messages.error(request, str(error))
        return redirect("social:challenge", pk=pk)
    if challenge.status == Challenge.Status.ACCEPTED:
        messages.success(request, _("Challenge accepted: here is your table."))
        return redirect(challenge.match)
    if challenge.status == Challenge.Status.OPEN:
        messages.success(request, _("You said yes: waiting for the others."))
    elif challenge.status == Challenge.Status.DECLINED:
        messages.info(request, _("You declined the challenge."))
    else:
        messages.info(request, _("You withdrew your challenge."))
    if request.POST.get("next") == "lobby":
        return redirect("games:lobby")
    return redirect(challenge)


@require_POST
def challenge_accept(request, pk):
    return _answer(request, pk, challenges.accept)


@require_POST
def challenge_decline(request, pk):
    return _answer(request, pk, challenges.decline)


# --- Watching ----------------------------------------------------------------------------------


def _being_played() -> list:
    """The matches being played now that every member may see, the latest move first, each with
    how many members are watching it: two queries (the list reads only its columns)."""
    matches = list(
        Match.objects.filter(status=Match.Status.PLAYING)
        .public()
        .select_related("variant")
        .only(*Match.LIST_FIELDS, "moves_played", "variant__name_es", "variant__name_en")
        .order_by("-updated_at")[: settings.WATCHING_SHOWN]
    )
    counts = dict(
        Watcher.recent()
        .filter(match_id__in=[m.pk for m in matches])
        .values_list("match_id")
        .annotate(n=Count("pk"))
        .values_list("match_id", "n")
    )
    for match in matches:
        match.spectators = counts.get(match.pk, 0)
    return matches


@require_GET
def watching(request):
    """The matches being played now, with a link to watch each. The list is the same for every
    member: drawn once per change (every move writes ``updated_at``, read by one aggregate over
    the ``(status, -updated_at)`` index) and kept; ``WATCHING_CACHE_SECONDS`` bounds what the
    key cannot see (spectators coming and going, the clocks' seconds)."""
    stamp = (
        Match.objects.filter(status=Match.Status.PLAYING)
        .public()
        .aggregate(count=Count("pk"), newest=Max("updated_at"))
    )
    return TemplateResponse(
        request,
        "social/watching.html",
        {
            "matches": SimpleLazyObject(_being_played),
            "watching_key": (stamp["count"], stamp["newest"]),
            "watching_cache_seconds": settings.WATCHING_CACHE_SECONDS,
        },
    )


# --- Takebacks ---------------------------------------------------------------------------------


def _version(request) -> int | None:
    try:
        return int(request.POST.get("v", ""))
    except ValueError:
        return None


@require_POST
def takeback_ask(request, pk):
    try:
        asked = takebacks.ask(pk, request.user, _version(request))
    except NoSuchMatch:
        raise Http404(_("There is no match with that number.")) from None
    except ActionError as error:
        messages.error(request, str(error))
    else:
        if asked is None:
            messages.success(request, _("Your last move was taken back: it is your turn again."))
        else:
            messages.info(request, _("You asked to take back your last move. The others answer."))
    return redirect("games:match", pk=pk)


@require_POST
def takeback_answer(request, pk):
    yes = request.POST.get("answer") == "yes"
    try:
        done = takebacks.answer(pk, request.user, yes)
    except NoSuchMatch:
        raise Http404(_("There is no match with that number.")) from None
    except ActionError as error:
        messages.error(request, str(error))
    else:
        if done.status == Takeback.Status.ACCEPTED:
            messages.success(request, _("The move was taken back."))
        elif done.status == Takeback.Status.DECLINED:
            messages.info(request, _("You declined the takeback."))
    return redirect("games:match", pk=pk)
