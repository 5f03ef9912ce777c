// The draft ranking, made easier to reorder (a progressive enhancement: without
// it, the rank box beside each card and the text box below the list still work,
// read by the server).
// - Drag and drop by each card's grip, with a mouse, a pen or a finger: SortableJS
//   (static/vendor/sortablejs/, loaded before this file) does the pointer work.
// - Top / Up / Down / Bottom buttons and the rank boxes (type a number, press
//   Enter) for keyboards, screen readers and anyone who prefers them.
// Every move renumbers the rank boxes and is announced in the list's live region.
(function () {
  "use strict";

  var ICONS = { Top: "⇈", Up: "↑", Down: "↓", Bottom: "⇊" };

  function items(list) {
    return Array.prototype.filter.call(list.children, function (el) {
      return el.tagName === "LI";
    });
  }

  function rankOf(li) {
    return items(li.parentNode).indexOf(li) + 1;
  }

  function renumber(list) {
    items(list).forEach(function (li, i) {
      var box = li.querySelector("input.rank-input");
      if (box) { box.value = String(i + 1); }
    });
  }

  function say(list, text) {
    var status = list.parentNode.querySelector(".ranking-status");
    if (!status) { return; }
    // a change of text, even to the same words, is announced again
    status.textContent = "";
    window.setTimeout(function () { status.textContent = text; }, 30);
  }

  function flash(li) {
    li.classList.remove("moved");
    void li.offsetWidth; // restart the animation
    li.classList.add("moved");
  }

  function moved(list, li) {
    renumber(list);
    flash(li);
    say(list, li.getAttribute("data-card") + " is now number " + rankOf(li) +
      " of " + items(list).length + ".");
  }

  // put li at rank (1-based, clamped to the list), keeping the focus where it was
  function moveTo(li, rank) {
    var list = li.parentNode;
    var all = items(list);
    var focused = document.activeElement;
    rank = Math.max(1, Math.min(all.length, rank));
    var rest = all.filter(function (x) { return x !== li; });
    var before = rest[rank - 1] || null;
    if (all.indexOf(li) !== rank - 1) { list.insertBefore(li, before); }
    if (focused && li.contains(focused)) { focused.focus(); }
    if (focused && focused.scrollIntoView && li.contains(focused)) {
      focused.scrollIntoView({ block: "nearest" });
    }
    moved(list, li);
  }

  function button(li, text, label, rank) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "move secondary";
    var icon = document.createElement("span");
    icon.className = "icon";
    icon.setAttribute("aria-hidden", "true");
    icon.textContent = ICONS[text];
    var word = document.createElement("span");
    word.className = "word";
    word.textContent = text;
    b.appendChild(icon);
    b.appendChild(word);
    b.setAttribute("aria-label", label);
    b.title = label;
    b.addEventListener("click", function () { moveTo(li, rank()); });
    return b;
  }

  function enhance(li) {
    var card = li.getAttribute("data-card");
    var grip = document.createElement("span");
    grip.className = "drag-handle";
    grip.setAttribute("aria-hidden", "true");
    grip.title = "Drag to move " + card;
    grip.textContent = "⠿";
    li.insertBefore(grip, li.firstChild);
    var buttons = document.createElement("span");
    buttons.className = "move-buttons";
    buttons.appendChild(button(li, "Top", "Move " + card + " to the top", function () { return 1; }));
    buttons.appendChild(button(li, "Up", "Move " + card + " up", function () { return rankOf(li) - 1; }));
    buttons.appendChild(button(li, "Down", "Move " + card + " down", function () { return rankOf(li) + 1; }));
    buttons.appendChild(button(li, "Bottom", "Move " + card + " to the bottom", function () {
      return items(li.parentNode).length;
    }));
    var errors = li.querySelector(".field-errors");
    li.insertBefore(buttons, errors && errors.parentNode === li ? errors : null);

    var box = li.querySelector("input.rank-input");
    if (!box) { return; }
    function apply() {
      var text = box.value.trim();
      var total = items(li.parentNode).length;
      if (!/^[0-9]{1,4}$/.test(text) || Number(text) < 1) {
        box.value = String(rankOf(li));
        say(li.parentNode, "Type a whole number from 1 to " + total + " to move " + card + ".");
        return;
      }
      if (Number(text) === rankOf(li)) { box.value = String(rankOf(li)); return; }
      moveTo(li, Number(text));
    }
    box.addEventListener("keydown", function (event) {
      if (event.key === "Enter") {
        event.preventDefault(); // Enter moves the card; it does not send the form
        apply();
        box.select();
      }
    });
    box.addEventListener("change", apply);
  }

  function sortable(list) {
    list.classList.add("js");
    var fieldset = list.closest("fieldset") || list.parentNode;
    Array.prototype.forEach.call(fieldset.querySelectorAll(".with-script"), function (el) {
      el.hidden = false; // the words about the buttons and the grip
    });
    items(list).forEach(enhance);
    if (typeof window.Sortable !== "function") { return; } // buttons and boxes still work
    window.Sortable.create(list, {
      handle: ".drag-handle",
      draggable: "li",
      animation: 150,
      ghostClass: "drag-ghost",
      chosenClass: "dragging",
      // the same pointer-event code for mouse, pen and touch (not the browser's own
      // drag and drop, which touch screens do not have)
      forceFallback: true,
      fallbackTolerance: 3,
      scroll: true,
      bubbleScroll: true,
      onEnd: function (event) {
        if (event.oldIndex !== event.newIndex) { moved(list, event.item); }
      }
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    Array.prototype.forEach.call(document.querySelectorAll("ol[data-sortable]"), sortable);
  });
})();
