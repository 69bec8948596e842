// The notifications bell in the header refreshes itself when the page's push stream says
// "bell" (a number only: the bell then fetches its own fragment, its data-refresh URL). Not an
// hx-trigger attribute: a page with nothing live (a finished match) carries no trigger at all.
// Every page that streams (a table, the lobby) already hears the member's own news on its one
// connection; static/js/live.js hands us each EventSource it opens (window.cardclubOnStream;
// again after a break, with a new one, or when this script ran after the stream opened: then
// the bell is fetched once, for what came meanwhile). Pages without a stream show the count as
// of loading.
(function () {
  "use strict";
  if (!window.cardclubOnStream) return; // no live.js on this page: nothing streams
  var refresh = window.cardclubRefresher(function () {
    var bell = document.getElementById("bell");
    // select: a member logged out meanwhile is redirected to the login page, which has no
    // bell; nothing of that page lands in the header.
    if (!bell) return Promise.resolve();
    return htmx.ajax("GET", bell.dataset.refresh, {
      target: bell,
      swap: "outerHTML",
      select: "#bell",
    });
  });
  // live.js hands each stream to a listener once (when it opens, or at once if already open).
  window.cardclubOnStream(function (source, again) {
    source.addEventListener("bell", refresh);
    if (again) refresh();
  });
})();
