from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import PasswordResetForm, UserCreationForm
from django.utils.translation import get_language
from django.utils.translation import gettext_lazy as _

from .models import Preferences
from .tasks import send_password_reset

User = get_user_model()


class SignupForm(UserCreationForm):
    """Username, an optional e-mail (needed only to reset a forgotten password) and a password."""

    email = forms.EmailField(
        label=_("E-mail (optional)"),
        required=False,
        help_text=_("Only used to send you a link if you forget your password."),
    )

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")

    def clean_username(self):
        username = super().clean_username()
        # Django only rejects exact duplicates; "Alice" and "alice" would confuse a club.
        if User.objects.filter(username__iexact=username).exists():
            raise forms.ValidationError(_("That username is already taken."), code="taken")
        return username


class ProfileForm(forms.ModelForm):
    turn_sound = forms.BooleanField(
        label=_("Play a sound when it is my turn"),
        required=False,
        help_text=_("A short chime on the table's page when a move makes it your turn."),
    )

    refuse_challenges = forms.BooleanField(
        label=_("Refuse challenges"),
        required=False,
        help_text=_("Nobody can challenge me to a game; I still join tables and play again."),
    )

    hide_presence = forms.BooleanField(
        label=_("Hide that I am online"),
        required=False,
        help_text=_(
            "Others do not see me in the lobby's list of who is online, nor when I was last seen."
        ),
    )

    #: The member's preferences this form edits, beside the user's own fields.
    PREFERENCES = ("turn_sound", "refuse_challenges", "hide_presence")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        prefs = Preferences.objects.filter(user_id=self.instance.pk).first()
        for name in self.PREFERENCES:
            self.fields[name].initial = bool(prefs and getattr(prefs, name))

    def save(self, commit=True):
        user = super().save(commit=commit)
        if commit:
            Preferences.objects.update_or_create(
                user=user, defaults={name: self.cleaned_data[name] for name in self.PREFERENCES}
            )
        return user

    class Meta:
        model = User
        fields = ("first_name", "last_name", "email")
        labels = {
            "first_name": _("First name"),
            "last_name": _("Last name"),
            "email": _("E-mail"),
        }


class QueuedPasswordResetForm(PasswordResetForm):
    """Django's reset form, but the worker looks the address up and sends the mail.

    The request only queues the address: it does the same work whether or not a member has it,
    so neither its answer nor its time tells a stranger which addresses belong to members.
    """

    def save(self, *, request=None, use_https=False, **options):
        send_password_reset.enqueue(
            email=self.cleaned_data["email"],
            domain=request.get_host() if request is not None else "localhost",
            use_https=use_https,
            language=get_language() or settings.LANGUAGE_CODE,
        )
