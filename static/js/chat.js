// The table chat (issue 21). The list (#chat-messages) is fetched again from its data-chat-url
// when the table's push stream (the htmx SSE extension on the [data-live] wrapper) says "chat",
// and on a slow poll while no stream is open (a WSGI server, a finished match, a connection
// being re-made). The event carries only a message's number: the list is drawn by the server
// for this reader. No inline script, no hx-trigger in the page.
(function () {
  "use strict";
  var list = function () { return document.getElementById("chat-messages"); };
  if (!list()) return;
  var wrap = document.querySelector('[data-live="table"]');
  var every = Number(list().dataset.chatPollMs) || 10000;
  var fetching = false;

  function toNewest() {
    var l = list();
    if (l) l.scrollTop = l.scrollHeight;
  }

  function refresh() {
    var l = list();
    if (!l || fetching) return;
    fetching = true;
    htmx
      .ajax("GET", l.dataset.chatUrl, { target: "#chat-messages", swap: "innerHTML" })
      .finally(function () { fetching = false; });
  }

  // The stream's "chat" events: listen on each EventSource the extension opens (it makes a new
  // one after an error); the same function added twice to one source counts once.
  if (wrap) {
    wrap.addEventListener("htmx:sseOpen", function (event) {
      var source = event.detail && event.detail.source;
      if (source) source.addEventListener("chat", refresh);
    });
  }

  window.setInterval(function () {
    if (wrap && wrap.dataset.stream === "open") return; // the stream brings each message
    if (document.hidden) return;
    refresh();
  }, every);

  document.addEventListener("htmx:afterSettle", function (event) {
    var target = event.detail.target;
    if (target && (target.id === "chat" || target.id === "chat-messages")) toNewest();
  });
  toNewest();
})();
