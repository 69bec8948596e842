// The live table, the lobby's live list (issues 19 and 28) and a cup's bracket (issue 32). No
// inline script anywhere: the pages carry data-* attributes and this file listens for htmx's
// events.
//
// The push stream (an EventSource opened here from the never-swapped [data-live] wrapper's
// data-stream-url) only says "version N is committed". This file then fetches the table with
// the same poll URL and fragment the poll always used (the table's own hx-get, ?v=<version
// shown>), so there is one markup path. Bot moves are paced in one place, the worker (each is
// its own version, BOT_MOVE_PAUSE apart): the page shows each version it hears as it comes.
//
// A page always knows whether it is live (issue 28). The stream counts as dead when it errs or
// stays silent for longer than twice the server's keep-alive (data-keepalive, seconds); then the page
// fetches at once and polls (every POLL_MS, or the table's data-poll-ms) until a stream is open
// again. A failed request is retried later and later (Backoff), never at once, and a 503 or 429
// is retried no sooner than its Retry-After. The page fetches at once when the stream comes
// back, when the browser says it is online again and when a hidden tab is shown. While the last
// request failed, or the browser is offline, the page says so (the wrapper's .connection-state,
// a polite live region; data-connection="live|reconnecting|offline" on the wrapper).
(function () {
  "use strict";
  var POLL_MS = 2000;
  var TICK_MS = 250;
  // A fetch of the table or the list that has no answer after this long has failed; a move,
  // after MOVE_TIMEOUT_MS (without a limit, a hung server would keep the page waiting for ever).
  var FETCH_TIMEOUT_MS = 10000;
  var MOVE_TIMEOUT_MS = 20000;
  // Without a data-keepalive (the server's PUSH_KEEPALIVE_SECONDS): its default.
  var KEEPALIVE_SECONDS = 20;
  // The first retry after FIRST_RETRY_MS, each next one RETRY_GROWTH times later, up to
  // MAX_RETRY_MS: a page of a server that is down sends about eight requests in its first ten
  // seconds, about fourteen in its first minute, then fewer, down to two a minute. The growth
  // is gentle so that the gap between two tries, about a quarter of the time the server has
  // been away, stays short through a restart: after ten seconds away the next try is at most
  // four seconds off. Each delay is shortened by up to JITTER at random (never lengthened, so
  // the gap stays bounded), so that the pages of a restarted server do not all come back in
  // the same instant.
  var FIRST_RETRY_MS = 1000;
  var RETRY_GROWTH = 1.25;
  var MAX_RETRY_MS = 30000;
  var JITTER = 0.3;
  // A stream that stayed open this long was healthy: its failure starts the back-off anew. (A
  // server that accepts streams and closes them at once must not be asked again every second.)
  var STABLE_MS = 10000;
  // A stream renewed by its server (it is stopping: a deploy, a restart) is opened again after
  // a random moment within this, so that the pages of that server reach the new one spread
  // out rather than all at once; nothing is fetched meanwhile (see renew below).
  var RENEW_SPREAD_MS = 3000;
  // Never wait longer than this for a Retry-After, whatever the header says.
  var MAX_RETRY_AFTER_MS = 10 * 60 * 1000;

  function Backoff() {
    this.failures = 0;
  }
  // The wait before the next try after one more failure (at least ``floorMs``).
  Backoff.prototype.next = function (floorMs) {
    var base = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * Math.pow(RETRY_GROWTH, this.failures));
    this.failures += 1;
    return Math.max(base * (1 - JITTER * Math.random()), floorMs || 0);
  };
  Backoff.prototype.reset = function () {
    this.failures = 0;
  };

  // How long a 503 or 429 asks us to wait (Retry-After in seconds or as a date), else 0.
  function retryAfterMs(xhr) {
    if (!xhr || (xhr.status !== 503 && xhr.status !== 429)) return 0;
    var value = xhr.getResponseHeader("Retry-After");
    if (!value) return 0;
    var seconds = Number(value);
    var ms = isNaN(seconds) ? Date.parse(value) - Date.now() : seconds * 1000;
    return isNaN(ms) ? 0 : Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
  }

  // The page's streams open now, and who listens on them besides this file (chat.js, bell.js:
  // window.cardclubOnStream). A listener hears of every stream that opens after it asked, and
  // at once of those open already: its script may run after the stream opened (the deferred
  // scripts run in order, but a loaded server may answer bell.js after the stream's "open"),
  // and an event sent before it listened is lost, so it is told that it may have missed some.
  var openStreams = [];
  var streamListeners = [];
  window.cardclubOnStream = function (listener) {
    streamListeners.push(listener);
    openStreams.forEach(function (source) {
      listener(source, true);
    });
  };
  function streamOpened(source, again) {
    openStreams.push(source);
    streamListeners.forEach(function (listener) {
      listener(source, again);
    });
  }
  function streamClosed(source) {
    openStreams = openStreams.filter(function (open) {
      return open !== source;
    });
  }

  // A refresh (``fetch``: a function giving a promise) for news the stream announces, asked
  // for again while one is on its way: that one may have left the server before the news was
  // written, so one more follows it once it ends (never two at once: htmx would queue the
  // second on the element the first replaces, and it would land nowhere).
  window.cardclubRefresher = function (fetch) {
    var fetching = false;
    var askedAgain = false;
    function refresh() {
      if (fetching) {
        askedAgain = true;
        return;
      }
      fetching = true;
      askedAgain = false;
      fetch().finally(function () {
        fetching = false;
        if (askedAgain) refresh();
      });
    }
    return refresh;
  };

  // The page's link to the server: its push stream while that is healthy, else its poll.
  // ``o.events``: the stream's event names, each handed to ``o.onEvent(name, data)``;
  // ``o.fetch()``: fetch now (the page then calls ``link.done(ok, xhr)``); ``o.pollMs()``: how
  // often to poll without a stream.
  function Link(wrap, o) {
    var url = wrap.dataset.streamUrl || "";
    var silentMs = 2 * 1000 * (Number(wrap.dataset.keepalive) || KEEPALIVE_SECONDS);
    var state = wrap.querySelector(".connection-state");
    var source = null;
    var openedAt = 0;
    var connectedAt = 0; // when the stream was asked for
    var lastHeard = 0;
    var streamBackoff = new Backoff();
    var reconnectAt = 0;
    var fetchBackoff = new Backoff();
    var link = { retryAt: 0, failed: false, streaming: false, everOpen: false };
    var lastPoll = Date.now();
    // Whether the last stream ended by a failure (an error, the browser offline), not by being
    // renewed after a silence: the chat and the bell then fetch what they may have missed.
    var missed = false;
    var keepaliveEvents = false;

    link.online = function () {
      return navigator.onLine !== false;
    };
    // Whether a fetch may go now: online, and not before the back-off's time.
    link.mayFetch = function () {
      return link.online() && Date.now() >= link.retryAt;
    };

    function show() {
      var kind = !link.online() ? "offline" : link.failed ? "reconnecting" : "live";
      if (wrap.dataset.connection === kind) return;
      wrap.dataset.connection = kind;
      // Only the text changes: the region stays in the page, so screen readers announce it.
      if (state) state.textContent = kind === "live" ? "" : state.dataset[kind] || "";
    }

    function mark(open) {
      link.streaming = open;
      wrap.dataset.stream = open ? "open" : "closed";
    }

    function heard() {
      lastHeard = Date.now();
    }

    // A fetch now, which also counts as the poll's.
    function fetchNow() {
      lastPoll = Date.now();
      o.fetch();
    }

    function connect() {
      if (!url || source || !link.online()) return;
      var es = new EventSource(url);
      source = es;
      connectedAt = Date.now();
      es.onopen = function () {
        if (source !== es) return;
        openedAt = Date.now();
        heard();
        var again = link.everOpen;
        link.everOpen = true;
        link.failed = false;
        fetchBackoff.reset();
        link.retryAt = 0;
        mark(true);
        show();
        // The chat and the bell listen on the same stream (chat.js, bell.js).
        // (missed: the page had a stream before, and may have missed their news meanwhile.)
        streamOpened(es, missed);
        // Back after a break: whatever happened meanwhile is fetched now.
        if (again) fetchNow();
        missed = false;
      };
      es.onerror = function () {
        if (source === es) drop(true);
      };
      o.events.forEach(function (name) {
        es.addEventListener(name, function (event) {
          if (source !== es) return;
          heard();
          o.onEvent(name, event.data);
        });
      });
      // A keep-alive the server may send as an event (a comment is invisible to EventSource).
      es.addEventListener("keepalive", function () {
        if (source !== es) return;
        heard();
        keepaliveEvents = true;
      });
      es.addEventListener("renew", function () {
        if (source === es) renew();
      });
    }

    // The stream closed for good by the page (EventSource would otherwise retry on its own).
    function closeStream() {
      var es = source;
      source = null;
      if (es) {
        es.close();
        streamClosed(es);
      }
      openedAt = 0;
      mark(false);
    }

    // The server is stopping and said so: the page missed nothing (the next stream starts with
    // the current version, and the page fetches once it opens, as after any break), so it
    // fetches nothing now, says nothing (it is not a failure), and opens the next stream at a
    // random moment within RENEW_SPREAD_MS, polling only if that one cannot open.
    function renew() {
      closeStream();
      reconnectAt = Date.now() + Math.random() * RENEW_SPREAD_MS;
      lastPoll = reconnectAt;
    }

    // The stream is gone (an error, a silence, the browser offline): close it for good (never
    // let EventSource retry on its own, every few seconds, for ever), fetch what may have been
    // missed (after a failure: a stream merely renewed brings the current version first), and
    // open another after the back-off.
    function drop(failure) {
      if (failure && link.everOpen) missed = true;
      var wasOpen = link.streaming;
      if (openedAt && Date.now() - openedAt >= STABLE_MS) streamBackoff.reset();
      closeStream();
      if (!failure) {
        // Renewed: at once, and no poll meanwhile.
        reconnectAt = 0;
        lastPoll = Date.now();
        return;
      }
      reconnectAt = Date.now() + streamBackoff.next();
      if (wasOpen) fetchNow();
    }

    // The answer to one of the page's fetches: ``ok`` false for a failed request (no answer, an
    // error status, a time-out).
    link.done = function (ok, xhr) {
      if (ok) {
        fetchBackoff.reset();
        link.retryAt = 0;
        link.failed = false;
      } else {
        link.failed = true;
        link.retryAt = Date.now() + fetchBackoff.next(retryAfterMs(xhr));
      }
      show();
    };

    // Now, whatever the poll's rhythm: back online, a tab shown again. A stream is tried again
    // too, as soon as this fetch says the server answers.
    function catchUp() {
      fetchBackoff.reset();
      link.retryAt = 0;
      fetchNow();
      if (!source) {
        streamBackoff.reset();
        reconnectAt = 0;
      }
    }

    window.setInterval(function () {
      var now = Date.now();
      // Silent for too long: dead, when its server sends keep-alives we can hear; else (a
      // comment is all it sends) simply renewed, in case it is dead without a word.
      if (source && link.streaming && now - lastHeard > silentMs) drop(keepaliveEvents);
      // Asked for and never opened (a hung server, a proxy holding the answer back): failed.
      if (source && !link.streaming && now - connectedAt > silentMs) drop(true);
      // Only while the server answers: a stream tried against a server that is down would be
      // one more request on every back-off step.
      if (!source && url && now >= reconnectAt && !link.failed) connect();
      if (link.streaming || now - lastPoll < o.pollMs() || !link.mayFetch()) return;
      fetchNow();
    }, TICK_MS);

    window.addEventListener("offline", function () {
      if (source) drop(true);
      show();
    });
    window.addEventListener("online", function () {
      show();
      // The stream may have stayed "open" through the break without a word: start anew.
      if (source) {
        source.close();
        streamClosed(source);
        source = null;
        mark(false);
        missed = link.everOpen;
      }
      catchUp();
    });
    document.addEventListener("visibilitychange", function () {
      if (!document.hidden) catchUp();
    });

    show();
    connect();
    return link;
  }

  function initTable(wrap) {
    var latest = 0; // the newest version the stream announced
    var inFlight = false;
    var timer = null;
    var focusKey = null;
    var baseTitle = document.title;
    var icon = document.querySelector('link[rel="icon"]');
    var baseIcon = icon ? icon.getAttribute("href") : null;
    var table = function () { return document.getElementById("table"); };
    var shownVersion = function () {
      var t = table();
      return t ? Number(t.dataset.version) : 0;
    };
    var liveTable = function () {
      var t = table();
      return t && t.hasAttribute("hx-get") ? t : null;
    };
    // What the page shows: its version and its number of moves.
    var shownKey = function () {
      var t = table();
      return t ? t.dataset.version + "/" + t.dataset.moves : "";
    };
    var shown = shownKey();
    var wasMyTurn = !!(table() && table().dataset.myTurn);

    // A member's own move (a form inside the table posting to it) and a fetch of the table must
    // not cross: the later answer would be swapped into the table the first one already
    // replaced, detached from the page. So a post cancels a fetch in flight, and no fetch
    // starts while a post is pending.
    var posting = false;
    var picks = null; // the member's choices in the form of the move being sent
    document.addEventListener("htmx:beforeRequest", function (event) {
      var elt = event.detail.elt;
      var t = table();
      if (!t || !elt || elt === t || !t.contains(elt)) return;
      posting = true;
      picks = elt.tagName === "FORM" ? checkedIn(elt) : null;
      if (inFlight) htmx.trigger(t, "htmx:abort");
    });

    var link = Link(wrap, {
      events: ["version"],
      onEvent: function (name, data) {
        var version = parseInt(data, 10);
        if (version > latest) latest = version;
        pump();
      },
      fetch: function () { fetchTable(); },
      pollMs: function () {
        var t = table();
        return (t && Number(t.dataset.pollMs)) || POLL_MS;
      },
    });

    function fetchTable() {
      var t = liveTable();
      if (!t || posting) return;
      if (inFlight) return;
      if (!link.mayFetch()) return pump();
      inFlight = true;
      htmx.trigger(t, "cardclub:update");
    }

    // Fetch when the stream knows of a newer version than the one shown, at once, or after the
    // back-off when the last fetch failed.
    function pump() {
      var t = liveTable();
      if (timer || inFlight || !t || !link.online()) return;
      if (latest <= shownVersion()) return;
      var wait = Math.max(0, link.retryAt - Date.now());
      timer = window.setTimeout(function () {
        timer = null;
        fetchTable();
      }, wait);
    }

    // After a swap the request's element is the old, detached table, whose events no longer
    // reach the document: the fetch is also over when the new table settles (below).
    document.addEventListener("htmx:afterRequest", function (event) {
      var elt = event.detail.elt;
      if (elt && elt.closest && elt.closest("#table") && elt.id !== "table") {
        posting = false;
        if (!event.detail.successful) moveFailed(elt, event.detail.xhr);
        return;
      }
      if (!elt || elt.id !== "table") return;
      inFlight = false;
      // An abort is ours (a move was sent): not the server's failure.
      if (event.detail.xhr && event.detail.xhr.status === 0 && posting) return;
      link.done(event.detail.successful, event.detail.xhr);
      pump();
    });

    // A move that never reached the server, or that it could not take (no connection, an
    // error, busy): say so where the page's messages are, keep the member's choices (nothing
    // was swapped: the form is as they left it) and bring the table up to date. Nothing is
    // sent again by itself: the member presses again, and the version in the form makes sure
    // a move that did get through is not played twice.
    function moveFailed(elt, xhr) {
      var form = elt.closest("form");
      if (!form || (form.getAttribute("hx-post") || "") === "") return;
      var status = xhr ? xhr.status : 0;
      var busy = status === 503 || status === 429;
      say(wrap.dataset[status === 0 ? "moveUnsent" : busy ? "moveBusy" : "moveFailed"]);
      link.done(false, xhr);
      fetchTable();
    }

    // The server refused the move (stale, not your turn): its message comes in the fragment's
    // #messages; the table it sent is the current one. Put the member's choices back where the
    // same ones are still offered.
    document.addEventListener("cardclub:moveRefused", function () {
      refused = picks;
    });
    var refused = null;

    document.addEventListener("htmx:beforeSwap", function (event) {
      var target = event.detail.target;
      if (target && target.id === "table") focusKey = describeFocus(target);
    });

    document.addEventListener("htmx:afterSettle", function (event) {
      var t = table();
      if (!t) return;
      var target = event.detail.target;
      if (target && target.id === "table") {
        if (inFlight) link.done(true);
        inFlight = false;
        posting = false;
        if (refused) restoreChecked(t, refused);
        refused = null;
      }
      var key = shownKey();
      if (key === shown && !focusKey) return;
      var changed = key !== shown;
      shown = key;
      var myTurn = !!t.dataset.myTurn;
      var turnStarts = myTurn && !wasMyTurn;
      wasMyTurn = myTurn;
      if (changed) {
        highlight(t);
        announce(t, turnStarts);
      }
      restoreFocus(t, focusKey, turnStarts);
      focusKey = null;
      signalTurn(myTurn, turnStarts);
      pump();
    });

    function announce(t, turnStarts) {
      var region = document.getElementById("announce");
      if (!region) return;
      var strip = t.querySelector(".just-happened .just-sentence");
      var text = strip ? strip.textContent : "";
      if (turnStarts) text = (text ? text + " " : "") + wrap.dataset.turnTitle + ".";
      region.textContent = text;
    }

    function signalTurn(myTurn, turnStarts) {
      document.title = myTurn ? "● " + wrap.dataset.turnTitle + " · " + baseTitle : baseTitle;
      if (icon && baseIcon) icon.setAttribute("href", myTurn ? wrap.dataset.turnIcon : baseIcon);
      if (turnStarts && wrap.dataset.turnSound) {
        var sound = new Audio(wrap.dataset.turnSound);
        sound.volume = 0.6;
        // Browsers refuse sound before the member touched the page; that is fine.
        sound.play().catch(function () {});
      }
    }

    // Light up the cards of the last move where they now lie on the board.
    highlight(table());
    signalTurn(wasMyTurn, false);
  }

  document.addEventListener("htmx:configRequest", function (event) {
    var elt = event.detail.elt;
    if (!elt || !elt.closest) return;
    if (elt.id === "table" || elt.id === "mine" || elt.id === "bracket") {
      event.detail.timeout = FETCH_TIMEOUT_MS;
    }
    else if (elt.closest("#table")) event.detail.timeout = MOVE_TIMEOUT_MS;
  });

  // An error in the page's message area (#messages, base.html), as the server writes them.
  function say(text) {
    var area = document.getElementById("messages");
    if (!area || !text) return;
    var p = document.createElement("p");
    p.className = "message error";
    p.setAttribute("role", "alert");
    p.textContent = text;
    area.replaceChildren(p);
  }

  // The checked radio buttons and checkboxes of a form (a picked card, the table cards to
  // take), said so that they can be found again in a table drawn anew.
  function checkedIn(form) {
    var found = [];
    form.querySelectorAll('input[type="radio"]:checked, input[type="checkbox"]:checked').forEach(
      function (input) {
        found.push({ id: input.id, name: input.name, value: input.value });
      }
    );
    return found;
  }

  // A choice with a value (a card) is found by its name and value; one without (a radio that
  // only says which set is being chosen) by its id.
  function restoreChecked(root, checked) {
    checked.forEach(function (c) {
      var input = null;
      if (c.name && c.value && c.value !== "on") {
        input = root.querySelector(
          'input[name="' + CSS.escape(c.name) + '"][value="' + CSS.escape(c.value) + '"]'
        );
      } else if (c.id) {
        input = root.querySelector("#" + CSS.escape(c.id));
      }
      if (input && !input.disabled) input.checked = true;
    });
  }

  // Scout cards are written "up/down" and turn over when scouted: compare them unordered.
  function cardKey(text) {
    if (text.indexOf("/") < 0) return text;
    return text.split("/").map(Number).sort(function (a, b) { return a - b; }).join("-");
  }

  function highlight(t) {
    if (!t || !t.dataset.just) return;
    var ids = {};
    t.dataset.just.split(" ").forEach(function (id) { if (id) ids[cardKey(id)] = true; });
    t.querySelectorAll("[data-card]").forEach(function (el) {
      if (el.closest(".just-happened, .last-moves")) return;
      if (ids[cardKey(el.dataset.card)]) el.classList.add("is-just");
    });
  }

  // Where the focus was inside the table, said in a way that survives the swap.
  function describeFocus(oldTable) {
    var active = document.activeElement;
    // Nothing focused: leave it so, unless it becomes your turn (then: your hand).
    if (!active || active === document.body) return { nowhere: true };
    if (!oldTable.contains(active)) return null; // focus is elsewhere: leave it alone
    if (active.id) return { inTable: true, id: active.id };
    // A move is a submit button of the table's form, named by its code.
    if (active.name === "code" && active.value) return { inTable: true, code: active.value };
    var label = active.closest("label[for]");
    if (label) return { inTable: true, labelFor: label.getAttribute("for") };
    if (active.getAttribute("href")) return { inTable: true, href: active.getAttribute("href") };
    return { inTable: true };
  }

  function focusables(root) {
    return root.querySelectorAll(
      'button:not([disabled]), input:not([type="hidden"]):not([disabled]), a[href], select, [tabindex="0"]'
    );
  }

  function restoreFocus(t, key, turnStarts) {
    if (!key) return;
    var target = null;
    if (turnStarts) {
      // It became your turn: go to your hand (the section labelled "Your hand").
      // Its cards are either controls themselves or labels of radio buttons (checked first).
      var hand = t.querySelector('[aria-labelledby$="hand-h"]');
      target =
        (hand && focusables(hand)[0]) ||
        t.querySelector('input[type="radio"]:checked:not([disabled])') ||
        t.querySelector('input[type="radio"]:not([disabled])') ||
        null;
      if (!target && hand) {
        hand.setAttribute("tabindex", "-1");
        target = hand;
      }
    }
    if (!target && key.nowhere) return;
    if (!target && key.id) target = document.getElementById(key.id);
    if (!target && key.code) {
      target = t.querySelector('button[name="code"][value="' + CSS.escape(key.code) + '"]');
    }
    if (!target && key.labelFor) target = t.querySelector('label[for="' + CSS.escape(key.labelFor) + '"]');
    if (!target && key.href) target = t.querySelector('a[href="' + CSS.escape(key.href) + '"]');
    // Never back to the top of the page: at worst the table itself holds the focus.
    target = target || t;
    if (document.activeElement !== target) target.focus({ preventScroll: true });
  }

  // A fragment of the page kept live by its stream's stamp (the lobby's list, a cup's bracket):
  // the element ``id`` carries the stamp it shows in data-version and fetches itself (hx-get,
  // triggered by "cardclub:update"); a stamp the stream names that it does not show (not the
  // stream's first event, say, when nothing changed) is fetched, and so is every poll while no
  // stream is open. An element without hx-get (a bracket after its final) asks for nothing.
  function liveFragment(wrap, id, events, pollMs) {
    var inFlight = false;
    // Asked for while a fetch was on its way (a stamp the stream announced, a catch-up): that
    // fetch may answer with what was before, or fail, and while the stream is open nothing
    // else would fetch again. So once it is over, fetch again (after the back-off if it failed).
    var again = false;
    var waiting = false; // a retry() is waiting out the back-off
    var element = function () { return document.getElementById(id); };
    var link = Link(wrap, {
      events: events,
      onEvent: function (name, data) {
        var el = element();
        if (!el || !el.dataset.version || el.dataset.version !== data) update();
      },
      fetch: function () { update(); },
      pollMs: pollMs,
    });
    function update() {
      var el = element();
      if (!el || !el.hasAttribute("hx-get")) return;
      if (inFlight) {
        again = true;
        return;
      }
      if (!link.mayFetch()) {
        // Backing off after a failed fetch: fetch once it is over, rather than drop what was
        // asked for (a stamp the open stream announced, which it will not announce again).
        if (link.online() && !waiting) {
          waiting = true;
          retry();
        }
        return;
      }
      inFlight = true;
      htmx.trigger(el, "cardclub:update");
    }
    function over(ok, xhr) {
      inFlight = false;
      link.done(ok, xhr);
      if (!again) return;
      again = false;
      retry();
    }
    // A timer may fire a little before the time it was set for: wait out the back-off whole.
    function retry() {
      var wait = link.retryAt - Date.now();
      if (wait > 0) return void window.setTimeout(retry, wait);
      waiting = false;
      update();
    }
    // Unchanged or failed, the element stays and its request's events reach the document;
    // swapped, the new one settles.
    document.addEventListener("htmx:afterRequest", function (event) {
      if (!event.detail.elt || event.detail.elt.id !== id) return;
      over(event.detail.successful, event.detail.xhr);
    });
    document.addEventListener("htmx:afterSettle", function (event) {
      if (event.detail.target && event.detail.target.id === id && inFlight) over(true);
    });
    return element;
  }

  function initMine(wrap) {
    var baseTitle = document.title;
    var list = liveFragment(wrap, "mine", ["mine"], function () { return 5 * POLL_MS; });
    var showCount = function () {
      var n = list() ? Number(list().dataset.myTurns || 0) : 0;
      document.title = n ? "(" + n + ") " + baseTitle : baseTitle;
    };
    document.addEventListener("htmx:afterSettle", showCount);
    showCount();
  }

  // A running cup's bracket on its season page (cardclub/leagues/live.py), polled every
  // data-poll-ms without a stream.
  function initBracket(wrap) {
    liveFragment(wrap, "bracket", ["bracket"], function () {
      return Number(wrap.dataset.pollMs) || 5 * POLL_MS;
    });
  }

  var wrap = document.querySelector('[data-live="table"]');
  if (wrap) initTable(wrap);
  var mine = document.querySelector('[data-live="mine"]');
  if (mine) initMine(mine);
  var cup = document.querySelector('[data-live="bracket"]');
  if (cup) initBracket(cup);
})();
