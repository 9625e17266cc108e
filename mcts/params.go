package mcts

import (
	"fmt"
)

// Rule is the formula that picks the child to descend to at a player's decision.
type Rule uint8

const (
	// PUCT is AlphaZero's rule: argmax Q(a) + c·P(a)·√N / (1 + n(a)), with the priors P of the
	// oracle and first-play urgency for unvisited children.
	PUCT Rule = iota
	// UCB1 is classic UCT (Kocsis and Szepesvári 2006): every child is tried once, in action
	// order, then argmax Q(a) + c·√(ln N / n(a)). Priors are not used.
	UCB1
)

func (r Rule) String() string {
	switch r {
	case PUCT:
		return "puct"
	case UCB1:
		return "ucb1"
	}
	return fmt.Sprintf("Rule(%d)", r)
}

// MarshalText writes the rule's name, "puct" or "ucb1" (YAML and JSON).
func (r Rule) MarshalText() ([]byte, error) {
	if r != PUCT && r != UCB1 {
		return nil, fmt.Errorf("mcts: no rule %d", uint8(r))
	}
	return []byte(r.String()), nil
}

// UnmarshalText reads a rule's name.
func (r *Rule) UnmarshalText(text []byte) error {
	switch string(text) {
	case "puct":
		*r = PUCT
	case "ucb1":
		*r = UCB1
	default:
		return fmt.Errorf("mcts: rule %q: want puct or ucb1", text)
	}
	return nil
}

