/* Forks 2nd Edition's pages, an enhancement only (everything works without it):
   on the create form, a setting that is an order (the tiebreak) is one select
   per place; choosing a destination already at another place swaps the two,
   so the five places always hold each destination once, and says so. The
   create page's fields may be swapped for new ones (static/game_choice.js):
   they are bound when the "game-fields:replaced" event says so. */
(function () {
  "use strict";
  function bind() {
    document.querySelectorAll("[data-order-setting]:not([data-bound])").forEach(function (group) {
      group.setAttribute("data-bound", "");
      var selects = Array.prototype.slice.call(group.querySelectorAll("select"));
      var status = group.querySelector(".order-status");
      var before = selects.map(function (s) { return s.value; });
      selects.forEach(function (select, i) {
        select.addEventListener("change", function () {
          var j = before.indexOf(select.value);
          if (j >= 0 && j !== i) {
            selects[j].value = before[i];
            if (status) {
              var label = function (s) { return s.options[s.selectedIndex].text; };
              status.textContent = label(select) + " is now place " + (i + 1) + "; " +
                label(selects[j]) + " moved to place " + (j + 1) + ".";
            }
          }
          before = selects.map(function (s) { return s.value; });
        });
      });
    });
  }
  bind();
  document.addEventListener("game-fields:replaced", bind);
})();
