from axes.apps import AppConfig as AxesAppConfig
from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "cardclub.accounts"
    label = "accounts"
    verbose_name = _("Accounts")


class LoginProtectionConfig(AxesAppConfig):
    """django-axes under a name the admin can translate: it names itself nowhere, so its
    section read "Axes" in every language. Its models' words are in our catalogue (it ships
    none in Spanish)."""

    verbose_name = _("Login protection")
