"""Demo data for a development club: an admin and three members.

Only in DEBUG (a real club must never get accounts with a published password), and idempotent:
running it again resets the demo passwords and creates nothing twice.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

DEMO_PASSWORD = "club-demo-2026"
DEMO_MEMBERS = [
    ("admin", "Admin", "", True),
    ("alice", "Alicia", "García", False),
    ("bob", "Roberto", "Martín", False),
    ("carmen", "Carmen", "López", False),
]


class Command(BaseCommand):
    help = "Create the demo admin and members (DEBUG only). Safe to run again."

    def handle(self, *args, **options):
        if not settings.DEBUG:
            raise CommandError("Refusing to create demo accounts with DEBUG off.")
        User = get_user_model()
        for username, first, last, is_admin in DEMO_MEMBERS:
            user, created = User.objects.get_or_create(
                username=username,
                defaults={
                    "first_name": first,
                    "last_name": last,
                    "email": f"{username}@example.com",
                },
            )
            user.is_staff = user.is_superuser = is_admin
            user.set_password(DEMO_PASSWORD)
            user.save()
            self.stdout.write(f"{'created' if created else 'kept   '} {username}")
        for hook in getattr(settings, "DEMO_DATA_HOOKS", []):
            # Later apps (variants, leagues…) add their own demo data without this command
            # knowing about them.
            from django.utils.module_loading import import_string

            import_string(hook)(self.stdout)
        self.stdout.write(
            self.style.SUCCESS(
                "Demo logins (password for all: %s): admin (club admin), alice, bob, carmen"
                % DEMO_PASSWORD
            )
        )
