"""'Get this season or fixture' in one place: 404 for what does not exist."""

from __future__ import annotations

from django.http import Http404
from django.utils.translation import gettext as _

from .models import Fixture, Season


def season_or_404(season_id: int) -> Season:
    try:
        return Season.objects.select_related("league__variant").get(pk=season_id)
    except Season.DoesNotExist:
        raise Http404(_("There is no such season.")) from None


def fixture_or_404(fixture_id: int) -> Fixture:
    try:
        return Fixture.objects.select_related("round__season").get(pk=fixture_id)
    except Fixture.DoesNotExist:
        raise Http404(_("There is no such fixture.")) from None
