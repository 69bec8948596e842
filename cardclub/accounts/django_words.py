"""Words of Django and of the apps it runs that members and the club's admins read, in the
club's Spanish.

Django's Spanish speaks to a member as "usted" ("Su contraseña…", "Escoja una opción") where
the club says "tú", and one of its messages has a typo ("Introduza"). Its admin says "El
{name} … fue agregado" whatever the name's gender ("El reglas de la casa…"): the club's words
put the name after a colon, which suits every name. django-axes and django-tasks-db ship
no Spanish at all. The club's catalogue (``locale/``, first in ``LOCALE_PATHS``) is read before
any app's, so an entry there for the same English text wins. They are listed here, never used,
only so that ``make messages`` (which drops every entry it finds no source for) keeps them.
"""

from django.utils.translation import gettext_noop, ngettext_lazy

WORDS = (
    gettext_noop(
        "Enter a valid username. This value may contain only letters, numbers, and "
        "@/./+/-/_ characters."
    ),
    gettext_noop("Your old password was entered incorrectly. Please enter it again."),
    ngettext_lazy(
        "Your password must contain at least %(min_length)d character.",
        "Your password must contain at least %(min_length)d characters.",
        "min_length",
    ),
    gettext_noop("Your password can’t be too similar to your other personal information."),
    gettext_noop("Your password can’t be a commonly used password."),
    gettext_noop("Your password can’t be entirely numeric."),
    gettext_noop("Select a valid choice. %(value)s is not one of the available choices."),
    gettext_noop("Select a valid choice. That choice is not one of the available choices."),
    # The admin's messages after a save or a delete.
    gettext_noop("The {name} “{obj}” was added successfully."),
    gettext_noop("You may edit it again below."),
    gettext_noop("The {name} “{obj}” was added successfully. You may add another {name} below."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may edit it again below."),
    gettext_noop("The {name} “{obj}” was changed successfully. You may add another {name} below."),
    gettext_noop("The {name} “{obj}” was changed successfully."),
    gettext_noop("The %(name)s “%(obj)s” was deleted successfully."),
    # django-axes' admin (cardclub.accounts.apps.LoginProtectionConfig).
    gettext_noop("access attempt"),
    gettext_noop("access attempts"),
    gettext_noop("access failure"),
    gettext_noop("access failures"),
    gettext_noop("access log"),
    gettext_noop("access logs"),
    gettext_noop("access attempt expiration"),
    gettext_noop("access attempt expirations"),
    gettext_noop("Access Attempt"),
    gettext_noop("User Agent"),
    gettext_noop("IP Address"),
    gettext_noop("Username"),
    gettext_noop("HTTP Accept"),
    gettext_noop("Path"),
    gettext_noop("Attempt Time"),
    gettext_noop("Access lock out"),
    gettext_noop("GET Data"),
    gettext_noop("POST Data"),
    gettext_noop("Failed Logins"),
    gettext_noop("Expires At"),
    gettext_noop("The time when access attempt expires and is no longer valid."),
    gettext_noop("Logout Time"),
    gettext_noop("Session key hash (sha256)"),
    gettext_noop("Locked Out"),
    gettext_noop("Form Data"),
    gettext_noop("Meta Data"),
    gettext_noop("Not set"),
    gettext_noop("Attempt Remaining"),
    gettext_noop("Account locked: too many login attempts. Please try again later."),
    # django-tasks-db's admin (cardclub.accounts.apps.BackgroundTasksConfig).
    gettext_noop("Task Result"),
    gettext_noop("Task Results"),
)
