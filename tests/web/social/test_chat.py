"""The table chat: seated members write, logged-in spectators read, visitors see nothing; bad
input is refused with a message and saves nothing; the rate limit; hidden messages; the push."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.urls import reverse
from django.utils import timezone, translation

from cardclub.chat.models import Message
from games import push, writes
from games.models import Match
from tests.web.table_helpers import start_match

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def in_english_and_unlimited(settings):
    """Messages compared in English; no rate limit unless a test sets one."""
    settings.CHAT_RATE_LIMITS = ()
    with translation.override("en"):
        yield


@pytest.fixture
def match(alice, bob):
    return start_match("escoba", [alice, bob])


def post(client, match, text, htmx=True):
    return client.post(
        reverse("chat:post", args=[match.pk]),
        {"text": text},
        HTTP_ACCEPT_LANGUAGE="en",
        **({"HTTP_HX_REQUEST": "true"} if htmx else {}),
    )


def chat_html(client, match) -> str:
    response = client.get(
        reverse("chat:messages", args=[match.pk]),
        HTTP_HX_REQUEST="true",
        HTTP_ACCEPT_LANGUAGE="en",
    )
    assert response.status_code == 200
    return response.content.decode()


def page(client, match) -> str:
    return client.get(match.get_absolute_url(), HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_a_seated_member_posts_and_everyone_logged_in_reads_it_escaped(
    client_for, match, alice, bob, charlie
):
    response = post(client_for(alice), match, "hola <3 & 3 < 5, \"buena\" 'suerte'")
    assert response.status_code == 200
    assert 'id="chat"' in response.content.decode()
    saved = Message.objects.get()
    assert (saved.match, saved.author, saved.text) == (
        match,
        alice,
        "hola <3 & 3 < 5, \"buena\" 'suerte'",
    )
    escaped = "hola &lt;3 &amp; 3 &lt; 5, &quot;buena&quot; &#x27;suerte&#x27;"
    for reader in (alice, bob, charlie):
        client = client_for(reader)
        assert escaped in chat_html(client, match)
        html = page(client, match)
        assert escaped in html
        assert 'id="chat-messages"' in html
    # Only seated members get the form; the spectator reads.
    assert 'name="text"' in page(client_for(bob), match)
    assert 'name="text"' not in page(client_for(charlie), match)


def test_a_plain_form_post_goes_back_to_the_table(client_for, match, alice):
    response = post(client_for(alice), match, "¡Suerte!", htmx=False)
    assert response.status_code == 302
    assert response["Location"] == match.get_absolute_url() + "#chat"
    assert Message.objects.get().text == "¡Suerte!"


def test_the_table_fragment_the_poll_returns_carries_no_chat(client_for, match, alice):
    post(client_for(alice), match, "un mensaje")
    response = client_for(alice).get(
        reverse("games:poll", args=[match.pk]) + "?v=0", HTTP_HX_REQUEST="true"
    )
    html = response.content.decode()
    assert 'id="table"' in html
    assert "un mensaje" not in html
    assert 'id="chat' not in html


def test_logged_out_visitors_see_no_chat_and_can_neither_post_nor_fetch(client, match, alice):
    Message.objects.create(match=match, author=alice, text="secreto del club")
    fetch = client.get(reverse("chat:messages", args=[match.pk]), HTTP_HX_REQUEST="true")
    assert fetch.status_code == 302  # to the login page
    assert "secreto del club" not in fetch.content.decode()
    sent = client.post(reverse("chat:post", args=[match.pk]), {"text": "hola"})
    assert sent.status_code == 302
    assert Message.objects.count() == 1
    # And the tag itself, should the match page ever be public, draws nothing for a visitor.
    from django.contrib.auth.models import AnonymousUser
    from django.template import Context, Template
    from django.test import RequestFactory

    request = RequestFactory().get("/")
    request.user = AnonymousUser()
    html = Template("{% load chat_tags %}{% table_chat match %}").render(
        Context({"request": request, "match": match})
    )
    assert "chat" not in html
    assert "secreto" not in html


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "the message is empty"),
        ("   \u00a0  ", "the message is empty"),
        ("x" * 201, "at most 200 characters; this one has 201"),
        ("<b>hola</b>", "HTML tags"),
        ("mira <script>alert(1)</script>", "HTML tags"),
        ("<!-- nada -->", "HTML tags"),
        ("dos\nlíneas", "one line of plain text"),
        ("hola\r\n", "one line of plain text"),
        ("tab\taquí", "one line of plain text"),
        ("bell\x07", "one line of plain text"),
        ("invisible\u200bespacio", "one line of plain text"),
        ("derecha\u202eizquierda", "one line of plain text"),
        ("línea\u2028otra", "one line of plain text"),
    ],
)
def test_bad_input_gets_its_message_and_saves_nothing(client_for, match, alice, text, says):
    response = post(client_for(alice), match, text)
    assert response.status_code == 200
    html = response.content.decode()
    assert says in html
    assert 'class="message error chat-errors"' in html
    assert not Message.objects.exists()
    # Without JavaScript: the same message on the table page.
    response = post(client_for(alice), match, text, htmx=False)
    assert response.status_code == 302
    assert not Message.objects.exists()


def test_the_plain_forms_error_is_shown_on_the_table_page(client_for, match, alice):
    client = client_for(alice)
    response = client.post(
        reverse("chat:post", args=[match.pk]),
        {"text": "<i>hola</i>"},
        HTTP_ACCEPT_LANGUAGE="en",
        follow=True,
    )
    assert "HTML tags such as &lt;b&gt; are not allowed" in response.content.decode()
    assert not Message.objects.exists()


def test_exactly_the_limit_passes_and_the_limit_is_a_setting(client_for, match, alice, settings):
    assert post(client_for(alice), match, "x" * 200).status_code == 200
    assert Message.objects.count() == 1
    settings.CHAT_MAX_LENGTH = 10
    assert "at most 10 characters" in post(client_for(alice), match, "x" * 11).content.decode()
    assert Message.objects.count() == 1


def test_a_member_not_seated_at_the_table_may_not_post(client_for, match, charlie):
    response = post(client_for(charlie), match, "hola")
    assert response.status_code == 403
    assert "Only the members seated at this table" in response.content.decode()
    assert not Message.objects.exists()


def test_posting_to_a_match_that_does_not_exist_is_a_404(client_for, alice):
    assert post(client_for(alice), Match(pk=999999), "hola").status_code == 404
    response = client_for(alice).get(reverse("chat:messages", args=[999999]))
    assert response.status_code == 404
    assert not Message.objects.exists()


def test_posting_faster_than_the_limit_is_refused_with_a_message(
    client_for, match, alice, bob, settings
):
    settings.CHAT_RATE_LIMITS = ((1, 2), (3, 60))
    client = client_for(alice)
    assert "chat-errors" not in post(client, match, "uno").content.decode()
    refused = post(client, match, "dos").content.decode()
    assert "Not so fast: you may write again in 2 seconds." in refused
    assert Message.objects.count() == 1
    # Another member of the table has their own allowance.
    assert "chat-errors" not in post(client_for(bob), match, "hola").content.decode()

    # Once the two seconds have passed the member writes again, up to three in a minute.
    def later():
        Message.objects.filter(author=alice).update(
            created_at=timezone.now() - timedelta(seconds=3)
        )

    later()
    assert "chat-errors" not in post(client, match, "dos").content.decode()
    later()
    assert "chat-errors" not in post(client, match, "tres").content.decode()
    later()
    refused = post(client, match, "cuatro").content.decode()
    assert re.search(r"Not so fast: you may write again in 5[67] seconds\.", refused)
    assert Message.objects.filter(author=alice).count() == 3


def test_chat_stays_open_after_the_end_but_an_abandoned_table_refuses(
    client_for, match, alice, bob
):
    writes.resign(match.pk, alice)
    match.refresh_from_db()
    assert match.status == Match.Status.FINISHED
    assert "chat-errors" not in post(client_for(bob), match, "buena partida").content.decode()
    assert Message.objects.count() == 1
    Match.objects.filter(pk=match.pk).update(status=Match.Status.ABANDONED)
    html = post(client_for(bob), match, "hola?").content.decode()
    assert "This table was abandoned: its chat is closed." in html
    assert Message.objects.count() == 1
    assert 'name="text"' not in page(client_for(bob), match)


def test_a_bot_table_has_the_chat_for_its_one_member(client_for, alice):
    match = start_match("escoba", [alice], fillers=["easy"])
    assert "chat-errors" not in post(client_for(alice), match, "hola bot").content.decode()
    assert Message.objects.get().author == alice


def test_a_hidden_message_shows_to_its_author_as_hidden_and_to_others_as_a_line(
    client_for, match, alice, bob, charlie, make_member
):
    post(client_for(alice), match, "algo feo")
    post(client_for(bob), match, "algo bonito")
    boss = make_member("boss", is_staff=True, is_superuser=True)
    admin = client_for(boss)
    changelist = reverse("admin:chat_message_changelist")
    listing = admin.get(changelist).content.decode()
    assert "algo feo" in listing and "algo bonito" in listing
    ugly = Message.objects.get(text="algo feo")
    admin.post(changelist, {"action": "hide", "_selected_action": [ugly.pk]})
    ugly.refresh_from_db()
    assert ugly.hidden_by == boss and ugly.hidden_at is not None
    mine = chat_html(client_for(alice), match)
    assert "<del>algo feo</del>" in mine
    assert "hidden by an admin" in mine
    for other in (bob, charlie):
        theirs = chat_html(client_for(other), match)
        assert "algo feo" not in theirs
        assert "A message was hidden by an admin." in theirs
        assert "algo bonito" in theirs
        assert "algo feo" not in page(client_for(other), match)
    # The admin may show it again.
    admin.post(changelist, {"action": "show", "_selected_action": [ugly.pk]})
    assert "algo feo" in chat_html(client_for(bob), match)


def test_a_hidden_message_s_words_are_handed_to_nobody_but_its_author(match, alice, bob):
    Message.objects.create(match=match, author=alice, text="algo feo", hidden_at=timezone.now())
    assert [(line.text, line.hidden) for line in Message.shown_to(match.pk, bob.pk, 10)] == [
        ("", True)
    ]
    assert [line.text for line in Message.shown_to(match.pk, alice.pk, 10)] == ["algo feo"]


def test_the_chat_shows_the_latest_messages_oldest_first_at_the_club_s_time(
    client_for, match, alice, bob, settings
):
    settings.CHAT_SHOWN, settings.TIME_ZONE = 3, "Europe/Madrid"
    noon_in_madrid = datetime(2026, 12, 5, 11, 0, tzinfo=UTC)
    for n in range(5):
        # The last two at one instant: the one written last is shown last.
        at = noon_in_madrid + timedelta(minutes=min(n, 3))
        Message.objects.create(match=match, author=(alice, bob)[n % 2], text=f"m{n}", created_at=at)
    html = chat_html(client_for(bob), match)
    assert re.findall(r'chat-text">(m\d)<', html) == ["m2", "m3", "m4"]
    assert re.findall(r'chat-author">(\w+)<', html) == ["alice", "bob", "alice"]
    assert re.findall(r">(\d\d:\d\d)</time>", html) == ["12:02", "12:03", "12:03"]


def test_the_push_is_published_after_the_commit_with_only_the_message_id(
    client_for, match, alice, monkeypatch, django_capture_on_commit_callbacks
):
    sent = []
    monkeypatch.setattr(push, "publish_event", lambda *args: sent.append(args))
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        post(client_for(alice), match, "hola")
    assert sent == []  # nothing before the commit
    for callback in callbacks:
        callback()
    message = Message.objects.get()
    assert sent == [([push.table_key(match.pk)], "chat", message.pk)]


def test_a_refused_message_publishes_nothing(
    client_for, match, alice, monkeypatch, django_capture_on_commit_callbacks
):
    sent = []
    monkeypatch.setattr(push, "publish_event", lambda *args: sent.append(args))
    with django_capture_on_commit_callbacks(execute=True):
        post(client_for(alice), match, "<b>no</b>")
    assert sent == []


def test_the_chat_speaks_spanish_by_default(client_for, match, alice, settings):
    settings.CHAT_RATE_LIMITS = ((1, 2),)
    client = client_for(alice)
    client.post(reverse("chat:post", args=[match.pk]), {"text": "uno"}, HTTP_HX_REQUEST="true")
    refused = client.post(
        reverse("chat:post", args=[match.pk]), {"text": "dos"}, HTTP_HX_REQUEST="true"
    ).content.decode()
    assert "Chat de la mesa" in refused
    assert "No tan rápido: podrás volver a escribir en 2 segundos." in refused


def test_messages_go_with_their_match(match, alice):
    Message.objects.create(match=match, author=alice, text="adiós")
    match.delete()
    assert not Message.objects.exists()


def test_the_chat_fragment_query_count_is_pinned(
    client_for, match, alice, bob, django_assert_max_num_queries
):
    for n in range(20):
        Message.objects.create(match=match, author=alice if n % 2 else bob, text=f"m{n}")
    client = client_for(alice)
    with django_assert_max_num_queries(6):
        chat_html(client, match)


@pytest.mark.django_db(transaction=True)
def test_two_posts_of_one_member_at_the_same_instant_pass_the_rate_limit_once(
    client_for, alice, bob, settings
):
    import threading

    from django.db import connection

    settings.CHAT_RATE_LIMITS = ((1, 2),)
    match = start_match("escoba", [alice, bob])
    barrier = threading.Barrier(2)
    responses = []

    def send(text):
        client = client_for(alice)
        barrier.wait()
        try:
            responses.append(post(client, match, text))
        finally:
            connection.close()

    threads = [threading.Thread(target=send, args=(text,)) for text in ("uno", "dos")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert [r.status_code for r in responses] == [200, 200]
    assert sum("Not so fast" in r.content.decode() for r in responses) == 1
    assert Message.objects.filter(match=match).count() == 1
