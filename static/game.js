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

  /* The board's pictures fit the card (kinplay.css scales them through their viewBox); the player
   * zooms in with the + and - buttons or two fingers on a phone, and pans by scrolling the card.
   * The zoom outlives the page's updates. */
  var zoom = 1, ZOOM_MAX = 4;
  var wide = window.matchMedia("(min-width: 960px)");  // kinplay.css: the move bar beside the board
  function pictures() { return live.querySelectorAll("#board svg[aria-describedby]"); }
  /* On a wide screen the pictures drawn above the player's hand are capped lower (down to
   * PICTURE_MIN px high) until the hand's last row ends inside the window, as the page opens:
   * the question beside the board and the hand are then seen together, without scrolling. */
  var PICTURE_MIN = 150, WINDOW_MARGIN = 8;
  function fitHand(board) {
    board.style.removeProperty("--board-max");
    var hand = board.querySelector(".kp-hand");
    if (!hand || !wide.matches) return;
    var above = [].filter.call(pictures(), function (svg) {
      return svg.compareDocumentPosition(hand) & Node.DOCUMENT_POSITION_FOLLOWING;
    });
    for (var i = 0; i < 3 && above.length; i++) {
      var over = hand.getBoundingClientRect().bottom + window.scrollY + WINDOW_MARGIN - window.innerHeight;
      if (over <= 0) return;
      var tallest = Math.max.apply(null, above.map(function (svg) { return svg.getBoundingClientRect().height; }));
      var cap = Math.max(PICTURE_MIN, Math.floor(tallest - over / above.length));
      board.style.setProperty("--board-max", cap + "px");
      if (cap === PICTURE_MIN) return;
    }
  }
  function fitBoards() {
    var board = live.querySelector("#board");
    if (!board) return;
    board.classList.remove("is-zoomed");  // measured as fitted: the card's width, or less when the screen's height caps it
    var svgs = pictures();
    // the page's size for them, not a kind's own (Karenza's max-width), before the hand is measured under them
    [].forEach.call(svgs, function (svg) { svg.style.width = ""; svg.style.maxWidth = ""; });
    fitHand(board);
    var widths = [].map.call(svgs, function (svg) {
      var vb = svg.viewBox && svg.viewBox.baseVal, cap = parseFloat(getComputedStyle(svg).maxHeight);
      var fit = board.clientWidth;
      if (vb && vb.width && vb.height && cap > 0) fit = Math.min(fit, cap * vb.width / vb.height);
      return [svg, Math.round(fit * zoom)];
    });
    if (zoom > 1) {
      board.classList.add("is-zoomed");
      widths.forEach(function (w) { w[0].style.width = w[1] + "px"; });
    }
    var out = live.querySelector('[data-zoom="-1"]'), inn = live.querySelector('[data-zoom="1"]');
    if (out) out.disabled = zoom <= 1;
    if (inn) inn.disabled = zoom >= ZOOM_MAX;
    var level = document.getElementById("zoom-level");
    if (level) level.textContent = zoom > 1 ? "zoomed " + (Math.round(zoom * 10) / 10) + "\u00d7" : "";
  }
  /* Zoom to z keeping the board's point under (x, y) (client coordinates; the card's middle when
   * none) where it was. */
  function zoomTo(z, x, y) {
    var board = live.querySelector("#board");
    if (!board) return;
    z = Math.max(1, Math.min(ZOOM_MAX, z));
    var r = board.getBoundingClientRect();
    if (x === undefined) { x = r.left + r.width / 2; y = r.top + Math.min(r.height, window.innerHeight) / 2; }
    var px = board.scrollLeft + x - r.left, py = board.scrollTop + y - r.top, k = z / zoom;
    zoom = z;
    fitBoards();
    board.scrollLeft = px * k - (x - r.left);
    board.scrollTop = py * k - (y - r.top);
  }
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("[data-zoom]");
    if (!b || !live.contains(b)) return;
    zoomTo(+b.getAttribute("data-zoom") > 0 ? zoom * 1.5 : (zoom / 1.5 < 1.1 ? 1 : zoom / 1.5));
  });
  var pinch = null;
  function spread(t) { return Math.hypot(t[0].clientX - t[1].clientX, t[0].clientY - t[1].clientY); }
  document.addEventListener("touchstart", function (ev) {
    if (ev.touches.length !== 2 || !(ev.target.closest && ev.target.closest("#board"))) { pinch = null; return; }
    pinch = { d: spread(ev.touches), z: zoom };
  }, { passive: true });
  document.addEventListener("touchmove", function (ev) {
    if (!pinch || ev.touches.length !== 2) return;
    ev.preventDefault();  // the board zooms, not the page
    var t = ev.touches;
    zoomTo(pinch.z * spread(t) / pinch.d, (t[0].clientX + t[1].clientX) / 2, (t[0].clientY + t[1].clientY) / 2);
  }, { passive: false });
  document.addEventListener("touchend", function (ev) { if (ev.touches.length < 2) pinch = null; }, { passive: true });
  window.addEventListener("resize", function () { clearTimeout(fitBoards.t); fitBoards.t = setTimeout(fitBoards, 200); });

  /* Phones: the action bar folds to its question (Hide / Show moves); the choice is kept on this
   * device for every game, as a player who folds it wants the board in view. */
  var FOLD_KEY = "kinplay:bar-folded";
  function folded() { try { return window.localStorage.getItem(FOLD_KEY) === "1"; } catch (e) { return false; } }
  function showFold() {
    var moves = live.querySelector("#moves"), btn = document.getElementById("bar-toggle");
    if (!moves || !btn) return;
    moves.classList.toggle("is-folded", folded());
    btn.setAttribute("aria-expanded", folded() ? "false" : "true");
  }
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest && ev.target.closest("#bar-toggle");
    if (!b) return;
    try { window.localStorage.setItem(FOLD_KEY, folded() ? "0" : "1"); } catch (e) {}
    showFold();
    fitBar();
  });

  /* Phones: the move bar is fixed at the bottom; the page is padded by its height (kinplay.css,
   * --bar-height), measured again whenever it changes (more moves, the Confirm bar, a new page). */
  var barSize = window.ResizeObserver ? new ResizeObserver(fitBar) : null;
  function fitBar() {
    var bar = live.querySelector(".moves-area--bar");
    var fixed = bar && getComputedStyle(bar).position === "fixed";
    document.documentElement.style.setProperty("--bar-height", fixed ? Math.ceil(bar.getBoundingClientRect().height) + "px" : "0px");
    fitMoves(bar && !fixed ? bar : null);
  }
  /* Beside the board (wide screens) the move list scrolls in its card, ending inside the window
   * where the page opens; measured from the side column, which does not stick as the bar does. */
  var MOVES_MIN = 180, CARD_END = 30;
  function fitMoves(bar) {
    var list = bar && bar.querySelector(".move-list"), side = bar && bar.parentElement;
    if (!list || !side) { document.documentElement.style.removeProperty("--moves-max"); return; }
    var top = side.getBoundingClientRect().top + window.scrollY + list.getBoundingClientRect().top - bar.getBoundingClientRect().top;
    document.documentElement.style.setProperty("--moves-max", Math.max(MOVES_MIN, Math.floor(window.innerHeight - top - CARD_END)) + "px");
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

  /* "New since you last looked": log lines after the version the player's last look showed
   * (data-seen: kept per player on the server, kinplay.notifications.presence) are marked, but
   * not their own moves (data-own); a replay neither marks nor moves it. */
  var seenAtLoad;  // the marker stays where it was when the page opened, while it stays open
  function markNew() {
    if (live.hasAttribute("data-history")) return;
    if (seenAtLoad === undefined) {
      seenAtLoad = live.getAttribute("data-seen");
      if (!+seenAtLoad) seenAtLoad = live.getAttribute("data-version");  // a first visit marks nothing: all of it is new
    }
    var seen = seenAtLoad;
    var first = null;
    live.querySelectorAll(".log li[data-seq]").forEach(function (li) {
      if (+li.getAttribute("data-seq") > +seen && !li.hasAttribute("data-own")) { li.classList.add("is-new"); first = li; }
    });
    if (first) first.insertAdjacentHTML("afterend", '<li class="log-seen-marker" aria-label="Above: new since you last looked"><span>new since you last looked</span></li>');
    showNews();
  }

  /* The log's lines marked new, at the top of the page (the log is at the bottom on a phone):
   * the newest in one line, all of them when opened. */
  function showNews() {
    var box = live.querySelector("#since-look");
    if (!box) return;
    var fresh = [].slice.call(live.querySelectorAll(".log li.is-new .log-text"));
    box.hidden = !fresh.length;
    if (!fresh.length) return;
    box.querySelector(".since-look-latest").textContent = fresh[0].textContent.trim();
    box.querySelector(".since-look-more").textContent = fresh.length > 1 ? "(and " + (fresh.length - 1) + " more)" : "";
    var list = box.querySelector(".since-look-lines");
    list.textContent = "";
    fresh.slice().reverse().forEach(function (a) {  // oldest first, as they happened
      var li = document.createElement("li");
      li.textContent = a.textContent.trim();
      list.appendChild(li);
    });
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
  showFold();
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
        var board = live.querySelector("#board"), boardScroll = board ? board.scrollLeft : 0, boardTop = board ? board.scrollTop : 0;
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
        showFold();
        watchBar();
        var nbar = live.querySelector(".moves-area"); if (nbar) nbar.scrollTop = barScroll;
        var nboard = live.querySelector("#board"); if (nboard) { nboard.scrollLeft = boardScroll; nboard.scrollTop = boardTop; }
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
