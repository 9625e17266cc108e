package net

import (
	"errors"
	"fmt"
	"math"
)

// Config is the architecture of a network: the `net:` section of a configuration file.
//
// The net is a residual tower of 3×3 convolutions with batch normalisation and ReLU over the
// game's observation grid, then two heads:
//
//   - policy: a 1×1 convolution to PolicyChannels planes (batchnorm, ReLU); then, for a game
//     whose actions sit on the grid (env.SpatialPolicy), a 1×1 convolution to the game's policy
//     planes, the actions off the grid (a pass) from a small dense layer over the mean of those
//     PolicyChannels planes; for other games a dense layer to every action;
//   - value: a 1×1 convolution to ValueChannels planes (batchnorm, ReLU), a dense layer of
//     ValueHidden units (ReLU) and one output through tanh: the expected result in [-1, 1] for
//     the player to decide.
//
// With GlobalPool, the value head reads the mean and the maximum of each of its planes over the
// board (KataGo's global pooling) instead of every cell.
type Config struct {
	// Blocks is the number of residual blocks (two convolutions each) after the first convolution.
	Blocks int `yaml:"blocks" json:"blocks"`
	// Channels is the width of the tower.
	Channels int `yaml:"channels" json:"channels"`
	// PolicyChannels is the number of planes the policy head starts from.
	PolicyChannels int `yaml:"policy_channels" json:"policy_channels"`
	// ValueChannels is the number of planes the value head starts from.
	ValueChannels int `yaml:"value_channels" json:"value_channels"`
	// ValueHidden is the width of the value head's hidden dense layer.
	ValueHidden int `yaml:"value_hidden" json:"value_hidden"`
	// GlobalPool makes the value head pool its planes (mean and max) instead of flattening them.
	GlobalPool bool `yaml:"global_pool" json:"global_pool,omitempty"`
}

// DefaultConfig is the architecture of a configuration that gives none: the one every training
// preset gives (configs/*.yaml), 4 blocks × 32 channels, sized for CPUs (a YINSH position is
// about 19 MFLOP). A game needs no other: the observation and the actions set the rest.
func DefaultConfig() Config {
	return Config{Blocks: 4, Channels: 32, PolicyChannels: 16, ValueChannels: 2, ValueHidden: 64}
}

// BenchConfig is the larger tower that `zero bench net` and the engine's and trainer's Go
// benchmarks measure unless told otherwise, 6 blocks × 64 channels (110 MFLOP a YINSH
// position), so that the tables of docs/BENCHMARKS.md, all taken with it, stay comparable. No
// preset trains it.
func BenchConfig() Config {
	return Config{Blocks: 6, Channels: 64, PolicyChannels: 32, ValueChannels: 2, ValueHidden: 128}
}

// Validate checks the architecture; its errors name the field as written in YAML.
func (c *Config) Validate() error {
	var errs []error
	check := func(field string, v, lo, hi int) {
		if v < lo || v > hi {
			errs = append(errs, fmt.Errorf("%s: must be in [%d, %d], is %d", field, lo, hi, v))
		}
	}
	check("blocks", c.Blocks, 0, 128)
	check("channels", c.Channels, 1, 1024)
	check("policy_channels", c.PolicyChannels, 1, 1024)
	check("value_channels", c.ValueChannels, 1, 1024)
	check("value_hidden", c.ValueHidden, 1, 4096)
	return errors.Join(errs...)
}

