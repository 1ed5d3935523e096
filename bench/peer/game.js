// The trivial 2-player game of the comparison: seat 0 plays a number, and seat 1 (a bot, like
// kinplay's bench opponent) answers inside the same move, so one update carries both moves.
// A match ends after MOVES_PER_GAME moves; the driver then starts a new one.
const MOVES_PER_GAME = Number(process.env.BGIO_MOVES_PER_GAME || 40);

const PingPong = {
  name: 'pingpong',
  minPlayers: 2,
  maxPlayers: 2,
  setup: () => ({ moves: 0, score: [0, 0], last: null }),
  turn: { order: { first: () => 0, next: () => 0 } },  // seat 0 acts; seat 1 answers in the move
  moves: {
    // client: false: the client does not play the move ahead; it waits for the server's update.
    play: { client: false, move: ({ G }, n) => {
      const answer = (n * 7 + G.moves) % 10;            // the bot's answer, deterministic
      G.moves += 1;
      G.score[0] += n > answer ? 1 : 0;
      G.score[1] += answer > n ? 1 : 0;
      G.last = { played: n, answer };
    } },
  },
  endIf: ({ G }) => (G.moves >= MOVES_PER_GAME ? { score: G.score } : undefined),
};

module.exports = { PingPong, MOVES_PER_GAME };
