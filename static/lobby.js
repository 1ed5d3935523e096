/* The lobby follows the player's games by itself: a conditional GET of /lobby/live/ (304 while
 * nothing changed) every 10 s while the tab is visible, slower when hidden; on a change the
 * lobby is fetched again and swapped in place, unless the player is typing or pointing. */
(function () {
  "use strict";
  var live = document.getElementById("lobby-live");
  if (!live) return;
  var BASE = 10000, HIDDEN = 60000, timer = null, lastPointer = 0;
  ["pointerdown", "keydown", "touchstart"].forEach(function (t) {
    document.addEventListener(t, function () { lastPointer = Date.now(); }, { passive: true });
  });
  function busy() {
    var a = document.activeElement;
    return (a && /^(INPUT|SELECT|TEXTAREA)$/.test(a.tagName)) || Date.now() - lastPointer < 1500;
  }
  function schedule() { clearTimeout(timer); timer = setTimeout(poll, document.hidden ? HIDDEN : BASE); }
  function poll() {
    fetch(live.getAttribute("data-live"), { credentials: "same-origin", cache: "no-cache" })
      .then(function (r) { if (!r.ok) throw new Error(r.status); return r.json(); })
      .then(function (d) {
        if (d.mark === live.getAttribute("data-mark") || busy()) return;
        return fetch(window.location.pathname + window.location.search, { credentials: "same-origin" })  // ?finished=all stays
          .then(function (r) { return r.text(); })
          .then(function (html) {
            var doc = new DOMParser().parseFromString(html, "text/html"), fresh = doc.getElementById("lobby-live");
            if (!fresh || busy()) return;
            var focused = window.kinplayFocusKey ? window.kinplayFocusKey(live) : null;
            live.replaceWith(fresh);
            live = fresh;
            if (window.kinplayRefocus) window.kinplayRefocus(live, focused);
            document.title = doc.title || document.title;
            if (window.kinplaySyncBadges) window.kinplaySyncBadges(doc);
          });
      })
      .catch(function () {})
      .then(schedule);
  }
  document.addEventListener("visibilitychange", function () { if (!document.hidden) poll(); });
  schedule();
})();
