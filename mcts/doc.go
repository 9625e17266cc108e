// Package mcts is the Monte Carlo tree search that plays and trains every game of zero, through
// the env contract only: it has no game-specific code and knows nothing of the network.
//
// # The search
//
// A [Search] grows a tree from a root position. Each simulation descends from the root to a
// leaf — by PUCT (AlphaZero) or UCB1 (classic UCT) at a player's decision, by probability at a
// chance node — asks an [Oracle] for the leaf's prior policy and value, expands the leaf with
// one child per legal action, and backs the value up the path. A [Budget] counts simulations
// (optionally capped by time, for play). Choose, Policy and Children read the result; Advance
// moves the root along the action played and keeps its subtree (tree reuse).
//
// The root may instead be a Gumbel AlphaZero root (Params.Gumbel; Danihelka et al., "Policy
// improvement by planning with Gumbel", ICLR 2022): Gumbel-top-k sampling of the actions,
// sequential halving of the simulations among them, and the completed-Q improved policy as the
// training target, which keeps learning sound with 8 to 32 simulations per move. Below the
// root, PUCT stays, or with Params.GumbelInterior Gumbel MuZero's deterministic rule (the
// action whose share of the visits lags most behind the node's improved policy).
//
// # Values, deciders and chance
//
// Values are in [-1, 1]. An oracle gives them from the point of view of the player to decide at
// the leaf, env.Result.Value gives them at the end of the game, and the tree keeps them from
// player 0's point of view: whoever decides at a node reads them with the sign of his side.
// Nothing is negated level by level, so a turn of several decisions by one player (YINSH's move,
// row and ring) and a decision by the opponent in the middle of a turn (Imbriqua's penalty) back
// up correctly with no special case.
//
// Chance is never a player. A chance node is expanded without asking the oracle (its children
// are its outcomes, with their probabilities) and descents pass through it to an outcome: by
// default the one furthest below its share of the visits, which covers the outcomes in
// proportion; with Params.SampleChance one drawn by probability. Its value is the
// probability-weighted mean of its visited outcomes' values (renormalized over their
// probability), not the mean of the values that went through it.
//
// # Batches and the driving of a search
//
// Run drives a search with its oracle, one batch after another. The same work is open in steps,
// so that many searches (the games of a self-play worker) can share one network through a
// batcher: Start, then until Finished, Collect (up to Params.InFlight leaves, descents after the
// first seeing those in flight through a virtual loss) and Apply (the oracle's answers for
// them). An [Evaluator] is the network's side: observations in, logits and values out, every
// buffer the caller's; Observe makes an Oracle of it.
//
// # Invariants
//
//   - Nodes live in pages and refer to each other by int32 index; the children of a node are
//     contiguous, in one page. A growing tree adds pages, never copying the nodes it has.
//     Positions are kept for the nodes that were reached, in a slice. Advance copies the kept
//     subtree into spare pages, so memory does not grow over a game.
//   - A node's children are made in the order of its legal actions; below the root, PUCT puts
//     them in order of prior, 16 at a time as it needs them, and stops its scan at the first
//     unvisited child, which is then the best unvisited one (order.go). Its choices are those
//     of a scan of every child (TestOrderChangesNoChoice).
//   - Once its slices have grown to the size of the searches asked of it, a search allocates
//     nothing per simulation (tests hold it with testing.AllocsPerRun), oracles included.
//   - A search is deterministic given its seed, its parameters, its oracle's answers and the
//     order of the calls made on it; only a Budget.Time makes it depend on the machine.
//   - A Search and the built-in oracles serve one goroutine at a time. Run alone grows the
//     tree from several (SetHelpers: one more goroutine for each helper oracle, lanes of leaves
//     in flight under one lock, each evaluated without it), and then is not reproducible.
//
// The built-in oracles are [Uniform] (equal priors, value 0: the search alone) and [Rollout]
// (the result of random games from the leaf: classic UCT), so the search runs, is tested and
// makes baseline players without a network. [Symmetric] wraps another oracle: it asks about
// each leaf turned by several of the game's symmetries and answers the mean.
//
// # The solver, the heuristic, the cache and alpha-beta
//
// Each is described at its type or parameter; what ties them together:
//
//   - The solver (Params.Solver, solver.go; MCTS-Solver, Winands et al. 2008)
//     proves terminal nodes and leaves whose decider can win within his turn
//     (env.WinChecker) without the oracle, and carries proofs up through deciders
//     and chance with the number of decisions to the end. Descents stop at proven
//     nodes; the move choice, the Gumbel sample and halving and the policy target
//     leave proven losses out while anything else is left; a proven root ends the
//     search and plays the shortest win (the longest loss). Nodes above ScanDepth
//     have their children looked at when expanded, and after tree reuse when
//     brought above it.
//   - Root proofs (Params.RootProof) run AlphaBeta.Prove from each of the root's
//     moves before any simulation, within RootProofNodes positions (counted, not
//     timed). A search by time also gives them up at its deadline, and any search
//     when Run's context ends; proofs cut short resume where they were cut at the
//     next search of the same root, so the engine's go infinite slices see them
//     through one after the other, and a search by time whose proofs were cut
//     still makes at least one simulation.
//   - Implicit minimax backups (Params.MinimaxWeight) keep in each node the minimax
//     of the env.Heuristic values below it, proven values as they are; Start works
//     them out again after scans and proofs that prove nodes without a backup.
//   - The Cache settles a leaf found there at once, without the oracle; with one
//     leaf in flight the tree is the same as without. It is bounded in bytes: a
//     quarter for 4-way sets of keys (maphash.Comparable picks the set, a hit
//     compares the whole state), the rest a ring of the legal actions' priors
//     that the newest answers overwrite. Searcher.Release gives it back with the
//     tree.
//   - AlphaBeta (alphabeta.go) is the ab:D players' search and the root proofs'.
//     With an env.Heuristic (not for EndsOnly nor Prove) it is a classical
//     engine's: the win check at every decision, a transposition table
//     (env.Hasher) used only at the depth it was searched to, its best move, the
//     killer, then the history heuristic's order, principal-variation search;
//     its values are plain alpha-beta's exactly. A triangular table keeps each
//     node's best line (ABResult.PV), completed where it ends at a win within a
//     turn by env.WinLine.
//
// # Batches in detail
//
// Terminal leaves, proven nodes and cache hits are backed up at once; such
// instant descents made while a leaf waits take a place in flight, so at most
// InFlight−1 of them go by before the waiting leaf's value is in (they see its
// path through its virtual loss). A collision with a leaf in flight ends a batch,
// and a Gumbel halving waits for its phase's values. Nodes are 64 bytes, in pages
// of 2^13 nodes or more (a page holds the most children a node of the game can
// have); Advance and SetRoot keep the subtree of the new root, found up to 8
// decisions below, by copying it breadth first; MaxNodes stops a search whose tree
// is full. The Dirichlet noise's Gamma variates are drawn here (gamma.go,
// Marsaglia and Tsang), so that the package links no numerical library (cmd/zero's
// TestLowLayersLinkWhatTheyUse).
//
// # Tests
//
// Besides the invariants above (visits of a decision node = 1 + its children's,
// of a chance node = its children's; no virtual loss left after Apply; Run and
// the steps give the same tree; every proof agrees with its children, and in the
// tiny games with the exact expectimax value), searches are held to exact values:
// tic-tac-toe against a solver, Gamble's hand-computed chance values, wins and
// saves in one in YINSH blitz, Imbriqua and Gygès. The tactics suite
// (tactics_test.go: a win in one, a forced block and a forced win in two for each
// variant, and testdata/gyges-advanced-must-block.txt, each claim checked by brute
// force) is solved by PUCT and Gumbel roots with no knowledge at 200 simulations
// and by ab:1 to ab:3.
package mcts