// OptimizerConfig is how the training graph learns: the `optimizer:` section of a
// configuration file.
//
// The loss of a batch is the mean over its positions of the policy's cross-entropy against the
// search's distribution plus ValueWeight times the squared error of the value, plus
// L2·‖w‖² over the weights of the convolutions and dense layers (not the batchnorm scales and
// shifts, nor the biases).
type OptimizerConfig struct {
	// Method is "adam" or "sgd" (with momentum).
	Method string `yaml:"method" json:"method"`
	// LearningRate is the base learning rate; Schedule scales it.
	LearningRate float64 `yaml:"learning_rate" json:"learning_rate"`
	// Momentum is SGD's momentum (Nesterov's is not used).
	Momentum float64 `yaml:"momentum" json:"momentum"`
	// Beta1, Beta2 and Epsilon are Adam's.
	Beta1   float64 `yaml:"beta1" json:"beta1"`
	Beta2   float64 `yaml:"beta2" json:"beta2"`
	Epsilon float64 `yaml:"epsilon" json:"epsilon"`
	// L2 is the weight of the L2 penalty in the loss.
	L2 float64 `yaml:"l2" json:"l2"`
	// ValueWeight is the weight of the value's squared error in the loss.
	ValueWeight float64 `yaml:"value_weight" json:"value_weight"`
	// Warmup is the number of first steps over which the learning rate rises linearly to its value.
	Warmup int `yaml:"warmup" json:"warmup,omitempty"`
	// Schedule multiplies the learning rate by Factor from step Step on: the entry with the
	// largest Step ≤ the current step applies (none: 1). Steps strictly ascending.
	Schedule []LRStep `yaml:"schedule" json:"schedule,omitempty"`
	// BatchNormMomentum is the weight of a batch's statistics in batchnorm's running averages.
	BatchNormMomentum float64 `yaml:"batchnorm_momentum" json:"batchnorm_momentum"`
}

// LRStep is one step of a learning-rate schedule.
type LRStep struct {
	Step   int     `yaml:"step" json:"step"`
	Factor float64 `yaml:"factor" json:"factor"`
}

// DefaultOptimizer is Adam at 1e-3 with a small L2 penalty.
func DefaultOptimizer() OptimizerConfig {
	return OptimizerConfig{
		Method: "adam", LearningRate: 1e-3, Momentum: 0.9,
		Beta1: 0.9, Beta2: 0.999, Epsilon: 1e-8,
		L2: 1e-4, ValueWeight: 1, BatchNormMomentum: 0.1,
	}
}

// Validate checks the optimizer's settings; its errors name the field as written in YAML.
func (o *OptimizerConfig) Validate() error {
	var errs []error
	bad := func(field, why string, v any) {
		errs = append(errs, fmt.Errorf("%s: %s, is %v", field, why, v))
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	if o.Method != "adam" && o.Method != "sgd" {
		bad("method", `must be "adam" or "sgd"`, fmt.Sprintf("%q", o.Method))
	}
	if !(o.LearningRate > 0) || !finite(o.LearningRate) {
		bad("learning_rate", "must be > 0", o.LearningRate)
	}
	if !(o.Momentum >= 0 && o.Momentum < 1) {
		bad("momentum", "must be in [0, 1)", o.Momentum)
	}
	if !(o.Beta1 >= 0 && o.Beta1 < 1) {
		bad("beta1", "must be in [0, 1)", o.Beta1)
	}
	if !(o.Beta2 >= 0 && o.Beta2 < 1) {
		bad("beta2", "must be in [0, 1)", o.Beta2)
	}
	if !(o.Epsilon > 0) || !finite(o.Epsilon) {
		bad("epsilon", "must be > 0", o.Epsilon)
	}
	if !(o.L2 >= 0) || !finite(o.L2) {
		bad("l2", "must be ≥ 0", o.L2)
	}
	if !(o.ValueWeight >= 0) || !finite(o.ValueWeight) {
		bad("value_weight", "must be ≥ 0", o.ValueWeight)
	}
	if o.Warmup < 0 {
		bad("warmup", "must be ≥ 0", o.Warmup)
	}
	if !(o.BatchNormMomentum > 0 && o.BatchNormMomentum <= 1) {
		bad("batchnorm_momentum", "must be in (0, 1]", o.BatchNormMomentum)
	}
	for i, s := range o.Schedule {
		if s.Step < 0 || (i > 0 && s.Step <= o.Schedule[i-1].Step) {
			bad(fmt.Sprintf("schedule[%d].step", i), "must be ≥ 0 and above the previous entry's", s.Step)
		}
		if !(s.Factor > 0) || !finite(s.Factor) {
			bad(fmt.Sprintf("schedule[%d].factor", i), "must be > 0", s.Factor)
		}
	}
	return errors.Join(errs...)
}

// LearningRateAt is the learning rate of training step step (counted from 0).
func (o *OptimizerConfig) LearningRateAt(step int64) float64 {
	lr := o.LearningRate
	for _, s := range o.Schedule {
		if int64(s.Step) <= step {
			lr = o.LearningRate * s.Factor
		}
	}
	if o.Warmup > 0 && step < int64(o.Warmup) {
		lr *= float64(step+1) / float64(o.Warmup)
	}
	return lr
}
