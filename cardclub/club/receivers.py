"""What the club as a whole does when Django's own signals are sent."""

from __future__ import annotations

from django.core.signals import setting_changed


def connect() -> None:
    """Called once by the app's ``ready()``."""
    from cardclub import frame, i18n_tags

    # The frame's kept parts hold URLs, static names and words drawn under the settings of
    # their time: a changed setting (a test's override_settings) forgets them all.
    setting_changed.connect(frame.forget, dispatch_uid="cardclub.frame.forget")
    setting_changed.connect(i18n_tags.forget, dispatch_uid="cardclub.i18n_tags.forget")
