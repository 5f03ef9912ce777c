// The forum post pages (a match host's, a season's): the "Copy the post" button
// copies the post's text (the Clipboard API where the page may use it, else the
// text is selected and copied the old way) and says in a live region whether it
// worked.
"use strict";
(function () {
  var button = document.getElementById("post-copy");
  var status = document.getElementById("post-copy-status");
  if (!button || !status) {
    return;
  }
  var box = document.getElementById(button.getAttribute("data-copies"));
  if (!box) {
    return;
  }

  function say(text) {
    status.textContent = "";
    // a fresh text each time, so that screen readers announce a second copy too
    window.setTimeout(function () {
      status.textContent = text;
    }, 50);
  }

  function copyBySelecting() {
    box.focus();
    box.select();
    box.setSelectionRange(0, box.value.length);
    var done = false;
    try {
      done = document.execCommand("copy");
    } catch (e) {
      done = false;
    }
    return done;
  }

  function fallback() {
    if (copyBySelecting()) {
      say("Copied.");
    } else {
      say("The post is selected: press Ctrl+C (or Cmd+C) to copy it.");
    }
  }

  button.addEventListener("click", function () {
    var text = box.value;
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(text).then(function () {
        say("Copied.");
      }, fallback);
    } else {
      fallback();
    }
  });
})();
