"""Mail of the accounts, sent by the worker rather than inside the member's request."""

from __future__ import annotations

from django.contrib.auth.forms import PasswordResetForm
from django.core.mail import EmailMultiAlternatives
from django.utils import translation
from django_tasks import task


@task()
def send_password_reset(email: str, domain: str, use_https: bool, language: str) -> None:
    """Mail a password-reset link to every active member with a usable password at ``email``
    (none for an unknown address: the request that queued this cannot tell, by design)."""
    form = PasswordResetForm({"email": email})
    if not form.is_valid():
        return
    with translation.override(language):
        form.save(domain_override=domain, use_https=use_https)


@task()
def send_email(subject: str, body: str, to: list[str], html: str | None = None) -> int:
    """Send one message from the club (``DEFAULT_FROM_EMAIL``) with the configured mail
    backend; the way every other mail of the club leaves, so that no request waits on SMTP.
    Queue it with ``send_email.enqueue(...)`` (after the commit of what it announces)."""
    message = EmailMultiAlternatives(subject, body, to=to)
    if html:
        message.attach_alternative(html, "text/html")
    return message.send()
