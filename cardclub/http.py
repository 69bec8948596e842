"""Small HTTP helpers shared by the club's views."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from functools import wraps

from django.conf import settings
from django.urls import reverse
from django.utils.cache import add_never_cache_headers


def private_no_store(view):
    """Pages with a member's hand must not be kept by any cache or the back/forward cache.

    Sends ``Cache-Control: max-age=0, no-cache, no-store, must-revalidate, private``.
    """

    @wraps(view)
    def wrapper(request, *args, **kwargs):
        response = view(request, *args, **kwargs)
        add_never_cache_headers(response)
        return response

    return wrapper


# A number no route will ever be given for real, replaced by the actual key.
_PK_PLACEHOLDER = 2147483647


def pk_url_maker(name: str) -> Callable[[int], str]:
    """pk -> URL of the route ``name`` taking one integer, with a single ``reverse`` for a
    whole list (``reverse`` was a good part of drawing each row)."""
    pattern = reverse(name, args=[_PK_PLACEHOLDER])
    return lambda pk: pattern.replace(str(_PK_PLACEHOLDER), str(pk))


# Counted for a request whose connecting address is not an address at all (a Unix socket, or a
# server told to rewrite it from a header): all such requests are one client, never a 500.
NO_ADDRESS = "0.0.0.0"


def _address(value) -> str | None:
    """``value`` as a normalised IP address, or ``None`` if it is not one."""
    try:
        return str(ipaddress.ip_address(str(value).strip()))
    except ValueError:
        return None


def client_ip(request) -> str:
    """The address of the client that sent ``request``, for django-axes and anything else that
    counts clients: always a valid IP address, whatever the headers say.

    Without a proxy (``TRUSTED_PROXY_COUNT`` 0, the default) it is the connecting address:
    X-Forwarded-For is then just a header any client can write, and believing it would let an
    attacker pick the address its failed logins are counted against. (So the web server must
    not rewrite the connecting address from that header either: the README's command and
    ``runclub`` tell it not to, and this rule is the only one.)

    Behind N trusted proxies each appends the address it received the request from, so the
    client is the N-th address from the right of X-Forwarded-For (the last proxy is the
    connecting address itself). Anything to the left of it was written by the client and is
    ignored. A request that carries fewer addresses than that, or no address in that place, did
    not come through the proxies as configured, so it is counted against the connecting address.
    """
    remote = _address(request.META.get("REMOTE_ADDR")) or NO_ADDRESS
    proxies = settings.TRUSTED_PROXY_COUNT
    if proxies <= 0:
        return remote
    forwarded = [
        part.strip()
        for part in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",")
        if part.strip()
    ]
    if len(forwarded) < proxies:
        return remote
    return _address(forwarded[-proxies]) or remote