// Params are the search's parameters. DefaultParams gives values for strong, deterministic play;
// the table gives the values of the papers, for training.
//
//	field            default   AlphaZero (Silver et al. 2018)        Gumbel (Danihelka et al. 2022)
//	Rule             PUCT      PUCT                                  (below the root)
//	CPuct            1.25      c_init 1.25                           -
//	CPuctBase        19652     c_base 19652                          -
//	FPUReduction     0.25      0: unvisited Q = 0 ("loss" in [0,1])  -
//	UCBC             1.0       -                                     -
//	DirichletAlpha   0 (off)   0.3 chess, 0.15 shogi, 0.03 Go        - (no Dirichlet noise)
//	NoiseFraction    0.25      0.25                                  -
//	Temperature      0         1 for the first 30 moves (Go), then 0  - (the Gumbel sample decides)
//	Gumbel           false     -                                     true
//	GumbelInterior   false     -                                     true (Gumbel MuZero)
//	GumbelActions    16        -                                     m = 16
//	GumbelScale      1         -                                     1 (training), 0 (evaluation)
//	CVisit           50        -                                     c_visit 50
//	CScale           0.1       -                                     c_scale 0.1 (mctx), Q min-max scaled
//	InFlight         1         8 leaves per search thread            -
//	VirtualLoss      1         n_vl 3 (counted otherwise: below)     -
//	MaxNodes         2^23      -                                     -
//	Solver           true      - (MCTS-solver: Winands et al. 2008)  -
//	ScanDepth        2         -                                     -
//	RootProof        4         -                                     -
//	RootProofNodes   2·10^6    -                                     -
//
// AlphaZero.jl uses cpuct 1.0 and a Dirichlet α between 0.1 and 1 for its small games; a common
// rule of thumb is α ≈ 10 / (the number of legal actions in a typical position).
//
// Params is also a section of a configuration file, decoded as it is: each field's yaml tag is
// its key (c_puct for CPuct, in_flight for InFlight, rule: puct or ucb1, temperature: a list of
// {from, value}), and these comments are the keys' only documentation. zero train's self-play
// reads them from its selfplay section (train.SelfPlayConfig), over its own defaults.
type Params struct {
	// Rule selects PUCT (priors from the oracle) or UCB1 (classic UCT).
	Rule Rule `yaml:"rule" json:"rule"`
	// CPuct is PUCT's exploration constant c (c_init when CPuctBase > 0).
	CPuct float64 `yaml:"c_puct" json:"c_puct"`
	// CPuctBase makes c grow slowly with the parent's visits N:
	// c = CPuct + ln((1 + N + CPuctBase) / CPuctBase). 0 keeps c constant.
	CPuctBase float64 `yaml:"c_puct_base" json:"c_puct_base"`
	// FPUReduction is first-play urgency: an unvisited child is valued at the parent's Q minus
	// FPUReduction·√(sum of the priors of the visited children) (Leela Zero, KataGo). 0 values
	// it at the parent's Q.
	FPUReduction float64 `yaml:"fpu_reduction" json:"fpu_reduction"`
	// UCBC is UCB1's exploration constant c, for values in [-1, 1] (√2 on [0, 1] is 2√2 here).
	UCBC float64 `yaml:"ucb_c" json:"ucb_c"`

	// DirichletAlpha is the concentration of the Dirichlet noise mixed into the root's priors
	// (PUCT only); 0 turns noise off.
	DirichletAlpha float64 `yaml:"dirichlet_alpha" json:"dirichlet_alpha"`
	// NoiseFraction is the weight ε of the noise: P = (1-ε)·P + ε·η.
	NoiseFraction float64 `yaml:"noise_fraction" json:"noise_fraction"`
	// Temperature gives the temperature τ of the move choice by move number: the move is drawn
	// with probability ∝ n(a)^(1/τ); τ = 0 plays the most visited action. Nil means 0.
	Temperature Schedule `yaml:"temperature" json:"temperature"`

	// Gumbel replaces PUCT at the root by Gumbel AlphaZero's: Gumbel-top-k sampling of
	// GumbelActions actions, sequential halving of the simulations among them, and the
	// completed-Q improved policy as the training target. It needs a budget in simulations.
	Gumbel bool `yaml:"gumbel" json:"gumbel"`
	// GumbelInterior also replaces PUCT below the root, by Gumbel MuZero's deterministic
	// choice of the action whose share of the visits most lags its improved policy (mctx).
	GumbelInterior bool `yaml:"gumbel_interior" json:"gumbel_interior"`
	// GumbelActions is m, the number of root actions sampled (without replacement).
	GumbelActions int `yaml:"gumbel_actions" json:"gumbel_actions"`
	// GumbelScale multiplies the Gumbel noise: 1 samples (training), 0 makes the choice
	// deterministic (evaluation).
	GumbelScale float64 `yaml:"gumbel_scale" json:"gumbel_scale"`
	// CVisit and CScale set σ(q) = (CVisit + max_b n(b))·CScale·q, the weight of the values
	// against the prior logits, q being the completed Q rescaled to [0, 1] over the root's
	// children.
	CVisit float64 `yaml:"c_visit" json:"c_visit"`
	CScale float64 `yaml:"c_scale" json:"c_scale"`

	// InFlight is the number of leaves a search collects before they are evaluated together
	// (one batch). Descents after the first see the leaves in flight through a virtual loss;
	// those that end at once (the end of the game, a proven node, a cache hit) while a leaf
	// waits take a place in flight too.
	InFlight int `yaml:"in_flight" json:"in_flight"`
	// VirtualLoss is the loss counted, per leaf in flight, against the player who chose each
	// action on its path: each leaf in flight counts as one visit of value −VirtualLoss, so
	// Q = (W − VirtualLoss·inflight) / (N + inflight). AlphaGo Zero's n_vl = 3 counts n_vl visits
	// of −1 for each leaf instead: (W − 3) / (N + 3) with one leaf in flight.
	VirtualLoss float64 `yaml:"virtual_loss" json:"virtual_loss"`
	// MaxNodes bounds the tree: a search stops early once it holds that many nodes (a node is
	// 48 bytes, plus a position for each node reached). It guards long searches by time.
	MaxNodes int `yaml:"max_nodes" json:"max_nodes"`

	// SampleChance draws chance outcomes by their probability during descents. By default the
	// descent takes the outcome furthest below its share of the visits, which covers the
	// outcomes in proportion with less variance.
	SampleChance bool `yaml:"sample_chance" json:"sample_chance"`

	// Solver proves values (MCTS-solver, solver.go): the ends of the game, leaves whose decider
	// can win at once, and what follows from them up the tree. Proven losses are never chosen
	// while anything else is left, proven wins always are, and a proven root ends the search.
	Solver bool `yaml:"solver" json:"solver"`
	// ScanDepth is the depth below which the solver looks at every child of a node it
	// expands (a move that ends the game, or after which its decider can win at once, is
	// proven at once): 1 the root only, 2 also the root's children, which finds every win in
	// two and every loss in two among the moves visited, at the cost of playing out each
	// child's reply at those nodes. Play uses 2 (mcts:400 with the Gygès advanced model beat
	// ab:3:eval=none 10–0 with it, 6–4 with 1); self-play 1 (2 cost 12% of its simulations/s).
	ScanDepth int `yaml:"scan_depth" json:"scan_depth"`
	// RootProof, if positive, has the solver run a shallow alpha-beta from each of the root's
	// moves (mcts.AlphaBeta.Prove, the ends of the game only), so that a move after which the
	// opponent forces a win within RootProof turns (the root's included) is a proven loss, and
	// one that forces a win a proven win, before any simulation: the MCTS–minimax hybrid of
	// Baier and Winands (2013) at the root (with the solver only). Its work is bounded by
	// RootProofNodes positions a search (counted, not timed, so a search stays deterministic),
	// shared by the root's moves in order: each proof is given what is left divided among the
	// moves left, so what an easy proof leaves goes to the harder ones.
	RootProof      int `yaml:"root_proof" json:"root_proof"`
	RootProofNodes int `yaml:"root_proof_nodes" json:"root_proof_nodes"`

	// MinimaxWeight, if positive, is the weight α of implicit minimax backups (Lanctot,
	// Winands, Pepels and Sturtevant 2014): every node the search adds is valued by the game's
	// static evaluation (env.Heuristic), each node above holds the minimax of those values
	// over its children in the tree, and choices read a child's value as
	// (1-α)·(its mean) + α·(its minimax value), below the root and at a Gumbel root. It needs a
	// game with a heuristic.
	MinimaxWeight float64 `yaml:"minimax_weight" json:"minimax_weight"`
	// HeuristicWeight, if positive, is the weight λ of the game's static evaluation in the
	// value of each leaf the oracle evaluates: (1-λ)·(the oracle's value) + λ·(the heuristic),
	// as AlphaGo mixed its value network with rollouts. It needs a game with a heuristic.
	HeuristicWeight float64 `yaml:"heuristic_weight" json:"heuristic_weight"`
}

