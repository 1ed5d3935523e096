/* kinplay: small page helpers (menu, dismissable messages, confirmations, copy). */
(function () {
  "use strict";
  document.addEventListener("click", function (ev) {
    var toggle = ev.target.closest("[data-menu-toggle]");
    if (toggle) {
      var header = document.getElementById("site-header");
      var open = header.classList.toggle("is-open");
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
      return;
    }
    var close = ev.target.closest("[data-dismiss]");
    if (close) { close.parentElement.remove(); return; }
    var copy = ev.target.closest("[data-copy]");
    if (copy) {
      var src = document.querySelector(copy.getAttribute("data-copy"));
      if (src && navigator.clipboard) {
        navigator.clipboard.writeText(src.textContent.trim()).then(function () {
          copy.textContent = "Copied";
          setTimeout(function () { copy.textContent = "Copy"; }, 1500);
        });
      }
    }
  });
  document.addEventListener("submit", function (ev) {
    var form = ev.target.closest("[data-confirm]");
    if (form && !window.confirm(form.getAttribute("data-confirm"))) ev.preventDefault();
  }, true);
  // Settings: offer the browser's time zone when it differs from the one chosen.
  var tzButton = document.getElementById("use-browser-tz");
  var tzSelect = document.getElementById("id_time_zone");
  var here = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
  if (tzButton && tzSelect && here && here !== tzSelect.value &&
      Array.prototype.some.call(tzSelect.options, function (o) { return o.value === here; })) {
    tzButton.textContent = "Use " + here.replace(/_/g, " ") + " (this device)";
    tzButton.hidden = false;
    tzButton.addEventListener("click", function () { tzSelect.value = here; tzButton.hidden = true; });
  }
  // The installable app (/manifest.webmanifest): its service worker shows the pushes (Settings).
  if ("serviceWorker" in navigator && window.isSecureContext) {
    navigator.serviceWorker.register("/sw.js").catch(function () {});
  }
  // Sign-up: the new account starts in this device's time zone.
  if (here) document.querySelectorAll("input[data-device-time-zone]").forEach(function (el) { el.value = here; });
  // A page that swaps in a fresh copy of itself (game.js, lobby.js) keeps the keyboard where it
  // was: kinplayFocusKey(box) before the swap says which control has the focus, as a selector and
  // its place among the matches; kinplayRefocus(box, key) after it focuses that control again.
  // (A swap replaces every element, and the focus would fall to the top of the page.)
  window.kinplayFocusKey = function (box) {
    var el = document.activeElement, sel = null;
    if (!el || el === box || !box.contains(el)) return null;
    if (el.id) sel = "#" + CSS.escape(el.id);
    else if (el.matches("button.move")) sel = 'button.move[data-move="' + CSS.escape(el.getAttribute("data-move")) + '"]';
    else if (el.hasAttribute("data-notation")) sel = '[data-notation="' + CSS.escape(el.getAttribute("data-notation")) + '"]';
    else if (el.matches("a[href]")) sel = 'a[href="' + CSS.escape(el.getAttribute("href")) + '"]';
    else if (el.form && el.form.getAttribute("action")) sel = 'form[action="' + CSS.escape(el.form.getAttribute("action")) + '"] ' + el.tagName.toLowerCase();
    if (!sel) return null;
    return { sel: sel, n: Array.prototype.indexOf.call(box.querySelectorAll(sel), el) };
  };
  window.kinplayRefocus = function (box, key) {
    if (!key) return;
    var all = box.querySelectorAll(key.sel), el = all[key.n] || all[0];  // gone (a move no longer legal): nowhere
    if (el) el.focus({ preventScroll: true });
  };
  // A page that swaps in a fresh copy of itself (game.js, lobby.js) takes the header's
  // "waiting for you" badges from that copy too: the Lobby link's and the menu button's.
  window.kinplaySyncBadges = function (doc) {
    var lobby = document.querySelector("#site-nav a[href='/']"), fresh = doc.querySelector("#site-nav a[href='/']");
    if (lobby && fresh) lobby.innerHTML = fresh.innerHTML;
    var toggle = document.querySelector(".menu-toggle"), freshToggle = doc.querySelector(".menu-toggle");
    if (toggle && freshToggle) {
      var old = toggle.querySelector(".toggle-badge"), badge = freshToggle.querySelector(".toggle-badge");
      if (old) old.remove();
      if (badge) toggle.insertBefore(badge.cloneNode(true), toggle.querySelector("svg"));
    }
  };
})();
