/* The organisers' forms (templates/web/_organise_form.html): the game options shown are the
   chosen game's; a setting of some formats only (data-formats) shows with those. What is hidden
   is disabled, so not posted: the service's default holds. */
(function () {
  "use strict";
  var form = document.getElementById("organise-form");
  if (!form) return;
  var kind = form.querySelector("select[name=kind]");
  var format = form.querySelector("select[name=format]");

  function show(el, on) {
    el.hidden = !on;
    el.querySelectorAll("input, select").forEach(function (input) { input.disabled = !on; });
  }

  function update() {
    if (kind) {
      form.querySelectorAll(".options-block").forEach(function (block) {
        show(block, block.getAttribute("data-kind") === kind.value);
      });
    }
    form.querySelectorAll("[data-formats]").forEach(function (el) {
      // The league's empty format is the game's usual one: its settings stay shown.
      show(el, !format || !format.value || el.getAttribute("data-formats").split(" ").indexOf(format.value) >= 0);
    });
  }

  if (kind) kind.addEventListener("change", update);
  if (format) format.addEventListener("change", update);
  update();
})();