// DefaultParams returns parameters for play: PUCT with AlphaZero's constants, no noise, the most
// visited move, one leaf at a time.
func DefaultParams() Params {
	return Params{
		Rule:          PUCT,
		CPuct:         1.25,
		CPuctBase:     19652,
		FPUReduction:  0.25,
		UCBC:          1.0,
		NoiseFraction: 0.25,
		GumbelActions: 16,
		GumbelScale:   1,
		CVisit:        50,
		CScale:        0.1,
		InFlight:      1,
		VirtualLoss:   1,
		MaxNodes:      1 << 23,
		Solver:        true,
		ScanDepth:     2,
		// mcts:400 with the shipped Gygès advanced model against ab:4:eval=none, 10 games: 6–4 with
		// root proofs of 4 turns, 21–79 in 100 games without.
		RootProof:      4,
		RootProofNodes: 2_000_000,
	}
}

// UCTParams returns the parameters of classic UCT (Kocsis and Szepesvári): UCB1 with c = 1.0
// on values in [-1, 1], the most visited move, no solver. With random rollouts it is weaker than PUCT
// with equal priors and first-play urgency (DefaultParams), which the uct:N players use
// (docs/BENCHMARKS.md has the match).
func UCTParams() Params {
	p := DefaultParams()
	p.Rule, p.Solver, p.RootProof = UCB1, false, 0
	return p
}

// A ParamError is a parameter out of range, named by its key (its yaml tag): a configuration
// file's reader can say where it is.
type ParamError struct {
	Key   string // "c_puct"
	Value any
	Want  string // what would do: "a number ≥ 0"
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("mcts: %s = %v: want %s", e.Key, e.Value, e.Want)
}

// The bounds Validate holds the parameters to, so that neither a player spec's settings nor a
// configuration file can make a search allocate without bound or compute with numbers that
// overflow (docs/PLAY.md, "Bounds", names the main ones beside the spec grammar):
//
//	rule                                   puct or ucb1
//	c_puct, ucb_c, dirichlet_alpha,        0 to 100
//	gumbel_scale, c_scale, virtual_loss
//	c_puct_base                            0 to 10^9 (0: a constant c)
//	fpu_reduction                          -2 to 2 (values are in [-1, 1])
//	noise_fraction                         0 to 1
//	c_visit                                0 to 10^6
//	gumbel_actions                         1 to MaxGumbelActions (2^16)
//	in_flight                              1 to MaxInFlight (256)
//	max_nodes                              1 to MaxTreeNodes (2^30)
//	scan_depth                             1 to 8 (with the solver)
//	root_proof                             0 to MaxABDepth
//	root_proof_nodes                       1 to MaxRootProofNodes (2^40)
//	minimax_weight, heuristic_weight       0 to 1
//	temperature values                     0 to 100, their moves ascending
const (
	// MaxInFlight bounds InFlight: a search holds the policy of every leaf in flight (the
	// training configuration's selfplay.in_flight has the same bound).
	MaxInFlight = 256
	// MaxTreeNodes bounds MaxNodes: the tree numbers its nodes in int32 (and 2^30 nodes are
	// 48 GiB).
	MaxTreeNodes = 1 << 30
	// MaxGumbelActions bounds GumbelActions: more than any game's actions (Gygès advanced has
	// 48006), so that m = NumActions, every move, is taken; the search samples at most the
	// moves there are.
	MaxGumbelActions = 1 << 16
	// MaxRootProofNodes bounds RootProofNodes, the positions of a search's root proofs.
	MaxRootProofNodes int64 = 1 << 40
)

