// Times in the reader's own time zone. The server writes every time in UTC
// (<time datetime="2026-12-01T18:00:00Z">2026-12-01 18:00 UTC</time>); this
// script shows it in the browser's local time and keeps the UTC text as the
// element's title (shown on hover). It also keeps the relative forms current:
// [data-relative] ("(in 1 day 23 h)", "(2 h 5 min ago)", as referee.web.pages.relative
// writes them) and [data-until] ("1 day 3 hours left", as time_left writes it).
// [data-clock-until] is a player's clock (issue 24), counted down every second.
// Without JavaScript the page keeps the server's UTC and relative text.
(function () {
  "use strict";

  function plural(n, unit) {
    return n + " " + unit + (n === 1 ? "" : "s");
  }

  // "in 1 day 23 h" / "2 h 5 min ago" / "less than a minute ago"
  function relative(ms) {
    var minutes = Math.floor(Math.abs(ms) / 60000);
    var days = Math.floor(minutes / 1440);
    var hours = Math.floor((minutes % 1440) / 60);
    var mins = minutes % 60;
    var text;
    if (days) {
      text = plural(days, "day") + (hours ? " " + hours + " h" : "");
    } else if (hours) {
      text = hours + " h" + (mins ? " " + mins + " min" : "");
    } else if (mins) {
      text = mins + " min";
    } else {
      text = "less than a minute";
    }
    return ms >= 1000 ? "in " + text : text + " ago";
  }

  // "1 day 3 hours left" / "the deadline has passed"
  function left(ms) {
    var seconds = Math.floor(ms / 1000);
    if (seconds <= 0) return "the deadline has passed";
    var days = Math.floor(seconds / 86400);
    var hours = Math.floor((seconds % 86400) / 3600);
    var minutes = Math.floor((seconds % 3600) / 60);
    var text;
    if (days) {
      text = plural(days, "day") + (hours ? " " + plural(hours, "hour") : "");
    } else if (hours) {
      text = plural(hours, "hour") + (minutes ? " " + plural(minutes, "minute") : "");
    } else if (minutes) {
      text = plural(minutes, "minute");
    } else {
      text = "less than a minute";
    }
    return text + " left";
  }

  function parsed(value) {
    var date = new Date(value || "");
    return isNaN(date.getTime()) ? null : date;
  }

  function local(date) {
    var options = {
      year: "numeric", month: "short", day: "numeric",
      hour: "2-digit", minute: "2-digit", timeZoneName: "short"
    };
    if (date.getUTCSeconds()) options.second = "2-digit";
    try {
      return new Intl.DateTimeFormat(undefined, options).format(date);
    } catch (e) {
      return date.toString();
    }
  }

  function each(selector, fn) {
    Array.prototype.forEach.call(document.querySelectorAll(selector), fn);
  }

  function showLocal() {
    each("time[datetime]", function (el) {
      var date = parsed(el.getAttribute("datetime"));
      if (!date || el.hasAttribute("data-local")) return;
      el.title = el.textContent.trim(); // the UTC text, on hover
      el.textContent = local(date);
      el.setAttribute("data-local", "");
    });
  }

  function refresh() {
    var now = Date.now();
    each("[data-relative]", function (el) {
      var date = parsed(el.getAttribute("data-relative"));
      if (date) el.textContent = "(" + relative(date.getTime() - now) + ")";
    });
    each("[data-until]", function (el) {
      var date = parsed(el.getAttribute("data-until"));
      if (date) el.textContent = left(date.getTime() - now);
    });
  }

  // a clock per player (issue 24): "4:05", "1:02:03", as referee.web.pages.clock_text
  function clock(ms) {
    var total = Math.max(0, Math.floor(ms / 1000));
    if (total >= 86400) {
      var days = Math.floor(total / 86400);
      var hours = Math.floor((total % 86400) / 3600);
      return plural(days, "day") + (hours ? " " + plural(hours, "hour") : "");
    }
    var h = Math.floor(total / 3600);
    var m = Math.floor((total % 3600) / 60);
    var s = total % 60;
    var mm = h ? (m < 10 ? "0" : "") + m : String(m);
    return (h ? h + ":" : "") + mm + ":" + (s < 10 ? "0" : "") + s;
  }

  function tick() {
    var now = Date.now();
    each("[data-clock-until]", function (el) {
      var date = parsed(el.getAttribute("data-clock-until"));
      if (!date) return;
      var ms = date.getTime() - now;
      el.textContent = ms > 0 ? clock(ms) : "0:00 (ran out)";
      el.classList.toggle("low", ms < 60000);
    });
  }

  showLocal();
  refresh();
  tick();
  window.setInterval(refresh, 30000);
  if (document.querySelector("[data-clock-until]")) window.setInterval(tick, 1000);
})();
