// Match clocks: count a running clock down on the page, from the milliseconds the server gave
// (data-clock-ms, as of its time data-server-now). The server stays the judge: its worker ends
// the match when the time is up, and the next update of the table brings that. Without
// JavaScript the page shows the time left as of rendering.
(function () {
  "use strict";

  // How long ago the server drew the element: its time against ours, trusted only within a few
  // seconds (the two machines' clocks may disagree more than the page took to arrive).
  function lag(el) {
    var at = Number(el.dataset.serverNow);
    if (!at) return 0;
    return Math.min(3000, Math.max(0, Date.now() - at));
  }

  function text(ms, kind) {
    var s = Math.max(0, Math.floor(ms / 1000));
    if (kind === "correspondence") {
      // Days and hours are as the server wrote them until the next update; under an hour the
      // minutes count down.
      return null;
    }
    var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), sec = s % 60;
    var pad = function (n) { return (n < 10 ? "0" : "") + n; };
    return h ? h + ":" + pad(m) + ":" + pad(sec) : m + ":" + pad(sec);
  }

  function arm(root) {
    var found = (root || document).querySelectorAll(".clock[data-clock-running]");
    for (var i = 0; i < found.length; i++) {
      var el = found[i];
      if (el.cardclubEnds) continue;
      el.cardclubEnds = performance.now() + Number(el.dataset.clockMs) - lag(el);
    }
  }

  function tick() {
    var now = performance.now();
    var running = document.querySelectorAll(".clock[data-clock-running]");
    for (var i = 0; i < running.length; i++) {
      var el = running[i];
      if (!el.cardclubEnds) continue;
      var left = el.cardclubEnds - now;
      var shown = text(left, el.dataset.clockKind);
      var target = el.querySelector(".clock-text");
      if (shown !== null && target && target.textContent !== shown) target.textContent = shown;
      if (el.dataset.clockKind === "live" && left < 60000) el.classList.add("low");
      if (left <= 0) el.classList.add("out");
      if (el.dataset.clockWarnMs && left <= Number(el.dataset.clockWarnMs)) warn(el, shown);
    }
  }

  // The table's large clocks (games/templatetags/clock_tags.py): the warning colour in the last
  // fifth (or 30 s); for the member's own clock, once per turn, a sentence for screen readers
  // and, if the member turned sounds on, the turn sound. "Once" outlives the table's updates,
  // which redraw the clocks: it is kept per turn here, not on the element.
  var warned = {};
  function warn(el, shown) {
    el.classList.add("warn");
    var turn = el.dataset.clockTurn;
    if (!el.dataset.clockMine || !turn || warned[turn]) return;
    warned[turn] = true;
    var region = document.getElementById("clock-announce");
    if (!region) {
      region = document.createElement("p");
      region.id = "clock-announce";
      region.className = "visually-hidden";
      region.setAttribute("aria-live", "assertive");
      document.body.appendChild(region);
    }
    var text = el.querySelector(".clock-text");
    region.textContent = el.dataset.clockWarning + ": " + (shown || (text ? text.textContent : ""));
    var wrap = document.querySelector("[data-turn-sound]");
    if (wrap && window.Audio) {
      var sound = new Audio(wrap.dataset.turnSound);
      var played = sound.play();
      if (played && played.catch) played.catch(function () {});  // autoplay refused: silence
    }
  }

  document.addEventListener("DOMContentLoaded", function () { arm(document); tick(); });
  // Every update of the table, the seats panel (swapped out of band) or the lobby's list.
  document.addEventListener("htmx:load", function (event) { arm(event.detail.elt); tick(); });
  document.addEventListener("htmx:afterSettle", function () { arm(document); tick(); });
  setInterval(tick, 250);
})();
