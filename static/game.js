/* The game page: board clicks submit moves, and the page follows the game by itself.
 *
 * Every 3 s (slower when the tab is hidden) it asks GET /api/games/<id>/ for the
 * version; when it changed, and the player is not in the middle of something, it
 * fetches the page again and swaps the live part, then shows a small "Updated" hint.
 */
(function () {
  "use strict";
  var live = document.getElementById("game-live");
  if (!live) return;
  var hint = document.getElementById("update-hint");
  var BASE = 3000, HIDDEN_MAX = 60000;
  var delay = BASE, timer = null, sending = false, lastPointer = 0, inflight = false;

  function state() {
    live = document.getElementById("game-live");
    return { version: live.getAttribute("data-version"), status: live.getAttribute("data-status"), api: live.getAttribute("data-api") };
  }

  /* ---- moves: buttons and clicks on the board */
  document.addEventListener("submit", function (ev) {
    if (ev.defaultPrevented) return;
    var form = ev.target;
    if (!live.contains(form)) return;
    sending = true;
    form.querySelectorAll("button").forEach(function (b) { b.disabled = true; });
    var moves = document.getElementById("moves");
    if (moves) moves.classList.add("is-sending");
  });

  function norm(text) { return String(text || "").trim().replace(/\s+/g, " ").toLowerCase(); }

  /* The move forms by notation, as the server compares them (case and spaces ignored). */
  function legalForms() {
    var forms = {};
    live.querySelectorAll("form.move-form").forEach(function (f) {
      forms[norm(f.querySelector("input[name=notation]").value)] = f;
    });
    return forms;
  }

  /* Pieces and cards of the board that are one of my moves now become clickable. */
  function markBoard() {
    var forms = legalForms();
    live.querySelectorAll("#board [data-notation]").forEach(function (el) {
      var form = forms[norm(el.getAttribute("data-notation"))];
      el.classList.toggle("is-legal", !!form);
      if (form) {
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "button");
        var label = form.querySelector(".move-label");
        if (label) el.setAttribute("aria-label", label.textContent.trim());
      }
    });
  }

  function boardMove(ev) {
    var el = ev.target.closest && ev.target.closest("#board [data-notation]");
    if (!el || sending) return;
    var form = legalForms()[norm(el.getAttribute("data-notation"))];
    if (!form) return;  // not one of my moves now (or I am watching): the board is only a picture
    ev.preventDefault();
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  }
  document.addEventListener("click", boardMove);
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" || ev.key === " ") boardMove(ev);
  });

  /* Relative times ("in 2 days") stay true while the page is open. */
  var UNITS = [[604800, "week"], [86400, "day"], [3600, "hour"], [60, "minute"]];
  function amount(s) {
    s = Math.abs(s);
    if (s < 45) return s > 5 ? "a few seconds" : "a moment";
    for (var i = 0; i < UNITS.length; i++) {
      if (s >= UNITS[i][0]) {
        var n = UNITS[i][0] >= 86400 ? Math.round(s / UNITS[i][0]) : Math.floor(s / UNITS[i][0]);
        return n + " " + UNITS[i][1] + (n === 1 ? "" : "s");
      }
    }
    return Math.floor(s) + " seconds";
  }
  function tick() {
    live.querySelectorAll("time[data-relative]").forEach(function (t) {
      var s = (Date.parse(t.getAttribute("datetime")) - Date.now()) / 1000;
      if (isNaN(s)) return;
      t.textContent = Math.abs(s) < 45 ? (s <= 0 ? "now" : "in a few seconds") : (s > 0 ? "in " + amount(s) : amount(s) + " ago");
    });
  }
  setInterval(tick, 15000);
  markBoard();

  ["pointerdown", "keydown", "touchstart"].forEach(function (t) {
    document.addEventListener(t, function () { lastPointer = Date.now(); }, { passive: true });
  });

  /* ---- following the game */
  function busy() {
    if (sending) return true;
    var a = document.activeElement;
    if (a && /^(INPUT|SELECT|TEXTAREA)$/.test(a.tagName) && a.type !== "hidden") return true;
    var sel = window.getSelection && window.getSelection();
    if (sel && !sel.isCollapsed && String(sel).trim()) return true;
    return Date.now() - lastPointer < 1500;
  }

  function showHint(text) {
    if (!hint) return;
    hint.textContent = text || "Updated";
    hint.hidden = false;
    requestAnimationFrame(function () { hint.classList.add("is-shown"); });
    clearTimeout(showHint.t);
    showHint.t = setTimeout(function () {
      hint.classList.remove("is-shown");
      setTimeout(function () { hint.hidden = true; }, 400);
    }, 2500);
  }

  function refresh() {
    return fetch(window.location.pathname, { credentials: "same-origin", headers: { "X-Requested-With": "fetch" } })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.text(); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("game-live");
        if (!fresh) throw new Error("no live region");
        if (busy()) return false;
        var scroll = window.scrollY;
        var log = live.querySelector(".log"), logScroll = log ? log.scrollTop : 0;
        var fair = live.querySelector(".fairness"), fairOpen = fair && fair.open;
        live.replaceWith(fresh);
        live = fresh;
        var nlog = live.querySelector(".log"); if (nlog) nlog.scrollTop = logScroll;
        var nfair = live.querySelector(".fairness"); if (nfair && fairOpen) nfair.open = true;
        document.title = live.getAttribute("data-title") || document.title;
        window.scrollTo(0, scroll);
        markBoard();
        var me = live.querySelector(".turn-banner--me");
        showHint(me ? (me.getAttribute("data-hint") || "Your turn") : "Updated");
        return true;
      })
      .catch(function () { window.location.reload(); });
  }

  function schedule() {
    clearTimeout(timer);
    timer = setTimeout(poll, delay);
  }

  function poll() {
    var s = state();
    if (s.status === "finished" || s.status === "aborted") return;  // nothing more will happen
    if (live.hasAttribute("data-history")) return;  // a replay stays where the reader put it
    if (inflight) return schedule();
    inflight = true;
    fetch(s.api, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (g) {
        if (String(g.version) !== s.version || g.status !== s.status) {
          if (busy()) { delay = 1000; return; }
          delay = BASE;
          return refresh();
        }
        delay = document.hidden ? Math.min(Math.max(delay * 2, 10000), HIDDEN_MAX) : BASE;
      })
      .catch(function () { delay = Math.min(delay * 2, HIDDEN_MAX); })
      .then(function () { inflight = false; schedule(); });
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) { delay = BASE; clearTimeout(timer); poll(); }
  });
  window.addEventListener("pageshow", function (ev) { if (ev.persisted) { sending = false; poll(); } });
  schedule();
})();
