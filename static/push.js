/* Settings: send notifications to this device (Web Push through the service worker, /sw.js). */
(function () {
  "use strict";
  var box = document.getElementById("push");
  if (!box) return;
  var on = document.getElementById("push-on"), off = document.getElementById("push-off");
  var state = document.getElementById("push-state");
  var csrf = box.querySelector("input[name=csrfmiddlewaretoken]").value;
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !window.isSecureContext) {
    state.textContent += " This browser cannot receive them" + (window.isSecureContext ? "." : " here: the site is not on https.");
    return;
  }
  function key(b64) {  // the server's VAPID public key, base64url, as bytes
    var s = atob(b64.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((b64.length + 3) % 4));
    return Uint8Array.from(s, function (c) { return c.charCodeAt(0); });
  }
  function post(url, body) {
    return fetch(url, {method: "POST", credentials: "same-origin", body: JSON.stringify(body),
                       headers: {"Content-Type": "application/json", "X-CSRFToken": csrf}})
      .then(function (r) { if (!r.ok) throw new Error("the server answered " + r.status); return r.json(); });
  }
  function show(sub) {
    on.hidden = !!sub; off.hidden = !sub;
    if (sub) state.textContent = "This device gets your notifications.";
  }
  navigator.serviceWorker.ready.then(function (reg) {
    reg.pushManager.getSubscription().then(function (sub) {
      show(sub);
      if (sub) post(box.dataset.subscribe, sub.toJSON()).catch(function () {});  // still this player's
    });
    on.addEventListener("click", function () {
      Notification.requestPermission().then(function (perm) {
        if (perm !== "granted") { state.textContent = "Notifications are blocked for this site in the browser's settings."; return null; }
        return reg.pushManager.subscribe({userVisibleOnly: true, applicationServerKey: key(box.dataset.pushKey)})
          .then(function (sub) { return post(box.dataset.subscribe, sub.toJSON()).then(function () { show(sub); }); });
      }).catch(function (err) { state.textContent = "Could not turn notifications on: " + err.message; });
    });
    off.addEventListener("click", function () {
      reg.pushManager.getSubscription().then(function (sub) {
        if (!sub) return show(null);
        return post(box.dataset.unsubscribe, {endpoint: sub.endpoint}).then(function () { return sub.unsubscribe(); })
          .then(function () { show(null); state.textContent = "This device no longer gets notifications."; });
      }).catch(function (err) { state.textContent = "Could not turn notifications off: " + err.message; });
    });
  });
})();
