// The river map picture (an inline SVG in a box of its own). A progressive
// enhancement: without it the map scrolls by hand and every form works with its
// own fields (selects, radio buttons).
// - When the map is wider or taller than its box (a phone), the box opens at the
//   part that matters: the raft's fork (data-focus-fork) or the start, from the
//   left end of that fork's branches (reading order), never the middle.
// - Placement form: the branch chosen for a card (or the one a focused list
//   shows) is highlighted; "Place on the map" picks a card, then a click or tap
//   on a branch of the map chooses that branch in the card's list.
// - Direction form: the raft's fork is marked, and the branches a focused or
//   chosen direction may lead to are highlighted.
(function () {
  "use strict";

  function say(text) {
    var status = document.querySelector(".map-status");
    if (status) { status.textContent = text; }
  }

  function branchGroup(map, id) {
    return map.querySelector('g.branch[data-branch="' + CSS.escape(id) + '"]');
  }

  function forkGroup(map, id) {
    return map.querySelector('g.fork[data-fork="' + CSS.escape(id) + '"]');
  }

  // scroll only the map's box (never the page) so that the element is in view
  function reveal(box, el) {
    var b = box.getBoundingClientRect();
    var r = el.getBoundingClientRect();
    if (r.top < b.top || r.bottom > b.bottom) {
      box.scrollTop += r.top - b.top - Math.max(0, (b.height - r.height) / 2);
    }
    if (r.left < b.left || r.right > b.right) {
      box.scrollLeft += r.left - b.left - Math.max(0, (b.width - r.width) / 2);
    }
  }

  // open the box at a fork's row: its leftmost branch at the left edge, the fork
  // near the top (only what overflows moves; a map that fits stays put)
  function openAt(box) {
    var map = box.querySelector("svg.river-map");
    if (!map) { return; }
    var id = box.getAttribute("data-focus-fork");
    var fork = id ? forkGroup(map, id) : null;
    if (fork) { fork.classList.add("raft-here"); }
    if (box.scrollWidth <= box.clientWidth + 1 && box.scrollHeight <= box.clientHeight + 1) { return; }
    var b = box.getBoundingClientRect();
    if (!fork) { box.scrollLeft = 0; box.scrollTop = 0; return; }
    var f = fork.getBoundingClientRect();
    var left = f.left;
    Array.prototype.forEach.call(map.querySelectorAll("g.branch"), function (g) {
      var r = g.getBoundingClientRect();
      // the fork's own branches sit just below it
      if (r.top > f.bottom && r.top - f.bottom < 3 * f.height) { left = Math.min(left, r.left); }
    });
    // a little room above and to the left; near the picture's edges, the edge itself
    // (the "Start" and segment labels stay in view)
    var x = box.scrollLeft + left - b.left - 8;
    box.scrollLeft = x < 64 ? 0 : x;
    if (box.scrollHeight > box.clientHeight + 1) {
      var y = box.scrollTop + f.top - b.top - 48;
      box.scrollTop = y < 96 ? 0 : y;
    }
  }

  function mapping(form) {
    var map = document.querySelector(".map-side svg.river-map");
    if (!map) { return; }
    var box = map.parentNode;
    var current = null;
    var picking = null; // the select of the card being placed on the map
    var selects = Array.prototype.slice.call(form.querySelectorAll("select[name^='place_']"));

    function cardOf(select) { return select.name.replace(/^place_/, ""); }

    function optionFor(select, id) {
      return Array.prototype.find.call(select.options, function (o) { return o.value === id; }) || null;
    }

    function describe(select) {
      var p = form.querySelector('.choice-text[data-for="' + CSS.escape(select.name) + '"]');
      if (!p) { return; }
      var o = select.selectedIndex >= 0 ? select.options[select.selectedIndex] : null;
      p.textContent = o && o.value ? "Chosen: " + o.textContent : "";
    }

    function show(select) {
      var value = select.value;
      var group = value ? branchGroup(map, value) : null;
      if (current && current !== group) { current.classList.remove("highlight"); }
      current = group;
      if (!group) { return; }
      group.classList.add("highlight");
      reveal(box, group);
      if (!picking) {
        say("Highlighted on the map: branch " + value + " (for card " + cardOf(select) + ").");
      }
    }

    function stopPicking() {
      if (!picking) { return; }
      var button = picking.closest(".place-field").querySelector("button.pick");
      if (button) { button.setAttribute("aria-pressed", "false"); }
      picking.closest(".place-field").classList.remove("picking");
      picking = null;
      box.classList.remove("picking");
      Array.prototype.forEach.call(map.querySelectorAll("g.branch"), function (g) {
        g.classList.remove("legal", "illegal");
      });
    }

    function startPicking(select) {
      stopPicking();
      picking = select;
      var button = select.closest(".place-field").querySelector("button.pick");
      if (button) { button.setAttribute("aria-pressed", "true"); }
      select.closest(".place-field").classList.add("picking");
      box.classList.add("picking");
      Array.prototype.forEach.call(map.querySelectorAll("g.branch"), function (g) {
        var ok = optionFor(select, g.getAttribute("data-branch")) !== null;
        g.classList.add(ok ? "legal" : "illegal");
      });
      var first = map.querySelector("g.branch.legal");
      if (select.value) { show(select); } else if (first) { reveal(box, first); }
      say("Placing card " + cardOf(select) + ": click or tap a branch with a thick outline on the map.");
    }

    map.addEventListener("click", function (event) {
      var g = event.target.closest ? event.target.closest("g.branch") : null;
      if (!g) { return; }
      var id = g.getAttribute("data-branch");
      if (!picking) {
        say("Branch " + id + ": press a card's “Place on the map” button first, then click the branch.");
        return;
      }
      var select = picking;
      var option = optionFor(select, id);
      if (!option) {
        say("Card " + cardOf(select) + " has no " + g.getAttribute("data-color") +
          " face: it cannot go on branch " + id + ". Choose a branch with a thick outline.");
        return;
      }
      select.value = id;
      select.dispatchEvent(new Event("change", { bubbles: true }));
      stopPicking();
      say("Card " + cardOf(select) + " placed: " + option.textContent + ".");
      // go on with the next card still without a branch
      var next = selects.filter(function (s) { return !s.value; })[0];
      if (next) {
        startPicking(next);
        say("Card " + cardOf(select) + " placed on " + id + ". Now placing card " + cardOf(next) +
          ": click or tap a branch with a thick outline.");
      }
    });

    selects.forEach(function (select) {
      var button = document.createElement("button");
      button.type = "button";
      button.className = "pick secondary";
      button.setAttribute("aria-pressed", "false");
      button.textContent = "Place on the map";
      button.setAttribute("aria-label", "Place on the map: card " + cardOf(select));
      button.addEventListener("click", function () {
        if (picking === select) { stopPicking(); say(""); } else { startPicking(select); }
      });
      select.insertAdjacentElement("afterend", button);
      select.addEventListener("change", function () { describe(select); show(select); });
      select.addEventListener("focus", function () { show(select); });
    });
    document.addEventListener("keydown", function (event) {
      if (event.key === "Escape" && picking) { stopPicking(); say("Stopped placing on the map."); }
    });
  }

  function rafting(form) {
    var map = document.querySelector(".map-side svg.river-map");
    if (!map) { return; }
    var box = map.parentNode;
    var lit = [];
    function light(label) {
      lit.forEach(function (g) { g.classList.remove("highlight"); });
      lit = [];
      (label.getAttribute("data-branches") || "").split(" ").forEach(function (id) {
        var g = id ? branchGroup(map, id) : null;
        if (g) { g.classList.add("highlight"); lit.push(g); }
      });
      if (lit.length) { reveal(box, lit[0]); }
    }
    Array.prototype.forEach.call(form.querySelectorAll("label.choice[data-branches]"), function (label) {
      var radio = label.querySelector("input");
      if (!radio) { return; }
      radio.addEventListener("focus", function () { light(label); });
      radio.addEventListener("change", function () { light(label); });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    var boxes = document.querySelectorAll(".map-picture");
    Array.prototype.forEach.call(boxes, openAt);
    // a box that became too narrow (a turned phone) and was never scrolled: open it again
    window.addEventListener("resize", function () {
      Array.prototype.forEach.call(boxes, function (box) {
        if (box.scrollLeft === 0 && box.scrollTop === 0) { openAt(box); }
      });
    });
    Array.prototype.forEach.call(document.querySelectorAll("form.order-mapping"), mapping);
    Array.prototype.forEach.call(document.querySelectorAll("form.order-rafting"), rafting);
  });
})();