// Validate says which parameter is out of range, if any, as a *ParamError.
func (p *Params) Validate() error {
	bad := func(key string, v any, want string) error {
		return &ParamError{Key: key, Value: v, Want: want}
	}
	// in is v finite and in [lo, hi] (NaN is not).
	in := func(v, lo, hi float64) bool { return v >= lo && v <= hi }
	switch {
	case p.Rule != PUCT && p.Rule != UCB1:
		return bad("rule", p.Rule, "puct or ucb1")
	case !in(p.CPuct, 0, 100):
		return bad("c_puct", p.CPuct, "a number from 0 to 100")
	case !in(p.CPuctBase, 0, 1e9):
		return bad("c_puct_base", p.CPuctBase, "a number from 0 to 1e9 (0: constant c)")
	case !in(p.FPUReduction, -2, 2):
		return bad("fpu_reduction", p.FPUReduction, "a number from -2 to 2")
	case !in(p.UCBC, 0, 100):
		return bad("ucb_c", p.UCBC, "a number from 0 to 100")
	case !in(p.DirichletAlpha, 0, 100):
		return bad("dirichlet_alpha", p.DirichletAlpha, "a number from 0 to 100 (0: no noise)")
	case !in(p.NoiseFraction, 0, 1):
		return bad("noise_fraction", p.NoiseFraction, "a number in [0, 1]")
	case p.Gumbel && p.GumbelActions < 1 || p.GumbelActions > MaxGumbelActions:
		return bad("gumbel_actions", p.GumbelActions, fmt.Sprintf("1 to %d", MaxGumbelActions))
	case !in(p.GumbelScale, 0, 100):
		return bad("gumbel_scale", p.GumbelScale, "a number from 0 to 100")
	case !in(p.CVisit, 0, 1e6):
		return bad("c_visit", p.CVisit, "a number from 0 to 1e6")
	case !in(p.CScale, 0, 100):
		return bad("c_scale", p.CScale, "a number from 0 to 100")
	case p.InFlight < 1 || p.InFlight > MaxInFlight:
		return bad("in_flight", p.InFlight, fmt.Sprintf("1 to %d", MaxInFlight))
	case !in(p.VirtualLoss, 0, 100):
		return bad("virtual_loss", p.VirtualLoss, "a number from 0 to 100")
	case p.MaxNodes < 1 || p.MaxNodes > MaxTreeNodes:
		return bad("max_nodes", p.MaxNodes, fmt.Sprintf("1 to %d (2^30)", MaxTreeNodes))
	case p.Solver && (p.ScanDepth < 1 || p.ScanDepth > 8):
		return bad("scan_depth", p.ScanDepth, "1 (the root) to 8")
	case p.RootProof < 0 || p.RootProof > MaxABDepth:
		return bad("root_proof", p.RootProof, fmt.Sprintf("0 (off) to %d turns", MaxABDepth))
	case p.RootProof > 0 && p.RootProofNodes < 1 || int64(p.RootProofNodes) > MaxRootProofNodes:
		return bad("root_proof_nodes", p.RootProofNodes, fmt.Sprintf("1 to %d (2^40)", MaxRootProofNodes))
	case !in(p.MinimaxWeight, 0, 1):
		return bad("minimax_weight", p.MinimaxWeight, "a number in [0, 1] (0: off)")
	case !in(p.HeuristicWeight, 0, 1):
		return bad("heuristic_weight", p.HeuristicWeight, "a number in [0, 1] (0: off)")
	}
	return p.Temperature.validate()
}

// Schedule is a value that changes with the move number: Steps in increasing order of From,
// each value holding from its move on (moves count from 0). Before the first step the value is 0.
type Schedule []Step

// Step is one piece of a Schedule.
type Step struct {
	From  int     `yaml:"from" json:"from"`
	Value float64 `yaml:"value" json:"value"`
}

// Constant is the schedule of one value for the whole game.
func Constant(v float64) Schedule { return Schedule{{0, v}} }

// At is the value at move number move.
func (s Schedule) At(move int) float64 {
	v := 0.0
	for _, st := range s {
		if st.From > move {
			break
		}
		v = st.Value
	}
	return v
}

func (s Schedule) validate() error {
	for i, st := range s {
		if i > 0 && st.From <= s[i-1].From {
			return &ParamError{Key: fmt.Sprintf("temperature[%d].from", i), Value: st.From, Want: "steps in increasing order of move"}
		}
		if !(st.Value >= 0 && st.Value <= 100) {
			return &ParamError{Key: fmt.Sprintf("temperature[%d].value", i), Value: st.Value, Want: "a number from 0 to 100"}
		}
	}
	return nil
}
