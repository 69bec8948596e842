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

  function toNewest() {
    var l = list();
    if (l) l.scrollTop = l.scrollHeight;
  }

  // A message written while the list is being fetched is fetched again after it (with no poll
  // while the stream is open, it would otherwise wait for the next one to show).
  var refresh = window.cardclubRefresher(function () {
    var l = list();
    if (!l) return Promise.resolve();
    return htmx.ajax("GET", l.dataset.chatUrl, { target: "#chat-messages", swap: "innerHTML" });
  });

  // The stream's "chat" events: listen on each EventSource live.js opens (a new one after every
  // break). A stream opened again after a break, or before this script ran, first fetches what
  // may have been written meanwhile.
  if (wrap && window.cardclubOnStream) {
    window.cardclubOnStream(function (source, again) {
      source.addEventListener("chat", refresh);
      if (again) refresh();
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
