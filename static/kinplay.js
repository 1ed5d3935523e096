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
})();
