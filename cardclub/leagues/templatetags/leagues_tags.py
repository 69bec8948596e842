from __future__ import annotations

from django import template
from django.utils import timezone

from cardclub.leagues.views import my_next_fixtures

register = template.Library()


@register.inclusion_tag("leagues/includes/my_fixtures.html", takes_context=True)
def my_fixtures(context):
    """The lobby's list of the member's next league fixtures and their deadlines."""
    request = context["request"]
    fixtures = my_next_fixtures(request.user) if request.user.is_authenticated else []
    now = timezone.now()
    for fixture in fixtures:
        fixture.overdue = fixture.is_overdue(now)
        fixture.season = fixture.round.season
        fixture.can_start = (
            fixture.status == fixture.Status.SCHEDULED
            and fixture.round.number <= fixture.season.current_round
        )
    return {"fixtures": fixtures, "csrf_token": context.get("csrf_token"), "request": request}
