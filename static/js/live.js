// The live table and the lobby's live list (issue 19). No inline script anywhere: the pages
// carry data-* attributes and this file listens for htmx's events.
//
// The push stream (htmx SSE extension, on the never-swapped [data-live] wrapper) only says
// "version N is committed". This file then fetches the table with the same poll URL and
// fragment the 2-second poll always used (the table's own hx-get, ?v=<version shown>), so
// there is one markup path. Moves that arrive in a row (bots) are shown one at a time, at
// least STEP_MS apart. While the stream is down the page polls (every POLL_MS, or the table's data-poll-ms).
(function () {
  "use strict";
  var STEP_MS = 700;
  var POLL_MS = 2000;
  var FALLBACK_TICK_MS = 250;
  var STUCK_MS = 10000;

  function initTable(wrap) {
    var streamOpen = false;
    var latest = 0; // the newest version the stream announced
    var inFlight = false;
    var inFlightSince = 0;
    var timer = null;
    var lastSwap = 0;
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
    // What the page shows: its version and its number of moves (steps share a version).
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
    document.addEventListener("htmx:beforeRequest", function (event) {
      var elt = event.detail.elt;
      var t = table();
      if (!t || !elt || elt === t || !t.contains(elt)) return;
      posting = true;
      if (inFlight) htmx.trigger(t, "htmx:abort");
    });

    function fetchTable() {
      var t = liveTable();
      if (!t || posting) return;
      if (inFlight && Date.now() - inFlightSince < STUCK_MS) return;
      inFlight = true;
      inFlightSince = Date.now();
      htmx.trigger(t, "cardclub:update");
    }

    // Fetch when the stream knows of a newer version than the one shown. A version heard while
    // the page was up to date is fetched at once; when versions queue up behind the one just
    // shown (bots moving in a row), each step stays on screen STEP_MS before the next.
    var backlog = false;
    // A table marked data-step is an earlier move on the way to the current version (the
    // server steps through moves that came in a row): fetch the next one after STEP_MS.
    function pump() {
      var t = liveTable();
      if (timer || inFlight || !t) return;
      var step = !!t.dataset.step;
      if (!step && latest <= shownVersion()) return;
      var wait = backlog || step ? Math.max(0, lastSwap + STEP_MS - Date.now()) : 0;
      timer = window.setTimeout(function () {
        timer = null;
        fetchTable();
      }, wait);
    }

    trackStream(wrap, function (open) { streamOpen = open; });
    wrap.addEventListener("htmx:sseBeforeMessage", function (event) {
      // The event's data is a version number, not markup: never let the extension swap it.
      event.preventDefault();
      var version = parseInt(event.detail.data, 10);
      if (version > latest) latest = version;
      backlog = inFlight || timer !== null;
      pump();
    });
    // The fallback: poll while the stream is not open (it reconnects by itself), every
    // data-poll-ms of the table shown (shorter while a bot is to move), else every POLL_MS.
    var lastPoll = Date.now();
    window.setInterval(function () {
      if (streamOpen) return;
      var t = table();
      var every = (t && Number(t.dataset.pollMs)) || POLL_MS;
      if (Date.now() - lastPoll < every) return;
      lastPoll = Date.now();
      fetchTable();
    }, FALLBACK_TICK_MS);

    // After a swap the request's element is the old, detached table, whose events no longer
    // reach the document: the fetch is also over when the new table settles (below).
    document.addEventListener("htmx:afterRequest", function (event) {
      var elt = event.detail.elt;
      if (elt && elt.closest && elt.closest("#table") && elt.id !== "table") posting = false;
      if (!elt || elt.id !== "table") return;
      inFlight = false;
      if (!event.detail.successful) lastSwap = Date.now(); // do not hammer a failing server
      pump();
    });

    document.addEventListener("htmx:beforeSwap", function (event) {
      var target = event.detail.target;
      if (target && target.id === "table") focusKey = describeFocus(target);
    });

    document.addEventListener("htmx:afterSettle", function () {
      var t = table();
      if (!t) return;
      inFlight = false;
      posting = false;
      var key = shownKey();
      if (key === shown && !focusKey) return;
      var changed = key !== shown;
      shown = key;
      backlog = latest > Number(t.dataset.version) || !!t.dataset.step;
      lastSwap = Date.now();
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

  // Whether the push stream is open, for the poll fallback and as data-stream="open|closed"
  // on the wrapper (a style hook, and how the browser tests know the push is live).
  function trackStream(wrap, set) {
    var mark = function (open) {
      set(open);
      wrap.dataset.stream = open ? "open" : "closed";
    };
    wrap.addEventListener("htmx:sseOpen", function () { mark(true); });
    wrap.addEventListener("htmx:sseError", function () { mark(false); });
    wrap.addEventListener("htmx:sseClose", function () { mark(false); });
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

  function initMine(wrap) {
    var streamOpen = false;
    var baseTitle = document.title;
    var list = function () { return document.getElementById("mine"); };
    var update = function () { if (list()) htmx.trigger(list(), "cardclub:update"); };
    trackStream(wrap, function (open) { streamOpen = open; });
    wrap.addEventListener("htmx:sseBeforeMessage", function (event) {
      event.preventDefault();
      update();
    });
    window.setInterval(function () { if (!streamOpen) update(); }, 5 * POLL_MS);
    var showCount = function () {
      var n = list() ? Number(list().dataset.myTurns || 0) : 0;
      document.title = n ? "(" + n + ") " + baseTitle : baseTitle;
    };
    document.addEventListener("htmx:afterSettle", showCount);
    showCount();
  }

  var wrap = document.querySelector('[data-live="table"]');
  if (wrap) initTable(wrap);
  var mine = document.querySelector('[data-live="mine"]');
  if (mine) initMine(mine);
})();
