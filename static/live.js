// Following the match live (issue 24). A match page (a seat's, the host's, the
// public one) carries <div id="live" data-pulse-url data-pulse>: this script
// polls that public pulse (GET /api/matches/<id>/pulse, a few hundred bytes,
// 304 while nothing changed) every 2 s while the page is visible, every 15 s
// while it is hidden, backing off on errors (and as long as a 429's
// Retry-After says). When the pulse moves, the page is loaded again at the
// same scroll position, unless a form on it has been typed in: then a banner
// says "The match moved on: reload" and nothing typed is lost. The page's
// title says "Your turn" as soon as the pulse says this seat owes an order.
// Without JavaScript the page works as before: the reader reloads.
(function () {
  "use strict";

  var live = document.getElementById("live");
  if (!live || !window.fetch) return;
  var url = live.getAttribute("data-pulse-url");
  var etag = '"' + live.getAttribute("data-pulse") + '"';
  var seat = parseInt(live.getAttribute("data-seat") || "", 10);
  var VISIBLE = 2000, HIDDEN = 15000, MAX_BACKOFF = 60000;
  var SCROLL_KEY = "referee-live-scroll:" + location.pathname;
  var typed = false, moved = false, failures = 0, timer = null;
  var baseTitle = document.title.replace(/^Your turn · /, "");

  // back where the reader was, after a reload made by this script
  try {
    var saved = JSON.parse(sessionStorage.getItem(SCROLL_KEY) || "null");
    sessionStorage.removeItem(SCROLL_KEY);
    if (saved && Date.now() - saved.at < 30000) window.scrollTo(0, saved.y);
  } catch (e) { /* no storage: the top of the page */ }

  // a form typed in (an order half filled, a deadline being set) is never discarded
  document.addEventListener("input", function (event) {
    if (event.target && event.target.form) typed = true;
  }, true);
  document.addEventListener("change", function (event) {
    if (event.target && event.target.form) typed = true;
  }, true);

  function yourTurn(pulse) {
    return !isNaN(seat) && pulse.waiting.indexOf(seat) >= 0;
  }

  function reload() {
    try {
      sessionStorage.setItem(SCROLL_KEY, JSON.stringify({ y: window.scrollY, at: Date.now() }));
    } catch (e) { /* no storage */ }
    // a GET of the page (never re-sending a form the page answered)
    location.replace(location.pathname + location.search);
  }

  function movedOn(pulse) {
    document.title = (yourTurn(pulse) ? "Your turn · " : "") + baseTitle;
    if (!typed) {
      reload();
      return;
    }
    moved = true;
    var banner = live.querySelector(".moved-on");
    if (banner) {
      banner.hidden = false;
      var link = banner.querySelector("a");
      if (link) link.setAttribute("href", location.pathname + location.search);
    }
  }

  function schedule(delay) {
    clearTimeout(timer);
    timer = setTimeout(poll, delay);
  }

  function interval() {
    return document.hidden ? HIDDEN : VISIBLE;
  }

  function poll() {
    fetch(url, { headers: { "If-None-Match": etag }, cache: "no-store", credentials: "omit" })
      .then(function (resp) {
        if (resp.status === 304) return null;
        if (resp.status === 404) throw { stop: true };
        if (!resp.ok) throw { retryAfter: parseInt(resp.headers.get("Retry-After") || "", 10) };
        etag = resp.headers.get("ETag") || etag;
        return resp.json();
      })
      .then(function (pulse) {
        failures = 0;
        if (pulse) movedOn(pulse);
        if (!pulse || moved) schedule(interval());
      })
      .catch(function (err) {
        if (err && err.stop) return; // the match is gone: nothing to follow
        failures += 1;
        var wait = Math.min(MAX_BACKOFF, interval() * Math.pow(2, failures));
        if (err && err.retryAfter > 0) wait = Math.max(wait, err.retryAfter * 1000);
        schedule(wait);
      });
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) schedule(0); // back on the page: look at once
  });
  schedule(interval());
})();
