/* Fortune & Famine: compose one order from the seat's options (the JSON block
   #fnf-turn-data, FORMAT's API bodies) with native radio buttons, check boxes
   and +/- steppers in fieldsets (tap, click or keyboard), and write it as JSON
   into the form's order box. A running total says what the seat will hold
   once the order is done (grain, silver, stored grain), computed by FORMAT's
   rules for the chosen combination (a trade at payment, the payments, the
   rewards, the Chysarions, a trade at the decision, the decision); a choice
   that would break them is not offered (disabled), and dependent values are
   kept in range (a store amount, a bid's trade, the guard). Without this
   script the form is the JSON box, the options listed in words beside it. */
(function () {
  "use strict";
  var dataEl = document.getElementById("fnf-turn-data");
  var root = document.getElementById("fnf-turn");
  if (!dataEl || !root) { return; }
  var T = JSON.parse(dataEl.textContent);
  var O = T.options || {};
  var ME = T.me || {};
  var form = root.closest("form");
  var box = form ? form.querySelector("textarea[name=order]") : null;
  var summary = document.getElementById("fnf-summary");
  var total = document.getElementById("fnf-total");
  var jsonBox = document.getElementById("fnf-json-box");
  if (!box || !summary || !total) { return; }
  var COTARR = "cotarr-corace";

  // ---- helpers -----------------------------------------------------------------
  function keys(o) { return o ? Object.keys(o) : []; }
  function clone(o) { return JSON.parse(JSON.stringify(o)); }
  function num(x) { return Number(x) || 0; }
  function cardName(c) { return (T.cards[c] && T.cards[c].name) || c; }
  function cardText(c) { return (T.cards[c] && T.cards[c].text) || ""; }
  function seatName(s) { return Number(s) === Number(T.seat) ? "you" : (T.names[String(s)] || ("seat " + s)); }
  function res(o, ks) {
    var words = { grain: "grain", silver: "silver", stored: "stored grain" };
    var parts = (ks || ["grain", "silver", "stored"]).filter(function (k) { return num(o && o[k]); })
      .map(function (k) { return o[k] + " " + words[k]; });
    return parts.join(", ") || "nothing";
  }
  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function group(parent, legend, hint) {
    var fs = el("fieldset", { "class": "fnf-step" });
    fs.appendChild(el("legend", {}, legend));
    if (hint) { fs.appendChild(el("p", { "class": "hint" }, hint)); }
    parent.appendChild(fs);
    return fs;
  }
  function safe(v) { return String(v).replace(/[^A-Za-z0-9-]/g, "_"); }
  // choices: [{value, label, disabled}]; a radio (one) or check box (many) per choice
  function picks(fs, type, name, items, isChosen, onpick) {
    var list = el("div", { "class": "picks" });
    items.forEach(function (it) {
      var id = "fnf-" + name + "-" + safe(it.value);
      var label = el("label", { "class": "pick", "for": id });
      var input = el("input", { type: type, name: "fnf-" + name, id: id, value: String(it.value) });
      input.checked = !!isChosen(it.value);
      input.disabled = !!it.disabled && !input.checked;
      input.addEventListener("change", function () { changed(id, function () { onpick(it.value, input.checked); }); });
      label.appendChild(input);
      label.appendChild(document.createTextNode(" " + it.label));
      if (input.disabled && it.why) { label.appendChild(el("span", { "class": "fnf-why" }, " (" + it.why + ")")); }
      list.appendChild(label);
    });
    fs.appendChild(list);
  }
  // a number from lo to hi with - and + buttons (44px targets)
  function stepper(fs, name, label, value, lo, hi, onset) {
    var row = el("div", { "class": "stepper" });
    var id = "fnf-" + name;
    row.appendChild(el("span", { id: id + "-label" }, label));
    var minus = el("button", { type: "button", id: id + "-minus", "aria-label": label + ": one less" }, "−");
    var out = el("output", { id: id, "aria-labelledby": id + "-label", "aria-live": "polite" }, String(value));
    var plus = el("button", { type: "button", id: id + "-plus", "aria-label": label + ": one more" }, "+");
    minus.disabled = value <= lo;
    plus.disabled = value >= hi;
    minus.addEventListener("click", function () { changed(id + "-minus", function () { onset(Math.max(lo, value - 1)); }); });
    plus.addEventListener("click", function () { changed(id + "-plus", function () { onset(Math.min(hi, value + 1)); }); });
    row.appendChild(minus); row.appendChild(out); row.appendChild(plus);
    row.appendChild(el("span", { "class": "hint" }, "(" + lo + " to " + hi + ")"));
    fs.appendChild(row);
  }
  function changed(id, update) {
    update();
    normalize(S);
    draw();
    var again = document.getElementById(id);
    if (again && !again.disabled) { again.focus(); }
    write();
  }

  // ---- the state of the form -----------------------------------------------------
  function fresh() {
    var s = { trade: null, guard: { on: false, grain: 0, silver: 0 } };
    if (O.phase === "hire") { s.pick = null; s.silver = 0; s.discard = null; }
    if (O.phase === "attack") { s.pp = false; s.targets = []; s.evr = {}; }
    if (O.phase === "economy") { s.pay = {}; s.dbl = null; s.chys = {}; s.decision = "grain"; s.store = 1; }
    return s;
  }
  var S = fresh();
  function chosenCard(s) { return typeof s.pick === "number" ? O.cards[s.pick] : null; }

  // what the seat holds once the order is done, and whether the order keeps to the rules
  function calc(s) {
    var g = num(ME.grain), v = num(ME.silver);
    var stored = ME.stored === null || ME.stored === undefined ? null : num(ME.stored);
    var gainStored = 0, ok = true, why = [];
    function trade(t) {
      if (!t) { return; }
      if (t.give === "grain") {
        if (t.count > g) { ok = false; why.push("not enough grain to trade"); }
        g -= t.count; v += t.count;
      } else {
        if (t.count > v) { ok = false; why.push("not enough silver to trade"); }
        v -= t.count; g += t.count;
      }
    }
    if (O.phase === "hire") {
      g = num(ME.grain); v = num(ME.silver);
      trade(s.trade);
      var c = chosenCard(s);
      if (c && c.how === "bid") {
        if (s.silver < c.min_silver) { ok = false; why.push("the bid is too low"); }
        if (s.silver > v) { ok = false; why.push("not enough silver for the bid"); }
        v -= s.silver;
      }
      if (s.pick === "pass" && ME.ruler === COTARR) { v += 2; }
      if (c && c.discards && !s.discard) { ok = false; why.push("a card to discard"); }
      if (s.pick === null) { ok = false; why.push("an action"); }
    } else if (O.phase === "attack") {
      trade(s.trade);
      if (s.pp) { v += 2; }
      (O.evrathor || []).forEach(function (e) {
        var u = s.evr[e.card];
        if (!u || !u.on) { return; }
        if (e.steals === "grain") { g += e.amount; } else if (e.steals === "silver") { v += e.amount; } else { gainStored += e.amount; }
      });
    } else {
      var t = s.trade;
      g = num(O.grain); v = num(O.silver);
      if (t && t.at !== "decision") { trade(t); }
      var pg = 0, pv = 0, rg = 0, rv = 0;
      (O.pay || []).forEach(function (p) {
        if (!s.pay[p.card]) { return; }
        var times = s.dbl === p.card ? 2 : 1;
        pg += times * num(p.payment.grain); pv += times * num(p.payment.silver);
        rg += times * num(p.reward.grain); rv += times * num(p.reward.silver); gainStored += times * num(p.reward.stored);
      });
      (O.free || []).forEach(function (f) {
        rg += num(f.reward.grain); rv += num(f.reward.silver); gainStored += num(f.reward.stored);
      });
      if (pg > g || pv > v) { ok = false; why.push("not enough to pay these workers"); }
      g = g - pg + rg; v = v - pv + rv;
      (O.chysarion || []).forEach(function (ch) {
        if (!s.chys[ch.card]) { return; }
        if (ch.gives === "grain") { g += ch.amount; } else if (ch.gives === "silver") { v += ch.amount; } else { gainStored += ch.amount; }
      });
      if (t && t.at === "decision") { trade(t); }
      s.maxStore = v >= 1 ? Math.max(0, g) : 0;
      if (s.decision === "grain") { g += 1; }
      else if (s.decision === "silver") { v += 1; }
      else {
        if (v < 1) { ok = false; why.push("no silver to pay for storing"); }
        if (s.store < 1 || s.store > g) { ok = false; why.push("not that much grain to store"); }
        v -= 1; g -= s.store; gainStored += s.store;
      }
    }
    if (s.guard && s.guard.on) {
      if (s.guard.grain + s.guard.silver > 3) { ok = false; why.push("a guard of 3 at most"); }
      if (s.guard.grain > g || s.guard.silver > v) { ok = false; why.push("a guard of what you hold"); }
    }
    return { grain: g, silver: v, gainStored: gainStored,
             stored: stored === null ? null : stored + gainStored, ok: ok, why: why };
  }

  // keep dependent values in range after a change
  function normalize(s) {
    if (O.phase === "hire") {
      var c = chosenCard(s);
      if (!c || c.how !== "bid") { s.silver = 0; }
      else {
        s.silver = Math.max(c.min_silver, Math.min(O.max_silver, s.silver || c.min_silver));
        // a bid payable only by trading carries that trade
        var held = num(ME.silver) + (s.trade ? (s.trade.give === "grain" ? s.trade.count : -s.trade.count) : 0);
        if (s.silver > held && O.trade) {
          var need = s.silver - num(ME.silver);
          s.trade = need >= 1 && need <= Math.min(3, num(O.trade.grain)) ? { give: "grain", count: need } : s.trade;
        }
      }
      if (!c || !c.discards || c.discards.indexOf(s.discard) < 0) { s.discard = null; }
    }
    if (O.phase === "economy") {
      if (s.dbl && !s.pay[s.dbl]) { s.dbl = null; }
      if (s.decision === "store") {
        calc(s);
        if (s.maxStore < 1) { s.decision = "grain"; }
        else { s.store = Math.max(1, Math.min(s.maxStore, s.store || 1)); }
      }
    }
    if (s.guard && s.guard.on) {
      var r = calc(Object.assign({}, s, { guard: { on: false } }));
      s.guard.grain = Math.max(0, Math.min(s.guard.grain, r.grain, 3));
      s.guard.silver = Math.max(0, Math.min(s.guard.silver, r.silver, 3 - s.guard.grain));
    }
  }
  // whether a change leaves a legal order (else its choice is not offered),
  // the change itself kept (``kept``) once dependent values are put in range
  // why a change is not offered, in the player's words ("" when it is)
  function blocked(mutate, kept) {
    var s = clone(S);
    mutate(s);
    normalize(s);
    if (kept && !kept(s)) { return "not with the rest of this order"; }
    var r = calc(s);
    if (O.phase === "hire" && s.pick === null) { return ""; }
    var left = r.why.filter(function (w) { return w !== "a card to discard" && w !== "an action"; });
    return r.ok ? "" : left.join(", ");
  }
  function allows(mutate, kept) { return !blocked(mutate, kept); }

  // ---- the choices ------------------------------------------------------------------
  function drawTrade() {
    if (!O.trade) { return; }
    var fs = group(root, "Trader: a trade (once a season)", "1 for 1 with the stock, made " +
      (O.phase === "hire" ? "before your action" : O.phase === "attack" ? "before your attacks" : "before paying, or after the rewards"));
    var items = [{ value: "none", label: "No trade" }];
    ["grain", "silver"].forEach(function (give) {
      var other = give === "grain" ? "silver" : "grain";
      [1, 2, 3].forEach(function (k) {
        var value = give + "-" + k;
        var why = blocked(function (s) { s.trade = { give: give, count: k, at: s.trade ? s.trade.at : "payment" }; },
          function (s) { return !!s.trade && s.trade.give === give && s.trade.count === k; });
        items.push({ value: value, label: "Give " + k + " " + give + " for " + k + " " + other,
          disabled: !!why, why: why });
      });
    });
    picks(fs, "radio", "trade", items, function (v) {
      return v === "none" ? !S.trade : !!S.trade && v === S.trade.give + "-" + S.trade.count;
    }, function (v) {
      if (v === "none") { S.trade = null; return; }
      var parts = v.split("-");
      S.trade = { give: parts[0], count: Number(parts[1]), at: S.trade ? S.trade.at : "payment" };
    });
    if (O.phase === "economy" && S.trade) {
      picks(fs, "radio", "trade-at", [
        { value: "payment", label: "Before paying",
          disabled: !allows(function (s) { s.trade.at = "payment"; }) },
        { value: "decision", label: "After the rewards, before the decision",
          disabled: !allows(function (s) { s.trade.at = "decision"; }) }
      ], function (v) { return (S.trade.at || "payment") === v; }, function (v) { S.trade.at = v; });
    }
  }
  function drawGuard() {
    if (!O.guard) { return; }
    var fs = group(root, "Besella/Baroso: your guard", "Up to 3 grain and silver in all, kept from Famines and thieves; set once the rest of the order is done.");
    var g = ME.guard || {};
    picks(fs, "radio", "guard", [
      { value: "keep", label: "Keep the guard as it is (" + num(g.grain) + " grain, " + num(g.silver) + " silver)" },
      { value: "set", label: "Set the guard" }
    ], function (v) { return (v === "set") === S.guard.on; }, function (v) {
      S.guard.on = v === "set";
      if (S.guard.on) { S.guard.grain = num(g.grain); S.guard.silver = num(g.silver); }
    });
    if (S.guard.on) {
      var r = calc(Object.assign({}, S, { guard: { on: false } }));
      stepper(fs, "guard-grain", "Grain guarded", S.guard.grain, 0, Math.max(0, Math.min(3 - S.guard.silver, r.grain)),
        function (n) { S.guard.grain = n; });
      stepper(fs, "guard-silver", "Silver guarded", S.guard.silver, 0, Math.max(0, Math.min(3 - S.guard.grain, r.silver)),
        function (n) { S.guard.silver = n; });
    }
  }

  function drawHire() {
    var fs = group(root, "Your hire turn: one action", "Each card you may get, the least you may bid on it; or pass.");
    var items = (O.cards || []).map(function (c, i) {
      var name = cardName(c.card), text = cardText(c.card);
      var label = c.how === "bid" ? "Bid on " + name + " (from " + c.min_silver + " silver)"
        : c.how === "take" ? "Take " + name + " (free)" : "Claim " + name + " with a token";
      return { value: i, label: label + (text ? " — " + text : "") };
    });
    items.push({ value: "pass", label: "Pass" + (ME.ruler === COTARR ? " (and get 2 silver)" : "") });
    picks(fs, "radio", "action", items, function (v) { return String(S.pick) === String(v); }, function (v) {
      S.pick = v === "pass" ? "pass" : Number(v);
      S.silver = 0;
    });
    var c = chosenCard(S);
    if (c && c.how === "bid") {
      var bidFs = group(root, "Your bid on " + cardName(c.card), O.trade && O.max_silver > num(ME.silver)
        ? "A bid above your silver is paid by trading grain for silver with your Trader." : "");
      stepper(bidFs, "silver", "Silver", S.silver, c.min_silver, O.max_silver, function (n) { S.silver = n; });
    }
    if (c && c.discards) {
      var dFs = group(root, "Your Kingdom is full: discard one card", "The new card takes its place.");
      picks(dFs, "radio", "discard", c.discards.map(function (d) {
        return { value: d, label: cardName(d) };
      }), function (v) { return S.discard === v; }, function (v) { S.discard = v; });
    }
  }

  function drawAttack() {
    if (O.pickpocket) {
      var fs = group(root, "Pickpocket: 2 silver", "Take 1 silver from each of up to 2 opponents named; the rest from the stock.");
      picks(fs, "checkbox", "pp", [{ value: "use", label: "Use the Pickpocket" }],
        function () { return S.pp; }, function (v, on) { S.pp = on; if (!on) { S.targets = []; } });
      if (S.pp && O.pickpocket.length) {
        picks(fs, "checkbox", "pp-target", O.pickpocket.map(function (t) {
          return { value: t, label: "1 silver from " + seatName(t),
            disabled: S.targets.length >= 2 && S.targets.indexOf(Number(t)) < 0 };
        }), function (v) { return S.targets.indexOf(Number(v)) >= 0; }, function (v, on) {
          S.targets = S.targets.filter(function (x) { return x !== Number(v); });
          if (on) { S.targets.push(Number(v)); }
        });
      }
    }
    // what each opponent may still give (unguarded), after the Pickpocket and earlier uses
    var left = {};
    keys(T.boards).forEach(function (k) {
      var b = T.boards[k], gd = b.guard || {};
      left[k] = { grain: num(b.grain) - num(gd.grain), silver: num(b.silver) - num(gd.silver) };
      if (S.pp && S.targets.indexOf(Number(k)) >= 0) { left[k].silver -= 1; }
    });
    (O.evrathor || []).forEach(function (e) {
      var u = S.evr[e.card] || (S.evr[e.card] = { on: false, from: {} });
      var split = { none: "from one opponent at most", may: "may be split", must: "at most half from any one opponent" }[e.split] || "";
      var fs = group(root, cardName(e.card) + ": steal " + e.amount + " " + (e.steals === "stored" ? "stored grain" : e.steals),
        "Once, then it leaves your Kingdom; " + split + "; the rest comes from the stock.");
      picks(fs, "checkbox", "evr-" + safe(e.card), [{ value: "use", label: "Use it" }],
        function () { return u.on; }, function (v, on) { u.on = on; if (!on) { u.from = {}; } });
      if (!u.on) { return; }
      var sum = 0;
      keys(u.from).forEach(function (k) { sum += num(u.from[k]); });
      keys(e.from).forEach(function (k) {
        var cap = num(e.from[k]);
        if (e.steals !== "stored") { cap = Math.min(cap, Math.max(0, left[k] ? left[k][e.steals] : 0)); }
        var mine = num(u.from[k]);
        var hi = Math.max(mine, Math.min(cap, e.amount - (sum - mine)));
        stepper(fs, "evr-" + safe(e.card) + "-" + k, "From " + seatName(k), Math.min(mine, hi), 0, hi, function (n) {
          if (e.split === "none" && n > 0) { u.from = {}; }
          u.from[k] = n;
          if (!n) { delete u.from[k]; }
        });
      });
      keys(u.from).forEach(function (k) { if (left[k] && e.steals !== "stored") { left[k][e.steals] -= num(u.from[k]); } });
    });
  }

  function drawEconomy() {
    if ((O.pay || []).length) {
      var fs = group(root, "Pay your workers", "A paid worker earns its reward; an unpaid one earns nothing this season.");
      picks(fs, "checkbox", "pay", O.pay.map(function (p) {
        var why = blocked(function (s) { s.pay[p.card] = true; }, function (s) { return !!s.pay[p.card]; });
        return { value: p.card, label: "Pay " + cardName(p.card) + ": " + res(p.payment, ["grain", "silver"]) + " → " + res(p.reward),
          disabled: !!why, why: why };
      }), function (v) { return !!S.pay[v]; }, function (v, on) { S.pay[v] = on; if (!on) { delete S.pay[v]; } });
    }
    if ((O.free || []).length) {
      var ul = el("ul", { "class": "fnf-free" });
      O.free.forEach(function (f) { ul.appendChild(el("li", {}, cardName(f.card) + " earns " + res(f.reward) + " unpaid")); });
      group(root, "Workers that need no pay").appendChild(ul);
    }
    if ((O.double || []).length) {
      var dfs = group(root, "Philosopher: double one paid worker", "It is paid twice and earns twice.");
      var items = [{ value: "none", label: "Double nothing" }].concat(O.double.map(function (d) {
        var why = !S.pay[d] ? "pay it first" : blocked(function (s) { s.dbl = d; });
        return { value: d, label: "Double " + cardName(d), disabled: !!why, why: why };
      }));
      picks(dfs, "radio", "double", items, function (v) { return v === "none" ? !S.dbl : S.dbl === v; },
        function (v) { S.dbl = v === "none" ? null : v; });
    }
    if ((O.chysarion || []).length) {
      var cfs = group(root, "Chysarions to use", "Each gives its amount once and leaves; an unused one stays for a later season.");
      picks(cfs, "checkbox", "chys", O.chysarion.map(function (ch) {
        return { value: ch.card, label: "Use " + cardName(ch.card) + ": " + ch.amount + " " + (ch.gives === "stored" ? "stored grain" : ch.gives) };
      }), function (v) { return !!S.chys[v]; }, function (v, on) { S.chys[v] = on; if (!on) { delete S.chys[v]; } });
    }
    drawTrade();
    var r = calc(S);
    var dec = group(root, "Your decision", "One of these, after the rewards.");
    // normalize() turns an unaffordable store back into taking grain: say why
    var storeWhy = blocked(function (s) { s.decision = "store"; s.store = 1; }, function (s) { return s.decision === "store"; });
    if (storeWhy === "not with the rest of this order") {
      var after = calc(Object.assign(clone(S), { decision: "grain" }));
      storeWhy = after.silver < 1 ? "no silver left to pay for it" : "no grain left to store";
    }
    picks(dec, "radio", "decision", [
      { value: "grain", label: "Take 1 grain" },
      { value: "silver", label: "Take 1 silver" },
      { value: "store", label: "Store grain (costs 1 silver)",
        why: storeWhy, disabled: !!storeWhy }
    ], function (v) { return S.decision === v; }, function (v) { S.decision = v; });
    if (S.decision === "store") {
      stepper(dec, "store", "Grain to store", S.store, 1, Math.max(1, S.maxStore || r.grain), function (n) { S.store = n; });
    }
  }

  function draw() {
    root.textContent = "";
    if (O.phase === "hire") { drawHire(); drawTrade(); }
    else if (O.phase === "attack") { drawTrade(); drawAttack(); }
    else { drawEconomy(); }
    drawGuard();
  }

  // ---- the order and its words -------------------------------------------------------
  function order() {
    var o = {};
    if (S.trade) {
      o.trade = { give: S.trade.give, count: S.trade.count };
      if (O.phase === "economy") { o.trade.at = S.trade.at || "payment"; }
    }
    if (O.phase === "hire") {
      var c = chosenCard(S);
      if (S.pick === "pass") { o.action = "pass"; }
      else if (c) {
        o.action = c.how; o.card = c.card;
        if (c.how === "bid") { o.silver = S.silver; }
        if (c.discards) { o.discard = S.discard; }
      }
    } else if (O.phase === "attack") {
      if (S.pp) { o.pickpocket = S.targets.slice(); }
      var uses = (O.evrathor || []).filter(function (e) { return S.evr[e.card] && S.evr[e.card].on; });
      if (uses.length) {
        o.evrathor = uses.map(function (e) {
          var from = {};
          keys(e.from).forEach(function (k) { if (num(S.evr[e.card].from[k])) { from[k] = num(S.evr[e.card].from[k]); } });
          return { card: e.card, from: from };
        });
      }
    } else {
      var pay = (O.pay || []).filter(function (p) { return S.pay[p.card]; }).map(function (p) { return p.card; });
      if (pay.length) { o.pay = pay; }
      if (S.dbl) { o["double"] = S.dbl; }
      var ch = (O.chysarion || []).filter(function (c) { return S.chys[c.card]; }).map(function (c) { return c.card; });
      if (ch.length) { o.chysarion = ch; }
      o.decision = S.decision;
      if (S.decision === "store") { o.store = S.store; }
    }
    if (S.guard.on) { o.guard = { grain: S.guard.grain, silver: S.guard.silver }; }
    return o;
  }
  function tradeWords(t) {
    var other = t.give === "grain" ? "silver" : "grain";
    return "trade " + t.count + " " + t.give + " for " + t.count + " " + other +
      (O.phase === "economy" ? (t.at === "decision" ? " before the decision" : " before paying") : "");
  }
  function words(o) {
    var parts = [];
    if (o.trade) { parts.push(tradeWords(o.trade)); }
    if (O.phase === "hire") {
      if (o.action === "pass") { parts.push("pass"); }
      else if (o.action === "bid") { parts.push("bid " + o.silver + " silver on " + cardName(o.card)); }
      else if (o.action === "take") { parts.push("take " + cardName(o.card)); }
      else if (o.action === "claim") { parts.push("claim " + cardName(o.card) + " with a token"); }
      else { parts.push("no action chosen yet"); }
      if (o.discard) { parts.push("discard " + cardName(o.discard)); }
    } else if (O.phase === "attack") {
      if (o.pickpocket) {
        parts.push("Pickpocket: 2 silver" + (o.pickpocket.length ? ", 1 from " + o.pickpocket.map(seatName).join(" and ") : " from the stock"));
      }
      (o.evrathor || []).forEach(function (u) {
        var named = keys(u.from).map(function (k) { return u.from[k] + " from " + seatName(k); });
        parts.push(cardName(u.card) + ": " + (named.join(", ") || "all from the stock"));
      });
      if (!o.pickpocket && !o.evrathor && !o.trade) { parts.push("no attack"); }
    } else {
      parts.push(o.pay ? "pay " + o.pay.map(cardName).join(", ") : "pay no worker");
      if (o["double"]) { parts.push("double " + cardName(o["double"])); }
      if (o.chysarion) { parts.push("use " + o.chysarion.map(cardName).join(", ")); }
      parts.push(o.decision === "store" ? "store " + o.store + " grain for 1 silver" : "take 1 " + o.decision);
    }
    if (o.guard) { parts.push("guard " + o.guard.grain + " grain and " + o.guard.silver + " silver"); }
    return parts.join("; ");
  }
  function write() {
    var o = order();
    box.value = JSON.stringify(o);
    showTotal();
    summary.hidden = false;
    summary.textContent = "";
    summary.appendChild(el("strong", {}, "Your order: "));
    summary.appendChild(document.createTextNode(words(o) + "."));
    var r = calc(S);
    if (!r.ok) {
      summary.appendChild(el("br"));
      summary.appendChild(document.createTextNode("Still to choose: " + r.why.join(", ") + "."));
    }
  }
  function showTotal() {
    var r = calc(S);
    total.hidden = false;
    total.textContent = "";
    total.dataset.grain = String(r.grain);
    total.dataset.silver = String(r.silver);
    total.dataset.stored = r.stored === null ? "" : String(r.stored);
    total.appendChild(el("strong", {}, "You will have: "));
    var stored = r.stored === null ? (r.gainStored ? r.gainStored + " more stored grain" : "")
      : r.stored + " stored grain";
    total.appendChild(document.createTextNode(r.grain + " grain, " + r.silver + " silver" + (stored ? ", " + stored : "") +
      (O.phase === "hire" ? " (a bid’s silver comes back if you are outbid)" : "") + "."));
  }

  // ---- the order in the box (sent and refused, or stored) as choices again ---------------------
  function canon(x) {
    if (Array.isArray(x)) { return "[" + x.map(canon).join(",") + "]"; }
    if (x && typeof x === "object") {
      return "{" + keys(x).sort().filter(function (k) { return x[k] !== undefined && x[k] !== null; })
        .map(function (k) { return JSON.stringify(k) + ":" + canon(x[k]); }).join(",") + "}";
    }
    return JSON.stringify(x);
  }
  function low(c) { return typeof c === "string" ? c.trim().toLowerCase() : c; }
  function restore() {
    var sent;
    try { sent = JSON.parse(box.value); } catch (e) { return; }
    if (!sent || typeof sent !== "object" || Array.isArray(sent)) { return; }
    S = fresh();
    if (sent.trade && typeof sent.trade === "object") {
      S.trade = { give: sent.trade.give, count: sent.trade.count, at: sent.trade.at || "payment" };
    }
    if (sent.guard && typeof sent.guard === "object") {
      S.guard = { on: true, grain: num(sent.guard.grain), silver: num(sent.guard.silver) };
    }
    var norm = clone(sent);
    if (O.phase === "hire") {
      if (sent.action === "pass") { S.pick = "pass"; }
      (O.cards || []).forEach(function (c, i) {
        if (c.card === low(sent.card) && c.how === sent.action) { S.pick = i; }
      });
      S.silver = num(sent.silver);
      S.discard = low(sent.discard) || null;
      norm.card = low(norm.card); norm.discard = low(norm.discard);
    } else if (O.phase === "attack") {
      if (Array.isArray(sent.pickpocket)) { S.pp = true; S.targets = sent.pickpocket.map(Number); }
      (Array.isArray(sent.evrathor) ? sent.evrathor : []).forEach(function (u) {
        if (u && typeof u === "object") { S.evr[low(u.card)] = { on: true, from: clone(u.from || {}) }; }
      });
      if (Array.isArray(norm.evrathor)) {
        norm.evrathor = norm.evrathor.map(function (u) { return { card: low(u && u.card), from: (u && u.from) || {} }; });
      }
    } else {
      (Array.isArray(sent.pay) ? sent.pay : []).forEach(function (c) { S.pay[low(c)] = true; });
      S.dbl = low(sent["double"]) || null;
      (Array.isArray(sent.chysarion) ? sent.chysarion : []).forEach(function (c) { S.chys[low(c)] = true; });
      S.decision = sent.decision;
      S.store = num(sent.store) || 1;
      if (norm.trade && typeof norm.trade === "object" && !norm.trade.at) { norm.trade.at = "payment"; }
      ["pay", "chysarion"].forEach(function (k) {
        if (Array.isArray(norm[k])) { norm[k] = norm[k].map(low); if (!norm[k].length) { delete norm[k]; } }
      });
      norm["double"] = low(norm["double"]);
    }
    if (norm.guard && typeof norm.guard === "object") {
      norm.guard = { grain: num(norm.guard.grain), silver: num(norm.guard.silver) };
    }
    var before = canon(order());
    draw();
    if (canon(order()) === canon(norm) && before === canon(norm)) {
      write();  // the same order: its summary and total show; the box keeps its meaning
    } else {
      S = fresh();  // the choices could not say it: start afresh, the box keeps it
      draw();
      showTotal();
    }
  }

  root.hidden = false;
  var hint = document.getElementById("fnf-turn-hint");
  if (hint) { hint.hidden = false; }
  form.classList.add("fnf-scripted");
  if (jsonBox && !jsonBox.classList.contains("fnf-invalid")) { jsonBox.open = false; }
  normalize(S);
  draw();
  // an order already in the box (sent and refused, or stored) is shown as
  // choices again; else the order as it stands (an economy order with nothing
  // chosen is complete: pay no one, take 1 grain), so the summary and the box
  // say what would be sent before anything is tapped
  if (box.value.trim()) { restore(); } else { write(); }
}());
