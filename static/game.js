/* The game page: board clicks submit moves, and the page follows the game by itself.
 *
 * Every 3 s (slower when nobody touches the page for a minute, and when the tab is hidden) it
 * asks GET /games/<id>/live/ — a conditional GET that the server answers 304 while the game's
 * version, status and chat are unchanged. On a change, and when the player is not in the middle
 * of something, it fetches the page again and swaps the live part, then shows an "Updated" hint.
 */
(function () {
  "use strict";
  var live = document.getElementById("game-live");
  if (!live) return;
  var hint = document.getElementById("update-hint");
  var BASE = 3000, HIDDEN_MAX = 60000, VISIBLE_MAX = 30000, idle = 0;
  var delay = BASE, timer = null, sending = false, lastPointer = 0, inflight = false;

  function state() {
    live = document.getElementById("game-live");
    return { version: live.getAttribute("data-version"), status: live.getAttribute("data-status"),
             chat: live.getAttribute("data-chat"), url: live.getAttribute("data-live") };
  }

  /* ---- moves: buttons and clicks on the board.
   * With "Confirm each move" (the player's setting, on by default) a tap selects a move and
   * highlights it on the board; Confirm plays it, Cancel or Escape forgets it. */
  var selected = null, chosenFrom = null;
  function confirming() { return live.getAttribute("data-confirm-moves") === "1"; }
  function select(form) {
    unselect();
    selected = form;
    chosenFrom = document.activeElement;  // the move button or board piece it was chosen with
    var btn = form.querySelector("button.move");
    if (btn) { btn.classList.add("is-selected"); btn.setAttribute("aria-pressed", "true"); }
    var note = norm(form.querySelector("input[name=notation]").value);
    live.querySelectorAll("#board [data-notation]").forEach(function (el) {
      el.classList.toggle("is-selected", norm(el.getAttribute("data-notation")) === note);
    });
    var bar = document.getElementById("confirm-bar");
    if (bar) {
      var label = form.querySelector(".move-label");
      document.getElementById("confirm-label").textContent = label ? label.textContent.trim() : note;
      bar.hidden = false;
      var ok = document.getElementById("confirm-move");
      if (ok) ok.focus({ preventScroll: true });
    }
  }
  function unselect() {
    selected = null;
    live.querySelectorAll(".is-selected").forEach(function (el) { el.classList.remove("is-selected"); el.removeAttribute("aria-pressed"); });
    var bar = document.getElementById("confirm-bar");
    if (bar) bar.hidden = true;
  }
  function play(form) {
    form.setAttribute("data-confirmed", "1");
    if (form.requestSubmit) form.requestSubmit(); else { form.dispatchEvent(new Event("submit", { cancelable: true })); form.submit(); }
  }
  /* Cancel and Escape give the keyboard back to the move that was chosen: focus was on Confirm,
   * which hides, and would otherwise fall to the top of the page. */
  function cancel() {
    var back = chosenFrom && live.contains(chosenFrom) ? chosenFrom : selected && selected.querySelector("button.move");
    unselect();
    if (back) back.focus({ preventScroll: true });
  }
  document.addEventListener("click", function (ev) {
    var t = ev.target.closest && ev.target.closest("#confirm-move, #cancel-move");
    if (!t) return;
    ev.preventDefault();
    if (t.id !== "confirm-move" || !selected) cancel();
    // The Confirm bar opens where the tapped move was: the second tap of a double tap is no Confirm.
    else if (!(ev.detail > 1)) play(selected);
  });
  document.addEventListener("keydown", function (ev) { if (ev.key === "Escape" && selected) cancel(); });

  document.addEventListener("submit", function (ev) {
    if (ev.defaultPrevented) return;
    var form = ev.target;
    if (!live.contains(form)) return;
    if (form.classList.contains("move-form") && confirming() && !form.hasAttribute("data-confirmed")) {
      ev.preventDefault();
      select(form);
      return;
    }
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

  /* Pieces and cards of the board that are one of my moves now become buttons (Tab reaches them
   * in the board's order), named by the move's label as the move list says it. */
  function markBoard() {
    var forms = legalForms();
    live.querySelectorAll("#board [data-notation]").forEach(function (el) {
      var form = forms[norm(el.getAttribute("data-notation"))];
      el.classList.toggle("is-legal", !!form);
      if (form) {
        var label = form.querySelector(".move-label") || form.querySelector("input[name=notation]");
        el.setAttribute("tabindex", "0");
        el.setAttribute("role", "button");
        el.setAttribute("aria-label", (label.textContent || label.value).trim().replace(/\s+/g, " "));
      } else {
        ["tabindex", "role", "aria-label"].forEach(function (a) { el.removeAttribute(a); });
      }
    });
    // A board drawn as one picture (<svg role="img">) makes everything in it a part of that
    // picture for screen readers: while it holds buttons it is a named group instead.
    live.querySelectorAll("#board [role=img], #board [data-role-was]").forEach(function (pic) {
      var holds = !!pic.querySelector(".is-legal");
      if (holds && pic.getAttribute("role") === "img") { pic.setAttribute("data-role-was", "img"); pic.setAttribute("role", "group"); }
      else if (!holds && pic.hasAttribute("data-role-was")) { pic.setAttribute("role", pic.getAttribute("data-role-was")); pic.removeAttribute("data-role-was"); }
    });
  }

  function boardMove(ev) {
    var el = ev.target.closest && ev.target.closest("#board [data-notation]");
    if (!el || sending) return;
    var form = legalForms()[norm(el.getAttribute("data-notation"))];
    if (!form) return;  // not one of my moves now (or I am watching): the board is only a picture
    ev.preventDefault();
    if (confirming()) select(form); else play(form);
  }
  document.addEventListener("click", boardMove);
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Enter" || ev.key === " ") boardMove(ev);
  });

  /* Phones: a board drawn for a wide screen shrinks until its text is unreadable and its spaces
   * too small for a finger. Widen it (it scrolls sideways inside its card) until its smallest
   * text is 12 px and its smallest move target 44 px, at most 3 times the card's width. */
  var MIN_TEXT = 12, MIN_TAP = 44, MAX_WIDEN = 3;
  function fitBoards() {
    var wide = window.innerWidth >= 960;  // a tablet turned sideways: a board widened before fits again
    live.querySelectorAll("#board svg").forEach(function (svg) {
      var wa = svg.getAttribute("width");
      if (wa && !/%$/.test(wa)) return;  // small drawings with their own size (symbols, a card's arrow) keep it
      svg.classList.remove("is-widened"); svg.style.width = ""; svg.style.maxWidth = "";
      if (wide) return;
      var base = svg.getBoundingClientRect().width;
      if (!base) return;
      var need = 1;
      svg.querySelectorAll("text").forEach(function (t) {
        if (!t.textContent.trim() || !t.getScreenCTM()) return;
        var px = parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a;
        if (px > 0) need = Math.max(need, MIN_TEXT / px);
      });
      svg.querySelectorAll("[data-notation]").forEach(function (el) {
        var r = el.getBoundingClientRect(), side = Math.min(r.width, r.height);
        if (side > 0) need = Math.max(need, MIN_TAP / side);
      });
      if (need > 1.01) {
        svg.classList.add("is-widened");
        svg.style.maxWidth = "none";  // a board's own inline max-width must not cap it
        svg.style.width = Math.ceil(base * Math.min(need, MAX_WIDEN)) + "px";
      }
    });
  }
  window.addEventListener("load", function () { fitBoards(); });  // after fonts and images settle
  window.addEventListener("resize", function () { clearTimeout(fitBoards.t); fitBoards.t = setTimeout(fitBoards, 200); });

  /* Phones: the move bar is fixed at the bottom; the page is padded by its height (kinplay.css,
   * --bar-height), measured again whenever it changes (more moves, the Confirm bar, a new page). */
  var barSize = window.ResizeObserver ? new ResizeObserver(fitBar) : null;
  function fitBar() {
    var bar = live.querySelector(".moves-area--bar");
    var fixed = bar && getComputedStyle(bar).position === "fixed";
    document.documentElement.style.setProperty("--bar-height", fixed ? Math.ceil(bar.getBoundingClientRect().height) + "px" : "0px");
  }
  function watchBar() {
    if (barSize) barSize.disconnect();
    var bar = live.querySelector(".moves-area--bar");
    if (bar && barSize) barSize.observe(bar);
    fitBar();
  }
  window.addEventListener("resize", fitBar);

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

  /* "New since you last looked": log lines after the version this device last showed are marked
   * (kept per game in localStorage: no server work; a replay neither marks nor moves it). */
  var seenAtLoad;  // the marker stays where it was when the page opened, while it stays open
  function markNew() {
    if (live.hasAttribute("data-history")) return;
    var key = "kinplay:seen:" + live.getAttribute("data-game"), now = live.getAttribute("data-version");
    if (seenAtLoad === undefined) {
      try { seenAtLoad = window.localStorage.getItem(key); } catch (e) { return; }
      if (seenAtLoad === null) seenAtLoad = now;  // a first visit marks nothing: all of it is new
    }
    var seen = seenAtLoad;
    var first = null;
    live.querySelectorAll(".log li[data-seq]").forEach(function (li) {
      if (+li.getAttribute("data-seq") > +seen) { li.classList.add("is-new"); first = li; }
    });
    if (first) first.insertAdjacentHTML("afterend", '<li class="log-seen-marker" aria-label="Above: new since you last looked"><span>new since you last looked</span></li>');
    try { window.localStorage.setItem(key, now); } catch (e) {}
  }

  /* Replay: arrow keys step through the history (the links carry the keys they answer). */
  document.addEventListener("keydown", function (ev) {
    if (!live.hasAttribute("data-history") || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    var a = document.activeElement;
    if (a && /^(INPUT|SELECT|TEXTAREA)$/.test(a.tagName)) return;
    var link = document.querySelector('#replay-nav a[data-key="' + ev.key + '"]');
    if (link) { ev.preventDefault(); window.location.href = link.href; }
  });
  /* The current event in sight inside the log's own box; never the page (on a phone the log is at
   * the bottom, far from the board and the replay controls). */
  var current = live.querySelector(".log li.is-current"), logBox = current && current.closest(".log");
  if (logBox) {
    var cr = current.getBoundingClientRect(), br = logBox.getBoundingClientRect();
    if (cr.top < br.top || cr.bottom > br.bottom) logBox.scrollTop += cr.top - br.top - (br.height - cr.height) / 2;
  }

  markBoard();
  fitBoards();
  watchBar();
  markNew();

  ["pointerdown", "keydown", "touchstart"].forEach(function (t) {
    document.addEventListener(t, function () {
      lastPointer = Date.now();
      if (idle > 20) { idle = 0; delay = BASE; schedule(); }  // someone is here again: back to 3 s
    }, { passive: true });
  });

  /* ---- following the game */
  function busy() {
    if (sending || selected) return true;  // a move chosen and not yet confirmed: not swapped under the finger
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
        // Where the player was reading: the action bar (it scrolls on a phone) and a board wider than its card.
        var bar = live.querySelector(".moves-area"), barScroll = bar ? bar.scrollTop : 0;
        if (fresh.getAttribute("data-version") !== live.getAttribute("data-version")) barScroll = 0;  // new moves: from the top
        var board = live.querySelector("#board"), boardScroll = board ? board.scrollLeft : 0;
        var fair = live.querySelector(".fairness"), fairOpen = fair && fair.open;
        var focused = window.kinplayFocusKey ? window.kinplayFocusKey(live) : null;
        live.replaceWith(fresh);
        live = fresh;
        var nlog = live.querySelector(".log"); if (nlog) nlog.scrollTop = logScroll;
        var nfair = live.querySelector(".fairness"); if (nfair && fairOpen) nfair.open = true;
        document.title = live.getAttribute("data-title") || document.title;
        if (window.kinplaySyncBadges) window.kinplaySyncBadges(doc);
        window.scrollTo(0, scroll);
        markBoard();
        fitBoards();
        watchBar();
        var nbar = live.querySelector(".moves-area"); if (nbar) nbar.scrollTop = barScroll;
        var nboard = live.querySelector("#board"); if (nboard) nboard.scrollLeft = boardScroll;
        if (window.kinplayRefocus) window.kinplayRefocus(live, focused);
        markNew();
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
    if (s.status === "aborted") return;  // nothing more will happen (a finished game still has its chat)
    if (live.hasAttribute("data-history")) return;  // a replay stays where the reader put it
    if (inflight) return schedule();
    inflight = true;
    // A conditional GET: the browser revalidates with the ETag (version, status, chat) and the
    // server answers 304 without a body while nothing changed.
    fetch(s.url, { credentials: "same-origin", cache: "no-cache", headers: { "Accept": "application/json" } })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (g) {
        if (String(g.version) !== s.version || g.status !== s.status || String(g.chat) !== s.chat) {
          if (busy()) { delay = 1000; return; }
          delay = BASE; idle = 0;
          return refresh();
        }
        // Idle: a visible tab asks every 3 s for a minute, then slower (up to 30 s); a hidden one up to 60 s.
        idle += 1;
        delay = document.hidden ? Math.min(Math.max(delay * 2, 10000), HIDDEN_MAX)
          : (idle > 20 ? Math.min(delay * 1.5, VISIBLE_MAX) : BASE);
      })
      .catch(function () { delay = Math.min(delay * 2, HIDDEN_MAX); })
      .then(function () { inflight = false; schedule(); });
  }

  document.addEventListener("visibilitychange", function () {
    if (!document.hidden) { delay = BASE; idle = 0; clearTimeout(timer); poll(); }
  });
  window.addEventListener("pageshow", function (ev) { if (ev.persisted) { sending = false; unselect(); poll(); } });
  schedule();
})();
