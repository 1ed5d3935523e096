/* The new-game form: the options block and the seat rows follow the chosen kind. */
(function () {
  "use strict";
  var form = document.getElementById("new-game-form");
  if (!form) return;
  var players = form.querySelector("#id_players");

  function kindInput() { return form.querySelector("input[name=kind]:checked"); }

  function showOptions() {
    var k = kindInput();
    form.querySelectorAll(".options-block").forEach(function (block) {
      var on = k && block.getAttribute("data-kind") === k.value;
      block.hidden = !on;
      block.querySelectorAll("input, select").forEach(function (el) { el.disabled = !on; });
    });
  }

  function clampPlayers(reset) {
    var k = kindInput();
    if (!k) return;
    var min = +k.getAttribute("data-min"), max = +k.getAttribute("data-max");
    players.min = min; players.max = max;
    var n = parseInt(players.value, 10);
    if (reset || isNaN(n)) players.value = min;
    checkPlayers();
    showSeats();
  }

  /* A number out of range is said, next to the field, and blocks the form (never silently changed). */
  function checkPlayers() {
    var k = kindInput(), note = document.getElementById("players-note");
    if (!k || !note) return;
    var min = +k.getAttribute("data-min"), max = +k.getAttribute("data-max"), n = parseInt(players.value, 10);
    var name = k.getAttribute("data-name") || "This game";
    var msg = "";
    if (!isNaN(n) && (n < min || n > max)) {
      msg = name + " is for " + (min === max ? "exactly " + min : min + " to " + max) + " players, not " + n + ".";
    }
    players.setCustomValidity(msg);
    note.textContent = msg;
    note.hidden = !msg;
  }

  function showSeats() {
    var n = parseInt(players.value, 10) || 0;
    form.querySelectorAll(".seat-row[data-seat]").forEach(function (row) {
      var on = +row.getAttribute("data-seat") <= n;
      row.hidden = !on;
      row.querySelectorAll("select, input").forEach(function (el) { el.disabled = !on; });
      if (on) seatUser(row);
    });
  }

  function seatUser(row) {
    var type = row.querySelector("[data-seat-type]").value;
    var user = row.querySelector("[data-seat-user]");
    user.hidden = type !== "user";
    user.disabled = type !== "user";
  }

  function customSeconds() {
    var sel = form.querySelector("#id_per_move");
    var box = form.querySelector("[data-custom-seconds]");
    box.hidden = sel.value !== "custom";
    if (!box.hidden) { var i = box.querySelector("input"); if (!i.value) i.focus(); }
  }

  form.addEventListener("change", function (ev) {
    var t = ev.target;
    if (t.name === "kind") { showOptions(); clampPlayers(true); }
    else if (t === players) clampPlayers(false);
    else if (t.hasAttribute("data-seat-type")) seatUser(t.closest(".seat-row"));
    else if (t.id === "id_per_move") customSeconds();
  });
  players.addEventListener("input", function () { checkPlayers(); showSeats(); });
  showOptions();
  clampPlayers(false);
})();
