from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

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
    class Meta:
        model = User
        fields = ("first_name", "last_name", "email")
        labels = {
            "first_name": _("First name"),
            "last_name": _("Last name"),
            "email": _("E-mail"),
        }
