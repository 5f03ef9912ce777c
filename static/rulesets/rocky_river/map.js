// The river map picture (an inline SVG in a box of its own):
// - when the map is wider than its box (on a phone), the box starts scrolled to
//   the middle of the river rather than its left edge;
// - on the placement form, the branch chosen for a card (or the one a focused
//   list shows) is highlighted on the map, and the map's box scrolls to it.
// A progressive enhancement: without it the map scrolls by hand and the form works.
(function () {
  "use strict";

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

  function centre(box) {
    if (box.scrollWidth > box.clientWidth) {
      box.scrollLeft = (box.scrollWidth - box.clientWidth) / 2;
    }
  }

  function highlighter(form) {
    var map = document.querySelector(".map-picture svg.river-map");
    if (!map) { return; }
    var box = map.parentNode;
    var status = document.querySelector(".map-status");
    var current = null;

    function show(select) {
      var value = select.value;
      var group = null;
      if (value) {
        group = map.querySelector('g.branch[data-branch="' + CSS.escape(value) + '"]');
      }
      if (current && current !== group) { current.classList.remove("highlight"); }
      current = group;
      if (!group) {
        if (status) { status.textContent = ""; }
        return;
      }
      group.classList.add("highlight");
      reveal(box, group);
      if (status) {
        var card = select.name.replace(/^place_/, "");
        status.textContent = "Highlighted on the map: branch " + value + " (for card " + card + ").";
      }
    }

    Array.prototype.forEach.call(form.querySelectorAll("select[name^='place_']"), function (select) {
      select.addEventListener("change", function () { show(select); });
      select.addEventListener("focus", function () { show(select); });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll(".map-picture"), centre);
    // a box that became too narrow (a turned phone) and was never scrolled: centre it too
    window.addEventListener("resize", function () {
      Array.prototype.forEach.call(document.querySelectorAll(".map-picture"), function (box) {
        if (box.scrollLeft === 0) { centre(box); }
      });
    });
    Array.prototype.forEach.call(document.querySelectorAll("form.order-mapping"), highlighter);
  });
})();
