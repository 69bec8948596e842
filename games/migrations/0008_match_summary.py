from django.db import migrations, models
from django.db.models import Prefetch

# Matches are summarised in batches: each batch is one query for the matches, one for their
# seats (with the members) and one bulk update, on SQLite and PostgreSQL alike.
BATCH = 500


def summarise_existing_matches(apps, schema_editor):
    """Write ``Match.summary`` as the actions now do (games.models.summary_of): the historical
    models have none of the models' methods, so the shape is spelled out here."""
    Match = apps.get_model("games", "Match")
    Seat = apps.get_model("games", "Seat")
    seats = Prefetch("seats", queryset=Seat.objects.select_related("user").order_by("index"))
    last = 0
    while True:
        batch = list(
            Match.objects.filter(pk__gt=last).order_by("pk").only("pk").prefetch_related(seats)[
                :BATCH
            ]
        )
        if not batch:
            return
        for match in batch:
            match.summary = [
                {
                    "user": seat.user_id,
                    "name": seat.user.username if seat.user_id else "",
                    "bot": seat.bot_level,
                    "to_move": seat.to_move,
                    "score": seat.score,
                    "rank": seat.rank,
                }
                for seat in match.seats.all()
            ]
        Match.objects.bulk_update(batch, ["summary"])
        last = batch[-1].pk


def close_seats_of_ended_matches(apps, schema_editor):
    """``Seat.live`` is true by default: clear it for the seats of every match already over."""
    Seat = apps.get_model("games", "Seat")
    Seat.objects.filter(match__status__in=["finished", "abandoned"]).update(live=False)


class Migration(migrations.Migration):
    dependencies = [
        ("games", "0007_clocks"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="summary",
            field=models.JSONField(blank=True, default=list, editable=False),
        ),
        migrations.RunPython(summarise_existing_matches, migrations.RunPython.noop),
        migrations.AddIndex(
            model_name="match",
            index=models.Index(fields=["status", "-finished_at"], name="match_finished_recent"),
        ),
        migrations.AddField(
            model_name="seat",
            name="live",
            field=models.BooleanField(default=True, editable=False),
        ),
        migrations.RunPython(close_seats_of_ended_matches, migrations.RunPython.noop),
        # The member's live seats first: the lobby's list and counts read one index range.
        migrations.RemoveIndex(
            model_name="seat",
            name="games_seat_user_id_5faaf7_idx",
        ),
        migrations.AddIndex(
            model_name="seat",
            index=models.Index(
                condition=models.Q(("live", True)),
                fields=["user", "to_move"],
                name="seat_member_live",
            ),
        ),
    ]
