// Package runconfig is a training run's configuration, config.yaml: its format, its
// defaults (a game's preset, package configs) and its checks.
//
// A configuration is decoded strictly over its game's defaults: an unknown key, a wrong type
// or a fraction for a whole number (yaml.v3 would take 1.9 blocks as 1) is refused. It is then
// validated field by field, errors naming the file, the line and section.field. The selfplay
// section is an mcts.Params as well (the search's keys, documented in mcts/params.go), and the
// net section a net.Config. Package train keeps the history of a run's configurations and
// refuses, on resuming, a change of what its checkpoints hold fixed (the game, the net, the
// optimizer's method).
package runconfig
