// Package worker is self-play for training: the workers that play games against themselves by
// search, many at once, and the batcher that feeds every worker's leaves to the network in full
// batches.
//
// Play is one worker: it plays Config.Games games at once, one mcts.Search each, evaluates
// their leaves together through an mcts.Evaluator (the Batcher), records each decision searched
// in full as a training target (KataGo's playout cap randomization), and hands each finished
// game, as a replay.Game, to its sink. The Batcher merges the requests of all workers into
// batches and runs them on one net.Engine per inference worker; new weights are swapped in
// between batches.
//
// Invariants (tests): a worker hands over whole, legal games whose targets sit at the recorded
// decisions, over the legal actions, summing to 1, and whose proven values are exact; games in
// progress when the context ends are dropped, never handed over half played; the batcher
// answers each position exactly as an engine alone would, whatever batch it was put in.
//
// A move is searched in full (Simulations, with root noise or the Gumbel root,
// recorded) with probability FullShare, else cheaply (CheapSimulations, not
// recorded, no root noise and no Gumbel sample). Forced moves and chance
// decisions are played without search. Where the solver proved the root, the
// target's value is the proven one. A worker's searches share one mcts.Cache,
// cleared (in O(1)) when the batcher swaps in new weights, so that no game mixes a
// stale network's values into its targets.
//
// The Batcher's inference workers each build and run their engine on a locked OS thread, so
// that oneDNN's primitives are made for that thread's one OpenMP thread and the CPU time of
// each forward pass is measured.
//
// The seam (seam.go) is what a run provides to self-play, two small interfaces,
// so that a worker on another machine is given a transport behind them and
// nothing else: a GameSink, where finished games go (in zero train and zero worker
// a dist.Publisher, which also holds the worker back while self-play is ahead of
// training), and a WeightsSource, the newest network, asked before every batch
// (in zero train a Latest that the trainer publishes to).
package worker
