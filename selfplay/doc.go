// Package selfplay plays games between agents: matches and round robins between players
// (arenas), with Elo ratings. It is the play side of the pipeline: it knows no training (the
// self-play workers and the batcher of training are package train/worker) and links no
// gorgonia, so that the engine, zero play, zero serve and zero arena do not.
//
// Player is the one abstraction of whatever chooses moves: arenas, the engine protocol and the
// agent people play (internal/games.Agent) all use it. Players are made from spec strings by
// one parser and one maker (ParseSpec, NewPlayer: random, uct:N, ucb1:N, ab:D, ab:D:TIME,
// mcts:N:CHECKPOINT, whose checkpoint NewPlayer loads and which searches with its game's
// PlayParams, changed by KEY=VALUE fields before the checkpoint (and symmetries=K: the
// network's mean over K symmetries of each leaf, mcts.Symmetric); uct, ucb1 and mcts take a time
// a move, uct:1s, instead of N, and threads=K, the goroutines one search grows its tree from
// (mcts.Search.SetHelpers): by default every core for a search bounded by time alone, an
// arena's player its share, one for a search of N simulations). A player chooses a game's decisions (Choose) or analyzes a
// position for people (Analyze: the moves ranked, within Limits).
//
// PlayGame plays one game and returns its Record. Record is the one game record of zero:
// arenas write it (games.jsonl), `zero play` and the browser save it and `zero play --load`
// reads it, in the two JSON layouts zero has always written (see Record). Arena plays a round
// robin on all cores and rates the players with Rate (maximum likelihood Elo with a first-side
// advantage and BayesElo's prior of virtual draws, with 95% confidence intervals).
//
// Invariants:
//   - every seed of an arena derives from its Seed, the pair and the game's number, so the
//     games and ratings do not depend on the number of workers or on timing (the players'
//     budgets are in simulations);
//   - the two games 2i and 2i+1 of a pair swap sides and share their chance seed, so chance
//     (Imbriqua's deck) deals alike to both sides;
//   - chance is never a player: PlayGame draws chance outcomes by their probabilities, and
//     tells both players of every decision, chance's included;
//   - a player's illegal decision ends the game with an error naming the player and the move.
//
// What a side spent is in its Record (Thinking: the moves chosen, the wall time of
// its Choose calls, the simulations its searches ran); an arena sums it by player
// (ArenaResult.Thinking, in ratings.json). Limits.Cap bounds a search's time
// whatever the spec says (zero serve's 10 s a search, through ui.Match.Cap); a
// cancelled search answers with what it has.
//
// An arena runs one worker per core, its players made once per worker and
// reseeded per game; long games are scheduled first; Opening decisions may open
// each game at random, alike for the two games of a pair, to vary the games of
// deterministic players. Stopped (Ctrl-C), it rates the games finished, which zero
// arena writes marked interrupted. Its progress is drawn by the user interface
// (ui.Progress), so that this package links no terminal code.
//
// Records read strictly (unknown fields, another format, the other layout's
// fields, a record over 1 MiB refused), with errors naming the field and the game;
// internal/games.ReadRecords adds the rules. testdata holds files of earlier
// builds, which must read and write back byte for byte.
package selfplay
