from axes.apps import AppConfig as AxesAppConfig
from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _
from django_tasks_db.apps import TasksAppConfig


class AccountsConfig(AppConfig):
    name = "cardclub.accounts"
    label = "accounts"
    verbose_name = _("Accounts")


class LoginProtectionConfig(AxesAppConfig):
    """django-axes under a name the admin can translate: it names itself nowhere, so its
    section read "Axes" in every language. Its models' words are in our catalogue (it ships
    none in Spanish)."""

    verbose_name = _("Login protection")


class BackgroundTasksConfig(TasksAppConfig):
    """django-tasks-db under a name the admin can translate: its own, "Tasks Database Backend",
    is English in every language. Its models' words are in our catalogue."""

    verbose_name = _("Background tasks")
