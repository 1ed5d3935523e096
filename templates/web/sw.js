/* kinplay's service worker (served at /sw.js, so its scope is the whole site): shows the pushes
   the server sends (kinplay.notifications.push: {title, body, url}) and opens the game on a tap. */
"use strict";
self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (ev) { ev.waitUntil(self.clients.claim()); });

self.addEventListener("push", function (ev) {
  var d = {};
  try { d = ev.data ? ev.data.json() : {}; } catch (e) { d = {title: ev.data.text()}; }
  ev.waitUntil(self.registration.showNotification(d.title || "kinplay", {
    body: d.body || "",
    icon: "{{ icon }}",
    badge: "{{ icon }}",
    tag: d.url || "kinplay",  // a newer push about the same game replaces the older one
    renotify: true,
    data: {url: d.url || "/"}
  }));
});

self.addEventListener("notificationclick", function (ev) {
  ev.notification.close();
  var url = new URL(ev.notification.data && ev.notification.data.url || "/", self.location.origin);
  if (url.origin !== self.location.origin) url = new URL("/", self.location.origin);  // only our own pages
  ev.waitUntil(self.clients.matchAll({type: "window", includeUncontrolled: true}).then(function (wins) {
    for (var i = 0; i < wins.length; i++) {
      if (wins[i].url === url.href && "focus" in wins[i]) return wins[i].focus();
    }
    return self.clients.openWindow(url.href);
  }));
});
