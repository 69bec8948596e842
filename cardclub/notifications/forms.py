from __future__ import annotations

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from cardclub.accounts.models import Preferences

from .models import DEFAULT_CHOICES, Choice, Kind, NotificationSetting


class NotificationChoicesForm(forms.Form):
    """One choice (site, e-mail, off) per kind, and the language of the e-mails."""

    email_language = forms.ChoiceField(
        label=_("Language of my e-mails"),
        choices=[("", _("The one I use on the site")), *settings.LANGUAGES],
        required=False,
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        saved = dict(NotificationSetting.objects.filter(user=user).values_list("kind", "choice"))
        for kind in Kind:
            self.fields[kind.value] = forms.ChoiceField(
                label=kind.label,
                choices=Choice.choices,
                initial=saved.get(kind.value, DEFAULT_CHOICES[kind]),
                # A form posted without these (an older page, a script) keeps what was chosen.
                required=False,
            )
        # The kinds first, the language last.
        self.order_fields([k.value for k in Kind])
        prefs = Preferences.objects.filter(user=user).first()
        self.fields["email_language"].initial = prefs.email_language if prefs else ""

    def posted(self, name: str) -> bool:
        return self.add_prefix(name) in self.data

    def save(self) -> None:
        for kind in Kind:
            if self.posted(kind.value) and self.cleaned_data[kind.value]:
                NotificationSetting.set_choice(self.user, kind, self.cleaned_data[kind.value])
        if self.posted("email_language"):
            Preferences.objects.update_or_create(
                user=self.user, defaults={"email_language": self.cleaned_data["email_language"]}
            )
