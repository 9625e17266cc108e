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
package worker
