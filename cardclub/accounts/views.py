from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth.decorators import login_not_required
from django.http import Http404
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.utils.functional import SimpleLazyObject
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from cardclub.notifications.forms import NotificationChoicesForm
from cardclub.ratings.profile import PROFILE_CACHE_SECONDS, member_context, play_version

from .forms import ProfileForm, SignupForm

User = get_user_model()


@login_not_required
@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        # Two backends are configured (axes + model); name the one that owns the password.
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome to the club, %(name)s!") % {"name": user.username})
        return redirect("home")
    return TemplateResponse(request, "accounts/signup.html", {"form": form})


@require_http_methods(["GET", "POST"])
def profile_edit(request):
    form = ProfileForm(request.POST or None, instance=request.user)
    notify_form = NotificationChoicesForm(request.POST or None, user=request.user, prefix="notify")
    if request.method == "POST" and all([form.is_valid(), notify_form.is_valid()]):
        form.save()
        notify_form.save()
        messages.success(request, _("Your profile has been saved."))
        return redirect("member", username=request.user.username)
    return TemplateResponse(
        request, "accounts/profile_edit.html", {"form": form, "notify_form": notify_form}
    )


def member(request, username):
    person = User.objects.filter(username=username, is_active=True).first()
    if person is None:
        raise Http404(_("There is no member with that name."))
    return TemplateResponse(
        request,
        "accounts/member.html",
        {
            "person": person,
            # The sections about their play are the same for every viewer and change only when
            # the member finishes a match: drawn once per finished match and language, and kept.
            "play_version": play_version(person),
            "play_cache_seconds": PROFILE_CACHE_SECONDS,
            # Read only when the kept copy is missing (the template's cache block).
            "play": SimpleLazyObject(lambda: member_context(person)),
        },
    )
