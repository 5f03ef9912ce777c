// Drag (or Up/Down buttons, for keyboards and phones) to reorder the draft ranking.
// A progressive enhancement: without it the list is still sent in its shown
// order, and the text box next to it always works.
(function () {
  "use strict";

  function moveButtons(li) {
    var up = document.createElement("button");
    up.type = "button";
    up.className = "move secondary";
    up.textContent = "Up";
    var down = document.createElement("button");
    down.type = "button";
    down.className = "move secondary";
    down.textContent = "Down";
    var card = li.getAttribute("data-card");
    up.setAttribute("aria-label", "Move " + card + " up");
    down.setAttribute("aria-label", "Move " + card + " down");
    up.addEventListener("click", function () { move(li, -1, up); });
    down.addEventListener("click", function () { move(li, 1, down); });
    li.appendChild(up);
    li.appendChild(down);
  }

  function announce(list, li) {
    var status = list.parentNode.querySelector(".ranking-status");
    if (!status) { return; }
    var items = Array.prototype.indexOf.call(list.children, li) + 1;
    status.textContent = li.getAttribute("data-card") + " is now number " + items + ".";
  }

  function move(li, step, focus) {
    var list = li.parentNode;
    if (step < 0 && li.previousElementSibling) {
      list.insertBefore(li, li.previousElementSibling);
    } else if (step > 0 && li.nextElementSibling) {
      list.insertBefore(li.nextElementSibling, li);
    }
    focus.focus();
    announce(list, li);
  }

  function sortable(list) {
    var dragged = null;
    list.classList.add("js");
    var status = document.createElement("p");
    status.className = "ranking-status hint";
    status.setAttribute("aria-live", "polite");
    list.parentNode.insertBefore(status, list.nextSibling);

    Array.prototype.forEach.call(list.children, function (li) {
      li.draggable = true;
      moveButtons(li);
      li.addEventListener("dragstart", function (event) {
        dragged = li;
        li.classList.add("dragging");
        event.dataTransfer.effectAllowed = "move";
        event.dataTransfer.setData("text/plain", li.getAttribute("data-card") || "");
      });
      li.addEventListener("dragend", function () {
        li.classList.remove("dragging");
        Array.prototype.forEach.call(list.children, function (x) { x.classList.remove("drop-target"); });
        if (dragged) { announce(list, dragged); }
        dragged = null;
      });
      li.addEventListener("dragover", function (event) {
        if (!dragged || dragged === li) { return; }
        event.preventDefault();
        li.classList.add("drop-target");
      });
      li.addEventListener("dragleave", function () { li.classList.remove("drop-target"); });
      li.addEventListener("drop", function (event) {
        event.preventDefault();
        li.classList.remove("drop-target");
        if (!dragged || dragged === li) { return; }
        var items = Array.prototype.slice.call(list.children);
        if (items.indexOf(dragged) < items.indexOf(li)) {
          list.insertBefore(dragged, li.nextSibling);
        } else {
          list.insertBefore(dragged, li);
        }
      });
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("ol[data-sortable]"), sortable);
  });
})();
