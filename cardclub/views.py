from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponseServerError
from django.shortcuts import redirect
from django.template import loader
from django.template.response import TemplateResponse
from django.templatetags.static import static
from django.utils.translation import get_language
from django.views.decorators.csrf import requires_csrf_token

from games import registry


@login_not_required
def home(request):
    return TemplateResponse(request, "home.html", {"games": registry.games()})


@login_not_required
def favicon(request):
    """The club's icon where a browser looks for it on a page that links none (the admin's):
    not a 404. Not permanent: the static file's hashed name changes with it."""
    return redirect(static("img/favicon.svg"))


def _message(exception) -> str:
    """The message an ``Http404`` or ``PermissionDenied`` of ours carries ("There is no match
    with that number."), or nothing: the URL resolver's own 404 carries a dict of patterns."""
    args = getattr(exception, "args", ())
    return args[0] if args and isinstance(args[0], str) else ""


def _page(request, template: str, context: dict, status: int):
    # Rendered here, not lazily: an error response does not pass back through the view layer
    # that renders template responses, and a failure to render must still end in the 500 page.
    return TemplateResponse(request, template, context, status=status).render()


@requires_csrf_token
def page_not_found(request, exception):
    return _page(request, "404.html", {"message": _message(exception)}, 404)


@requires_csrf_token
def permission_denied(request, exception):
    return _page(request, "403.html", {"message": _message(exception)}, 403)


@requires_csrf_token
def bad_request(request, exception):
    # Nothing from the exception: a 400 says what was wrong with the request only to the log.
    return _page(request, "400.html", {}, 400)


def server_error(request):
    """The 500 page, rendered without the request: no context processor runs, so nothing reads
    the session, the user or anything else from the database, which may be what failed."""
    html = loader.get_template("500.html").render({"LANGUAGE_CODE": get_language()})
    return HttpResponseServerError(html)
