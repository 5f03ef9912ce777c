/* Choosing a game switches a page's game fields at once (issue 23), an
   enhancement only. Contract:
   - a GET <form data-game-choice> holds a <select> (any name) and a submit
     button; without JavaScript, submitting reloads the page with that choice
     in the query string, and that page renders the game's fields;
   - with JavaScript the button is hidden and, when the select changes, the
     script fetches the form's URL with its fields (same origin only), then
     replaces every element of the page having a data-game-fields attribute
     with the fetched page's element of the same id;
   - what the user typed (changed from the page's own value) into text,
     e-mail, number, URL and other text inputs, text areas and checkboxes is
     carried over to the new fields of the same name (never hidden inputs,
     passwords, files or the CSRF token, which the fetched page brings itself);
   - the address bar shows the choice (history.replaceState), an aria-live
     region says what changed, and the game's own style sheets and scripts the
     fetched page names are added; a game script that binds to fields listens
     for the "game-fields:replaced" event on document to bind the new ones;
   - on any failure (network, an answer that is not 2xx, another origin, a
     page without the same elements) the browser simply navigates there. */
(function () {
  "use strict";
  if (!window.fetch || !window.DOMParser || !window.URLSearchParams || !window.FormData) {
    return;
  }

  var TEXT_TYPES = ["text", "email", "number", "url", "tel", "search"];

  function carried(el) {
    if (!el.name || el.name === "csrf_token" || el.disabled) { return false; }
    if (el.tagName === "TEXTAREA") { return true; }
    if (el.tagName !== "INPUT") { return false; }
    var type = (el.getAttribute("type") || "text").toLowerCase();
    return type === "checkbox" || TEXT_TYPES.indexOf(type) >= 0;
  }

  function isCheckbox(el) {
    return el.tagName === "INPUT" && (el.getAttribute("type") || "").toLowerCase() === "checkbox";
  }

  // name -> the values typed into the fields of that name, in page order
  // (null where that field was left as the page gave it)
  function typedValues(roots) {
    var typed = {};
    roots.forEach(function (root) {
      Array.prototype.forEach.call(root.querySelectorAll("input, textarea"), function (el) {
        if (!carried(el)) { return; }
        var list = typed[el.name] || (typed[el.name] = []);
        if (isCheckbox(el)) {
          list.push(el.checked !== el.defaultChecked ? { checked: el.checked } : null);
        } else {
          list.push(el.value !== el.defaultValue ? { value: el.value } : null);
        }
      });
    });
    return typed;
  }

  function restore(roots, typed) {
    var seen = {};
    roots.forEach(function (root) {
      Array.prototype.forEach.call(root.querySelectorAll("input, textarea"), function (el) {
        if (!carried(el)) { return; }
        var i = seen[el.name] || 0;
        seen[el.name] = i + 1;
        var list = typed[el.name];
        var was = list && list[i];
        if (!was) { return; }
        if ("checked" in was) {
          if (isCheckbox(el)) { el.checked = was.checked; }
        } else if (!isCheckbox(el)) {
          el.value = was.value;
        }
      });
    });
  }

  // the game's style sheets and scripts that this page does not have yet
  function addAssets(fetched) {
    var head = document.head;
    Array.prototype.forEach.call(fetched.querySelectorAll("link[rel~='stylesheet'][href]"), function (link) {
      var href = link.getAttribute("href");
      if (!document.querySelector("link[rel~='stylesheet'][href='" + CSS.escape(href) + "']")) {
        var added = document.createElement("link");
        added.rel = "stylesheet";
        added.href = href;
        head.appendChild(added);
      }
    });
    Array.prototype.forEach.call(fetched.querySelectorAll("script[src]"), function (script) {
      var src = script.getAttribute("src");
      if (!document.querySelector("script[src='" + CSS.escape(src) + "']")) {
        var added = document.createElement("script");
        added.src = src;
        added.async = false;  // in the fetched page's order (a library before its user)
        document.body.appendChild(added);
      }
    });
  }

  function statusOf(form) {
    var status = form.querySelector("[data-game-choice-status]");
    if (!status) {
      status = document.createElement("p");
      status.className = "sr-only";
      status.setAttribute("data-game-choice-status", "");
      status.setAttribute("role", "status");
      status.setAttribute("aria-live", "polite");
      form.appendChild(status);
    }
    return status;
  }

  function enhance(form) {
    var select = form.querySelector("select");
    if (!select) { return; }
    Array.prototype.forEach.call(
      form.querySelectorAll("button[type='submit'], button:not([type]), input[type='submit']"),
      function (button) { button.hidden = true; }
    );
    var status = statusOf(form);
    var asked = 0;

    select.addEventListener("change", function () {
      var url = new URL(form.getAttribute("action") || window.location.href, window.location.href);
      url.search = new URLSearchParams(new FormData(form)).toString();
      var go = function () { window.location.assign(url.href); };
      if (url.origin !== window.location.origin) { go(); return; }
      var mine = ++asked;
      var chosen = select.options[select.selectedIndex];
      status.textContent = "Loading the fields of " + (chosen ? chosen.text : "this choice") + "…";
      window.fetch(url.href, {
        credentials: "same-origin",
        headers: { "Accept": "text/html" }
      }).then(function (response) {
        if (!response.ok || new URL(response.url || url.href).origin !== window.location.origin) {
          throw new Error("not a page of this site");
        }
        return response.text();
      }).then(function (text) {
        if (mine !== asked) { return; }  // a later choice is on its way
        var fetched = new DOMParser().parseFromString(text, "text/html");
        var olds = Array.prototype.slice.call(document.querySelectorAll("[data-game-fields]"));
        if (!olds.length) { throw new Error("nothing to replace"); }
        var pairs = olds.map(function (old) {
          var fresh = old.id ? fetched.getElementById(old.id) : null;
          if (!fresh || !fresh.hasAttribute("data-game-fields")) {
            throw new Error("the page has no " + (old.id || "such element"));
          }
          return [old, fresh];
        });
        var typed = typedValues(olds);
        var news = pairs.map(function (pair) {
          var fresh = document.importNode(pair[1], true);
          pair[0].replaceWith(fresh);
          return fresh;
        });
        restore(news, typed);
        addAssets(fetched);
        window.history.replaceState(window.history.state, "", url.href);
        status.textContent = "The form now shows the fields of " +
          (chosen ? chosen.text : "this choice") + ".";
        document.dispatchEvent(new CustomEvent("game-fields:replaced", { detail: { elements: news } }));
      }).catch(function () {
        if (mine === asked) { go(); }
      });
    });
  }

  Array.prototype.forEach.call(document.querySelectorAll("form[data-game-choice]"), enhance);
})();
