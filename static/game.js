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

  document.addEventListener("click", function (ev) {
    var el = ev.target.closest("#board [data-notation]");
    if (!el || sending) return;
    var form = document.getElementById("board-move-form");
    if (!form) return;  // not my move (or a spectator): the board is only a picture
    ev.preventDefault();
    form.querySelector("input[name=notation]").value = el.getAttribute("data-notation");
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  });

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
        showHint(live.querySelector(".turn-banner--me") ? "Your turn" : "Updated");
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
