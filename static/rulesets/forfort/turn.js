/* Forfort: compose a whole turn from the seat's options (the JSON block
   #ff-turn-data, FORMAT's API bodies), step by step with native radio buttons
   in fieldsets (tap, click or keyboard), and write the order as JSON into the
   form's order box; a summary in words says what the turn will do. Without
   this script the form is the JSON box, the options listed in words beside it.

   Later pairs see what earlier pairs chose: a wall taken from the discard pile
   is gone, a destroyed space is empty (no target, free for an army), a space
   given an army takes no other, an army card used or an invader defeated is
   one less, a dungeon emptied by a Siege Tower has fewer cards; no pair and no
   drawbridge after a dungeon Mason pair. What this misses the server refuses
   with a message. */
(function () {
  "use strict";
  var dataEl = document.getElementById("ff-turn-data");
  var root = document.getElementById("ff-turn");
  if (!dataEl || !root) { return; }
  var T = JSON.parse(dataEl.textContent);
  var O = T.options || {};
  var form = root.closest("form");
  var box = form ? form.querySelector("textarea[name=order]") : null;
  var summary = document.getElementById("ff-summary");
  var jsonBox = document.getElementById("ff-json-box");
  if (!box || !summary) { return; }

  var S = fresh();

  function fresh() {
    return { camp: null, kind: null, card: null, space: null, symbol: null,
             pick: {}, pairs: [], bridge: null };
  }

  // ---- words -----------------------------------------------------------------
  function cardName(c) { return c === undefined || c === null ? "…" : (T.cards[c] && T.cards[c].name) || c; }
  function v(x) { return x === undefined || x === null ? "…" : x; }
  function seatName(t) { return T.names[String(t)] || ("seat " + t); }
  function whose(t) {
    if (t === undefined || t === null) { return "…’s"; }
    if (Number(t) === Number(T.seat)) { return "your"; }
    var n = seatName(t);
    return n.slice(-1) === "s" ? n + "’" : n + "’s";
  }
  function sym(s) { return T.symbols[s] || s; }
  function keys(o) { return o ? Object.keys(o) : []; }
  function nums(list) { return (list || []).map(Number).sort(function (a, b) { return a - b; }); }
  function clone(o) { return JSON.parse(JSON.stringify(o)); }

  // ---- the option set now (after the first camp) -----------------------------
  function cur() {
    if (O.by_camp_start) {
      return S.camp === null ? null : O.by_camp_start[String(S.camp)] || null;
    }
    return O;
  }

  // ---- DOM helpers -------------------------------------------------------------
  var uid = 0;
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function group(legend, hint) {
    var fs = el("fieldset", { "class": "ff-step" });
    fs.appendChild(el("legend", {}, legend));
    if (hint) { fs.appendChild(el("p", { "class": "hint" }, hint)); }
    return fs;
  }
  // radio buttons: items [{value, label}], the chosen value, what to do on a pick
  function radios(parent, name, legend, items, chosen, onpick, hint) {
    var fs = group(legend, hint);
    var list = el("div", { "class": "picks" });
    items.forEach(function (it) {
      var id = "ff-" + name + "-" + String(it.value).replace(/[^A-Za-z0-9-]/g, "_");
      var label = el("label", { "class": "pick", "for": id });
      var input = el("input", { type: "radio", name: "ff-" + name, id: id, value: String(it.value) });
      if (chosen !== null && chosen !== undefined && String(chosen) === String(it.value)) {
        input.checked = true;
      }
      input.addEventListener("change", function () { changed(id, function () { onpick(it.value); }); });
      label.appendChild(input);
      label.appendChild(document.createTextNode(" " + it.label));
      list.appendChild(label);
    });
    fs.appendChild(list);
    parent.appendChild(fs);
    return fs;
  }
  function spaceItems(list) {
    return nums(list).map(function (s) { return { value: s, label: "Space " + s }; });
  }
  function seatItems(list, extra) {
    return list.map(function (t) {
      return { value: Number(t), label: seatName(t) + (extra ? extra(t) : "") };
    });
  }

  // one change: update the state, draw the builder again, keep the focus
  function changed(id, update) {
    update();
    draw();
    var again = document.getElementById(id);
    if (again) { again.focus(); }
    write();
  }

  // ---- what earlier pairs leave for later ones ----------------------------------------
  function world() {
    return { taken: {}, destroyed: {}, placed: {}, defeated: {}, armiesUsed: 0, sieged: {}, dungeon: false };
  }
  function applyPair(w, symbol, p) {
    if (!p || !p.on) { return; }
    if (symbol === "mason") {
      if (p.from === "dungeon") { w.dungeon = true; } else if (p.card) { w.taken[p.card] = true; }
    } else if (symbol === "ram" || symbol === "trebuchet") {
      if (p.target !== undefined && p.space !== undefined) {
        (w.destroyed[p.target] = w.destroyed[p.target] || {})[p.space] = true;
      }
    } else if (symbol === "siege") {
      (p.targets || []).forEach(function (t) { w.sieged[t] = (w.sieged[t] || 0) + 1; });
    } else if (symbol === "garrison") {
      (p.uses || []).forEach(function (u) { applyUse(w, u); });
    }
  }
  function applyUse(w, u) {
    if (!u) { return; }
    if (u.kind === "defeat" && u.defeat !== undefined) { w.defeated[u.defeat] = true; }
    if (u.kind === "place" && u.target !== undefined && u.space !== undefined) {
      (w.placed[u.target] = w.placed[u.target] || {})[u.space] = true;
      w.armiesUsed += 1;
    }
  }
  // a symbol's choices as the world w leaves them
  function adjust(symbol, ch, w) {
    var c = clone(ch);
    if (symbol === "mason") {
      keys(c.discard).forEach(function (k) { if (w.taken[k]) { delete c.discard[k]; } });
    } else if (symbol === "ram" || symbol === "trebuchet") {
      keys(c).forEach(function (t) {
        c[t] = c[t].filter(function (s) { return !(w.destroyed[t] && w.destroyed[t][s]); });
        if (!c[t].length) { delete c[t]; }
      });
    } else if (symbol === "siege") {
      keys(c).forEach(function (t) {
        c[t] = c[t] - (w.sieged[t] || 0);
        if (c[t] <= 0) { delete c[t]; }
      });
    } else if (symbol === "garrison") {
      c.defeat = (c.defeat || []).filter(function (s) { return !w.defeated[s]; });
      c.armies = (c.armies || 0) - w.armiesUsed;
      var place = c.place || {};
      keys(w.destroyed).forEach(function (t) {
        if (Number(t) === Number(T.seat)) { return; }
        place[t] = place[t] || {};
        keys(w.destroyed[t]).forEach(function (s) { place[t][s] = T.directions[s]; });
      });
      keys(place).forEach(function (t) {
        keys(w.placed[t]).forEach(function (s) { delete place[t][s]; });
        if (!keys(place[t]).length) { delete place[t]; }
      });
      c.place = c.armies > 0 ? place : {};
    }
    return c;
  }

  // ---- one effect's choices (an effect from the hand, or a pair) -----------------------
  // p: the chosen values (mutated); prefix: unique radio names; pair: a pair's looser rules
  function effectChoices(parent, prefix, symbol, ch, p, opts) {
    if (symbol === "mason") {
      var froms = [];
      if (keys(ch.discard).length) { froms.push({ value: "discard", label: "A wall from your discard pile" }); }
      if (opts.pair && ch.dungeon) { froms.push({ value: "dungeon", label: "The top card of your dungeon (unseen; it must be the last pair, and no drawbridge)" }); }
      if (!opts.pair) { p.from = "discard"; }
      if (opts.pair) {
        if (!froms.length) { parent.appendChild(el("p", { "class": "hint" }, "Nothing left to build with this pair.")); return; }
        radios(parent, prefix + "-from", "Build which card?", froms, p.from, function (v) { p.from = v; p.card = undefined; p.space = undefined; });
      }
      if (p.from === "discard") {
        radios(parent, prefix + "-card", "The wall from your discard pile",
          keys(ch.discard).map(function (k) { return { value: k, label: cardName(k) }; }), p.card,
          function (v) { p.card = v; p.space = undefined; });
        if (p.card && ch.discard[p.card]) {
          radios(parent, prefix + "-space", "Build it on", spaceItems(ch.discard[p.card]), p.space,
            function (v) { p.space = v; });
        }
      } else if (p.from === "dungeon") {
        radios(parent, prefix + "-corner", "If the card is angled, build it on corner", spaceItems(ch.dungeon.corners), p.corner,
          function (v) { p.corner = v; });
        radios(parent, prefix + "-edge", "If it is straight, build it on edge", spaceItems(ch.dungeon.edges), p.edge,
          function (v) { p.edge = v; });
      }
    } else if (symbol === "ram" || symbol === "trebuchet") {
      var targets = keys(ch);
      radios(parent, prefix + "-target", "Attack whose fort?", seatItems(targets), p.target,
        function (v) { p.target = v; p.space = undefined; });
      if (p.target !== undefined && ch[String(p.target)]) {
        radios(parent, prefix + "-space", "Destroy the stack on " + whose(p.target) + " space",
          spaceItems(ch[String(p.target)]), p.space, function (v) { p.space = v; });
      }
    } else if (symbol === "siege") {
      radios(parent, prefix + "-target", "Whose dungeon loses its top card?",
        seatItems(keys(ch), function (t) { return " (" + ch[t] + " card" + (ch[t] === 1 ? "" : "s") + ")"; }),
        p.target, function (v) { p.target = v; });
    } else if (symbol === "garrison") {
      garrisonUse(parent, prefix, ch, p);
    }
  }
  function garrisonUse(parent, prefix, ch, u, optional) {
    var kinds = [];
    if (optional) { kinds.push({ value: "none", label: "No second use" }); }
    if ((ch.defeat || []).length) { kinds.push({ value: "defeat", label: "Defeat an army in your fort" }); }
    if (keys(ch.place).length && ch.armies > 0) { kinds.push({ value: "place", label: "Place an army in another fort" }); }
    if (!kinds.length || (optional && kinds.length === 1)) {
      if (!optional) { parent.appendChild(el("p", { "class": "hint" }, "No use is left.")); }
      return;
    }
    if (kinds.length === 1) { u.kind = kinds[0].value; }
    radios(parent, prefix + "-kind", optional ? "A second use (optional)" : "Which use?", kinds,
      u.kind || (optional ? "none" : null), function (v) { u.kind = v; u.target = undefined; u.space = undefined; u.direction = undefined; u.defeat = undefined; });
    if (u.kind === "defeat") {
      radios(parent, prefix + "-defeat", "Defeat the army on your space", spaceItems(ch.defeat), u.defeat,
        function (v) { u.defeat = v; });
    } else if (u.kind === "place") {
      radios(parent, prefix + "-target", "Place an army in whose fort?", seatItems(keys(ch.place)), u.target,
        function (v) { u.target = v; u.space = undefined; u.direction = undefined; });
      var spaces = u.target !== undefined ? ch.place[String(u.target)] : null;
      if (spaces) {
        radios(parent, prefix + "-space", "On " + whose(u.target) + " empty space", spaceItems(keys(spaces)), u.space,
          function (v) { u.space = v; u.direction = undefined; });
        var dirs = u.space !== undefined ? spaces[String(u.space)] : null;
        if (dirs) {
          radios(parent, prefix + "-direction", "Heading (the way it attacks, for good)",
            dirs.map(function (d) { return { value: d, label: d }; }), u.direction, function (v) { u.direction = v; });
        }
      }
    }
  }

  // ---- the builder ---------------------------------------------------------------------
  function draw() {
    root.textContent = "";
    if (O.camp_start && O.camp_start.length) {
      radios(root, "camp", "Your first camp", spaceItems(O.camp_start), S.camp,
        function (v) { var camp = v; S = fresh(); S.camp = camp; },
        "Your first turn only: a camp goes on an empty space of your fort first.");
    }
    var set = cur();
    if (!set) { return; }
    if (!T.hand.length) {
      root.appendChild(el("p", {}, "Your hand is empty: this turn has no action."));
    } else {
      var kinds = [];
      if (set.forced_discard) {
        kinds.push({ value: "discard", label: "Discard a card (you can do nothing else)" });
      } else {
        if (keys(set.build).length) { kinds.push({ value: "build", label: "Build a wall from your hand" }); }
        if (keys(set.effects).length) { kinds.push({ value: "effect", label: "Use the effect of a card in your hand" }); }
        if ((set.camp_spaces || []).length) { kinds.push({ value: "camp", label: "Discard a card to place a camp" }); }
      }
      radios(root, "kind", "Your action (one)", kinds, S.kind, function (v) {
        S.kind = v; S.card = null; S.space = null; S.symbol = null; S.pick = {}; S.pairs = []; S.bridge = null;
      });
      if (S.kind === "build") { drawBuild(set); }
      if (S.kind === "effect") { drawEffect(set); }
      if (S.kind === "camp" || S.kind === "discard") {
        radios(root, "dcard", S.kind === "camp" ? "The card to discard for the camp" : "The card to discard",
          T.hand.map(function (c) { return { value: c, label: cardName(c) }; }), S.card,
          function (v) { S.card = v; });
        if (S.kind === "camp") {
          radios(root, "cspace", "The camp goes on", spaceItems(set.camp_spaces), S.space,
            function (v) { S.space = v; });
        }
      }
    }
    drawBridge(set);
  }

  function drawBuild(set) {
    radios(root, "bcard", "The wall to build",
      keys(set.build).map(function (c) { return { value: c, label: cardName(c) }; }), S.card,
      function (v) { S.card = v; S.space = null; S.pairs = []; S.bridge = null; });
    var spots = S.card ? set.build[S.card] : null;
    if (!spots) { return; }
    radios(root, "bspace", "Build it on", spots.map(function (b) {
      var k = b.pairs.length;
      return { value: b.space, label: "Space " + b.space + (k ? " (makes " + k + " pair" + (k > 1 ? "s" : "") + ")" : "") };
    }), S.space, function (v) { S.space = v; S.pairs = []; S.bridge = null; });
    var spot = null;
    spots.forEach(function (b) { if (S.space !== null && String(b.space) === String(S.space)) { spot = b; } });
    if (!spot) { return; }
    var w = world();
    spot.pairs.forEach(function (pair, i) {
      var p = S.pairs[i] = S.pairs[i] || { on: false };
      var fs = group("Pair " + (i + 1) + ": " + sym(pair.symbol) + " with space " + pair["with"],
        "Made with the wall on space " + pair["with"] + ". Trigger it or give it up; pairs are applied in this order.");
      fs.classList.add("ff-pair");
      if (w.dungeon) {
        p.on = false;
        fs.appendChild(el("p", {}, "Not offered: a dungeon Mason pair before it must be the last."));
        root.appendChild(fs);
        return;
      }
      var id = "ff-pair" + i + "-on";
      var label = el("label", { "class": "pick", "for": id });
      var box2 = el("input", { type: "checkbox", id: id, name: id });
      box2.checked = !!p.on;
      box2.addEventListener("change", function () {
        changed(id, function () { S.pairs[i] = { on: box2.checked }; S.pairs.length = i + 1; });
      });
      label.appendChild(box2);
      label.appendChild(document.createTextNode(" Trigger this pair"));
      fs.appendChild(label);
      if (p.on) {
        var ch = adjust(pair.symbol, pair.choices, w);
        pairChoices(fs, "pair" + i, pair.symbol, ch, p, w);
      }
      root.appendChild(fs);
      applyPair(w, pair.symbol, p);
    });
  }

  function pairChoices(fs, prefix, symbol, ch, p, w) {
    if (symbol === "siege") {
      p.targets = p.targets || [];
      radios(fs, prefix + "-t1", "Whose dungeon loses its top card?",
        seatItems(keys(ch), function (t) { return " (" + ch[t] + " card" + (ch[t] === 1 ? "" : "s") + ")"; }),
        p.targets[0], function (v) { p.targets = [v]; });
      if (p.targets.length) {
        var after = clone(ch);
        after[String(p.targets[0])] -= 1;
        if (after[String(p.targets[0])] <= 0) { delete after[String(p.targets[0])]; }
        var items = [{ value: "none", label: "No second use" }].concat(seatItems(keys(after)));
        radios(fs, prefix + "-t2", "A second time (optional)", items,
          p.targets.length > 1 ? p.targets[1] : "none",
          function (v) { p.targets = v === "none" ? [p.targets[0]] : [p.targets[0], v]; });
      }
      return;
    }
    if (symbol === "garrison") {
      p.uses = p.uses || [{}];
      garrisonUse(fs, prefix + "-u1", ch, p.uses[0]);
      if (useDone(p.uses[0])) {
        var w2 = world();
        applyUse(w2, p.uses[0]);
        var after2 = adjust("garrison", ch, w2);
        p.uses[1] = p.uses[1] || { kind: "none" };
        garrisonUse(fs, prefix + "-u2", after2, p.uses[1], true);
      } else {
        p.uses.length = 1;
      }
      return;
    }
    effectChoices(fs, prefix, symbol, ch, p, { pair: true });
  }
  function useDone(u) {
    return u && ((u.kind === "defeat" && u.defeat !== undefined) ||
      (u.kind === "place" && u.direction !== undefined));
  }

  function drawEffect(set) {
    var items = [];
    keys(set.effects).forEach(function (c) {
      keys(set.effects[c]).forEach(function (s) {
        items.push({ value: c + ":" + s, label: sym(s) + " of " + cardName(c) });
      });
    });
    radios(root, "effect", "The card and its effect (the card then goes to your discard pile)", items,
      S.card ? S.card + ":" + S.symbol : null, function (v) {
        var at = v.lastIndexOf(":");
        S.card = v.slice(0, at); S.symbol = v.slice(at + 1); S.pick = {}; S.bridge = null;
      });
    if (!S.card || !set.effects[S.card] || !set.effects[S.card][S.symbol]) { return; }
    var fs = group(sym(S.symbol) + ": your choices");
    effectChoices(fs, "e", S.symbol, set.effects[S.card][S.symbol], S.pick, { pair: false });
    root.appendChild(fs);
  }

  // the gate spaces after the action: a space built on leaves, joins when the wall is a gate
  function bridgeSpaces(set) {
    var spaces = {};
    (set.drawbridge || []).forEach(function (s) { spaces[s] = true; });
    function built(card, space) {
      if (!card || space === undefined || space === null) { return; }
      delete spaces[space];
      if (T.cards[card] && T.cards[card].mark === "gate") { spaces[space] = true; }
    }
    if (S.kind === "build") {
      built(S.card, S.space);
      S.pairs.forEach(function (p) { if (p.on && p.from === "discard") { built(p.card, p.space); } });
    }
    if (S.kind === "effect" && S.symbol === "mason") { built(S.pick.card, S.pick.space); }
    return nums(keys(spaces));
  }
  function dungeonPair() {
    return S.kind === "build" && S.pairs.some(function (p) { return p.on && p.from === "dungeon"; });
  }
  function drawBridge(set) {
    if (set.drawbridge === null || set.drawbridge === undefined) {
      root.appendChild(el("p", { "class": "hint" }, "Drawbridge: your token is in play, so it cannot be used this turn."));
      S.bridge = null;
      return;
    }
    if (dungeonPair()) {
      root.appendChild(el("p", { "class": "hint" }, "Drawbridge: not with a dungeon Mason pair."));
      S.bridge = null;
      return;
    }
    var spaces = bridgeSpaces(set);
    if (!spaces.length) {
      root.appendChild(el("p", { "class": "hint" }, "Drawbridge: no gate wall of your fort can take it after this action."));
      S.bridge = null;
      return;
    }
    if (S.bridge !== null && spaces.indexOf(Number(S.bridge)) < 0) { S.bridge = null; }
    radios(root, "bridge", "The drawbridge (optional, after the action: an extra turn)",
      [{ value: "none", label: "No drawbridge" }].concat(spaces.map(function (s) {
        return { value: s, label: "Lower it on the gate wall of space " + s };
      })), S.bridge === null ? "none" : S.bridge, function (v) { S.bridge = v === "none" ? null : v; });
  }

  // ---- the order and its words ---------------------------------------------------------
  var WORD = { build: "wall", effect: "card", camp: "card", discard: "card", card: "wall", target: "player",
    corner: "corner", edge: "edge", direction: "direction", defeat: "army to defeat", space: "space" };
  function num(v) { return v === undefined || v === null ? v : Number(v); }
  function effectBody(symbol, p, pair) {
    var out = {};
    if (symbol === "mason") {
      if (pair) { out.from = p.from; }
      if (p.from === "dungeon") { out.corner = num(p.corner); out.edge = num(p.edge); } else { out.card = p.card; out.space = num(p.space); }
    } else if (symbol === "ram" || symbol === "trebuchet") {
      out.target = num(p.target); out.space = num(p.space);
    } else if (symbol === "siege") {
      if (pair) { out.targets = (p.targets || []).map(Number); } else { out.target = num(p.target); }
    } else if (symbol === "garrison") {
      var uses = (p.uses || [p]).filter(function (u) { return u && u.kind && u.kind !== "none"; }).map(useBody);
      if (pair) { out.uses = uses; } else { Object.assign(out, uses[0] || {}); }
    }
    return out;
  }
  function useBody(u) {
    if (u.kind === "defeat") { return { defeat: num(u.defeat) }; }
    return { target: num(u.target), space: num(u.space), direction: u.direction };
  }
  function order() {
    var o = {};
    if (O.camp_start && O.camp_start.length) { o.camp_start = num(S.camp); }
    var set = cur();
    var a = null;
    if (S.kind === "build") {
      a = { build: S.card, space: num(S.space), pairs: [] };
      var spot = null;
      ((set && S.card && set.build[S.card]) || []).forEach(function (b) { if (String(b.space) === String(S.space)) { spot = b; } });
      (spot ? spot.pairs : []).forEach(function (pair, i) {
        var p = S.pairs[i];
        if (p && p.on) { a.pairs.push(Object.assign({ "with": pair["with"], symbol: pair.symbol }, effectBody(pair.symbol, p, true))); }
      });
    } else if (S.kind === "effect") {
      a = Object.assign({ effect: S.card, symbol: S.symbol }, effectBody(S.symbol, S.pick, false));
    } else if (S.kind === "camp") {
      a = { camp: S.card, space: num(S.space) };
    } else if (S.kind === "discard") {
      a = { discard: S.card };
    }
    o.action = a;
    o.drawbridge = S.bridge === null ? null : Number(S.bridge);
    return o;
  }
  function missing(o) {
    var out = [];
    if (O.camp_start && O.camp_start.length && o.camp_start === null) { out.push("your first camp"); }
    if (T.hand.length && !o.action) { out.push("your action"); }
    function gaps(obj, what) {
      JSON.stringify(obj, function (k, x) {
        if (k === "pairs") { return undefined; }
        if (x === undefined || x === null) { out.push("the " + (WORD[k] || k) + " " + what); }
        return x;
      });
    }
    if (o.action) { gaps(o.action, "of your action"); }
    (o.action && o.action.pairs || []).forEach(function (p, i) {
      gaps(p, "of pair " + (i + 1));
      if (p.symbol === "garrison" && !p.uses.length) { out.push("the use of pair " + (i + 1)); }
      if (p.symbol === "siege" && !p.targets.length) { out.push("the target of pair " + (i + 1)); }
    });
    return out;
  }
  function useWords(u) {
    if (u.defeat !== undefined) { return "defeat the army on your space " + v(u.defeat); }
    return "place an army on " + whose(u.target) + " space " + v(u.space) + ", heading " + v(u.direction);
  }
  function effectWords(symbol, a) {
    if (symbol === "mason") {
      if (a.from === "dungeon") { return "the top card of your dungeon to corner " + v(a.corner) + " if angled, edge " + v(a.edge) + " if straight"; }
      return "build " + cardName(a.card) + " from your discard pile on space " + v(a.space);
    }
    if (symbol === "ram" || symbol === "trebuchet") { return "destroy " + whose(a.target) + " space " + v(a.space); }
    if (symbol === "siege") {
      var ts = a.targets && a.targets.length ? a.targets : [a.target];
      return ts.map(function (t) { return "discard the top card of " + whose(t) + " dungeon"; }).join(", then ");
    }
    var uses = a.uses || [a];
    return uses.length ? uses.map(useWords).join(", then ") : "…";
  }
  function words(o) {
    var parts = [];
    if (o.camp_start !== undefined && o.camp_start !== null) { parts.push("first camp on space " + o.camp_start); }
    var a = o.action;
    if (a && a.build) {
      var t = "build " + cardName(a.build) + " on space " + v(a.space);
      a.pairs.forEach(function (p) { t += "; trigger the " + sym(p.symbol) + " pair with space " + p["with"] + ": " + effectWords(p.symbol, p); });
      parts.push(t);
    } else if (a && a.effect) {
      parts.push("use the " + sym(a.symbol) + " of " + cardName(a.effect) + ": " + effectWords(a.symbol, a));
    } else if (a && a.camp) {
      parts.push("discard " + cardName(a.camp) + " and place a camp on space " + v(a.space));
    } else if (a && a.discard) {
      parts.push("discard " + cardName(a.discard));
    } else if (!T.hand.length) {
      parts.push("no action");
    }
    if (o.drawbridge !== null) { parts.push("drawbridge on space " + o.drawbridge + " (then an extra turn)"); }
    parts.push("then draw");
    return parts.join("; ");
  }
  function write() {
    var o = order();
    box.value = JSON.stringify(o);
    var gaps = missing(o);
    var unique = gaps.filter(function (g, i) { return gaps.indexOf(g) === i; });
    summary.hidden = false;
    summary.textContent = "";
    summary.appendChild(el("strong", {}, "Your turn: "));
    summary.appendChild(document.createTextNode(words(o) + "."));
    if (unique.length) {
      summary.appendChild(el("br"));
      summary.appendChild(document.createTextNode("Still to choose: " + unique.join(", ") + "."));
    }
  }

  // ---- the order in the box (sent and refused, or stored) as choices again ----------------
  function canon(x) {
    if (Array.isArray(x)) { return "[" + x.map(canon).join(",") + "]"; }
    if (x && typeof x === "object") {
      return "{" + keys(x).sort().filter(function (k) { return x[k] !== undefined; })
        .map(function (k) { return JSON.stringify(k) + ":" + canon(x[k]); }).join(",") + "}";
    }
    return JSON.stringify(x === undefined ? null : x);
  }
  function pickOf(symbol, a) {
    var p = { on: true };
    ["from", "card", "space", "corner", "edge", "target", "direction", "defeat"].forEach(function (k) {
      if (a[k] !== undefined && a[k] !== null) { p[k] = typeof a[k] === "string" && k === "card" ? a[k].toLowerCase() : a[k]; }
    });
    if (symbol === "siege" && Array.isArray(a.targets)) { p.targets = a.targets.slice(); }
    if (symbol === "garrison") {
      var uses = Array.isArray(a.uses) ? a.uses : [a];
      p.uses = uses.map(function (u) {
        var kind = u && u.defeat !== undefined ? "defeat" : "place";
        return { kind: kind, defeat: u.defeat, target: u.target, space: u.space, direction: u.direction };
      });
      if (p.uses.length === 1) { p.uses.push({ kind: "none" }); }
      if (!Array.isArray(a.uses)) { Object.assign(p, p.uses[0]); }
    }
    return p;
  }
  function restore() {
    var sent;
    try { sent = JSON.parse(box.value); } catch (e) { return; }
    if (!sent || typeof sent !== "object") { return; }
    var a = sent.action;
    S = fresh();
    if (sent.camp_start !== undefined && sent.camp_start !== null) { S.camp = sent.camp_start; }
    var set = cur();
    if (a && typeof a === "object" && set) {
      if (a.build) {
        S.kind = "build"; S.card = String(a.build).toLowerCase(); S.space = a.space;
        var spot = null;
        (set.build[S.card] || []).forEach(function (b) { if (String(b.space) === String(a.space)) { spot = b; } });
        var made = spot ? spot.pairs : [];
        S.pairs = made.map(function () { return { on: false }; });
        (a.pairs || []).forEach(function (p) {
          made.forEach(function (m, i) {
            if (m["with"] === p["with"] && m.symbol === p.symbol) { S.pairs[i] = pickOf(p.symbol, p); }
          });
        });
      } else if (a.effect) {
        S.kind = "effect"; S.card = String(a.effect).toLowerCase(); S.symbol = a.symbol;
        S.pick = pickOf(a.symbol, a); delete S.pick.on;
      } else if (a.camp) {
        S.kind = "camp"; S.card = String(a.camp).toLowerCase(); S.space = a.space;
      } else if (a.discard) {
        S.kind = "discard"; S.card = String(a.discard).toLowerCase();
      }
    }
    if (sent.drawbridge !== undefined && sent.drawbridge !== null) { S.bridge = sent.drawbridge; }
    draw();
    var norm = clone(sent);
    if (norm.action && norm.action.build && !norm.action.pairs) { norm.action.pairs = []; }
    if (norm.drawbridge === undefined) { norm.drawbridge = null; }
    ["build", "effect", "camp", "discard", "card"].forEach(function (k) {
      if (norm.action && typeof norm.action[k] === "string") { norm.action[k] = norm.action[k].toLowerCase(); }
    });
    var unchosen = Array.prototype.some.call(root.querySelectorAll(".picks"), function (g) {
      return !g.querySelector("input:checked");
    });
    if (!unchosen && canon(order()) === canon(norm)) {
      write();  // the same order: its summary shows, the box is unchanged in meaning
    } else {
      S = fresh();  // the choices could not say it: start afresh, the box keeps it
      draw();
    }
  }

  root.hidden = false;
  var hint = document.getElementById("ff-turn-hint");
  if (hint) { hint.hidden = false; }
  form.classList.add("ff-scripted");
  if (jsonBox && !jsonBox.classList.contains("ff-invalid")) { jsonBox.open = false; }
  draw();
  if (box.value.trim()) { restore(); }
}());
