from __future__ import annotations

from django.contrib.auth.decorators import login_not_required
from django.template.response import TemplateResponse

from games import registry


@login_not_required
def home(request):
    return TemplateResponse(request, "home.html", {"games": registry.games()})
