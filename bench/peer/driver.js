// The socket.io client driver for make bench-peer, written to match bench/api.py's moves phase:
// N clients, each with its own match against the bot seat and its own connection, play one move
// at a time (the next only after the server's update for the last arrived) for WARMUP + SECONDS;
// a finished match is replaced by a new one (lobby create + join, not counted as a move).
//   node driver.js <port> <clients> <seconds> <warmup>
// Prints "WINDOW start" / "WINDOW end" when the measured window opens and closes (run.py samples
// the servers' CPU then), then one JSON line: moves, latencies, bytes and TCP connections in the window.
const dc = require('node:diagnostics_channel');
const { Client } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { PingPong } = require('./game');

const [port, clients, seconds, warmup] = process.argv.slice(2).map(Number);
const base = `http://127.0.0.1:${port}`;

// Every TCP connection this process opens (socket.io, its polling requests, the lobby's fetch).
const sockets = new Set();
dc.subscribe('net.client.socket', ({ socket }) => sockets.add(socket));
const traffic = () => {
  let sent = 0, received = 0;
  for (const s of sockets) { sent += s.bytesWritten || 0; received += s.bytesRead || 0; }
  return { sent, received, connections: sockets.size };
};

async function post(path, body) {
  const res = await fetch(base + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

async function newMatch(i) {
  const { matchID } = await post('/games/pingpong/create', { numPlayers: 2 });
  const { playerCredentials } = await post(`/games/pingpong/${matchID}/join`, { playerID: '0', playerName: `bench${i}` });
  const client = Client({ game: PingPong, multiplayer: SocketIO({ server: base }), matchID, playerID: '0', credentials: playerCredentials, debug: false });
  watch(client);
  client.start();
  await nextState(client, -1);
  return client;
}

// Resolves with the first state newer than stateID that the server sent. One subscriber per
// client for its whole life: Client.subscribe numbers subscribers by count, so subscribing
// again after an unsubscribe can overwrite a live one.
function watch(client) {
  client.waiter = null;
  client.subscribe((state) => {
    const w = client.waiter;
    if (w && state && state._stateID > w.stateID) { client.waiter = null; w.resolve(state); }
  });
}
function nextState(client, stateID) {
  return new Promise((resolve) => {
    const state = client.getState();
    if (state && state._stateID > stateID) return resolve(state);
    client.waiter = { stateID, resolve };
  });
}

function pct(sorted, p) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.round((p / 100) * (sorted.length - 1))))];
}

async function main() {
  const rnd = (() => { let x = 12345; return () => ((x = (x * 1103515245 + 12345) % 2147483648) / 2147483648); })();
  const matches = await Promise.all(Array.from({ length: clients }, (_, i) => newMatch(i)));
  const t0 = performance.now();
  const start = t0 + warmup * 1000, end = start + seconds * 1000;
  const latencies = [];
  let replaced = 0, startTraffic = null, endTraffic = null;
  setTimeout(() => { startTraffic = traffic(); console.log('WINDOW start'); }, Math.max(0, start - performance.now()));
  const ended = new Promise((resolve) => setTimeout(() => {
    endTraffic = traffic(); console.log('WINDOW end'); resolve();
  }, Math.max(0, end - performance.now())));

  await Promise.all(matches.map(async (client, i) => {
    while (performance.now() < end) {
      let state = client.getState();
      if (state.ctx.gameover) {
        client.stop();
        client = await newMatch(i);
        replaced += 1;
        continue;
      }
      const before = state._stateID;
      const sentAt = performance.now();
      const updated = nextState(client, before);
      client.moves.play(Math.floor(rnd() * 10));
      await updated;
      const now = performance.now();
      if (sentAt >= start && now <= end) latencies.push(now - sentAt);
    }
    client.stop();
  }));
  await ended;  // a client may stop a moment before the timer fires: the window closes once, here
  latencies.sort((a, b) => a - b);
  const a = startTraffic, b = endTraffic;
  console.log(JSON.stringify({
    moves: latencies.length, seconds, p50_ms: pct(latencies, 50), p90_ms: pct(latencies, 90), p99_ms: pct(latencies, 99),
    max_ms: latencies[latencies.length - 1] ?? null, games_replaced: replaced,
    bytes_out: b.sent - a.sent, bytes_in: b.received - a.received, connections: b.connections - a.connections,
  }));
  process.exit(0);
}
main().catch((e) => { console.error(e); process.exit(1); });
