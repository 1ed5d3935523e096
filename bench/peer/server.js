// boardgame.io 0.50 server for make bench-peer:  node server.js <memory|flatfile|postgres> <port> [dir|url]
// The lobby API (create/join) and the socket.io master share one port: package.json pins
// koa-compose 4.1.0, with 4.2.0 every lobby route answers 404 (see bench/peer/README.md).
const { Server, FlatFile } = require('boardgame.io/server');
const { PingPong } = require('./game');

const [storage, port, where] = process.argv.slice(2);
let db;
if (storage === 'flatfile') {
  db = new FlatFile({ dir: where, logging: false });
} else if (storage === 'postgres') {
  const { PostgresStore } = require('bgio-postgres');
  db = new PostgresStore(where, { logging: false });
} else if (storage !== 'memory') {
  console.error(`unknown storage ${storage}`);
  process.exit(2);
}
const server = Server({ games: [PingPong], ...(db ? { db } : {}), origins: ['http://127.0.0.1'] });
server.run({ port: Number(port), callback: () => console.log(`bgio ${storage} listening on ${port}`) });
