// The table chat (issue 21). The list (#chat-messages) is fetched again from its data-chat-url
// when the table's push stream (the htmx SSE extension on the [data-live] wrapper) says "chat",
// and on a slow poll while no stream is open (a WSGI server, a finished match, a connection
// being re-made) but the club answers. The event carries only a message's number: the list is drawn by the server
// for this reader. No inline script, no hx-trigger in the page.
(function () {
  "use strict";
  var list = function () { return document.getElementById("chat-messages"); };
  if (!list()) return;
  var wrap = document.querySelector('[data-live="table"]');
  var every = Number(list().dataset.chatPollMs) || 10000;
  var fetching = false;
  // Asked again while a fetch was on its way: that fetch may have left the server before the
  // new message was written, so one more follows it (else, with no poll while the stream is
  // open, the message would wait for the next one to show).
  var askedAgain = false;

  function toNewest() {
    var l = list();
    if (l) l.scrollTop = l.scrollHeight;
  }

  function refresh() {
    var l = list();
    if (!l) return;
    if (fetching) {
      askedAgain = true;
      return;
    }
    fetching = true;
    askedAgain = false;
    htmx
      .ajax("GET", l.dataset.chatUrl, { target: "#chat-messages", swap: "innerHTML" })
      .finally(function () {
        fetching = false;
        if (askedAgain) refresh();
      });
  }

  // The stream's "chat" events: listen on each EventSource live.js opens (a new one after every
  // break). A stream opened again after a break first fetches what was written meanwhile.
  if (wrap) {
    document.addEventListener("cardclub:streamopen", function (event) {
      var source = event.detail && event.detail.source;
      if (!source) return;
      source.addEventListener("chat", refresh);
      if (event.detail.again) refresh();
    });
  }

  window.setInterval(function () {
    if (wrap && wrap.dataset.stream === "open") return; // the stream brings each message
    // While the club does not answer (or the browser is offline), the table's own requests
    // find out when it does, backing off; the chat does not add its own every few seconds.
    if (wrap && wrap.dataset.connection && wrap.dataset.connection !== "live") return;
    if (document.hidden) return;
    refresh();
  }, every);

  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    if (target && (target.id === "chat" || target.id === "chat-messages")) toNewest();
  });
  toNewest();
})();
