// Command gygesjudge plays Gygès advanced players that the player specs cannot name against the
// classical ab:D (the heuristic past its depth), to tell which part of a player is weak (issue
// 49, docs/BENCHMARKS.md "Gygès: what holds the model back"):
//
//   - -player net: ab:D valued past its depth by the model's value head instead of the
//     heuristic (-lambda below 1: the mean of both, the network's weight lambda), the same
//     search otherwise: which judges positions better;
//   - -player uniform: MCTS with equal priors and the heuristic as every leaf's value
//     (heuristic_weight=1; -mm sets minimax_weight), N simulations a move: how far the search
//     shape alone takes the heuristic.
//
// Games come in pairs from one random opening of -opening decisions, sides swapped; the score
// is the tested player's wins, draws and losses, then each side's mean time a move.
//
//	go run -tags openblas,dnnl ./scripts/gygesjudge -player net -depth 2 -games 20
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/env/gyges"
	"github.com/zerogames/zero/mcts"
	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/net"
)

// netValued is Gygès advanced with the network's value as its heuristic.
type netValued struct {
	*gyges.Game
	e        *net.Engine
	obs      []float32
	logits   []float32
	value    []float32
	evaluate int
	// lambda is the network's weight in the value, the heuristic's 1-lambda (-lambda).
	lambda float64
}

func (g *netValued) Heuristic(s gyges.State) float64 {
	g.evaluate++
	s.Observe(g.obs)
	if err := g.e.Evaluate(g.obs, g.logits, g.value); err != nil {
		log.Fatal(err)
	}
	// Below the ±1 of a proven end, as a heuristic's values are.
	v := 0.98 * max(-1, min(1, float64(g.value[0])))
	if g.lambda < 1 {
		v = g.lambda*v + (1-g.lambda)*g.Game.Heuristic(s)
	}
	return v
}

func main() {
	player := flag.String("player", "net", "the tested player: net (ab:D valued by the model) or uniform (MCTS, equal priors, the heuristic's values)")
	model := flag.String("model", "models/gyges-advanced.zck", "the checkpoint of -player net")
	depth := flag.Int("depth", 3, "D of both ab:D (of the opponent only with -player uniform)")
	sims := flag.Int("sims", 400, "simulations a move of -player uniform")
	mm := flag.Float64("mm", 0, "minimax_weight of -player uniform")
	lambda := flag.Float64("lambda", 1, "the network's weight in -player net's values, the heuristic's 1-lambda")
	games := flag.Int("games", 20, "games (an even number: pairs)")
	opening := flag.Int("opening", 4, "random decisions that open each pair")
	seed := flag.Uint64("seed", 1, "seed of the openings")
	flag.Parse()
	g := gyges.Advanced
	judge, err := mcts.NewAlphaBeta[gyges.State](g, *depth, 0, 2)
	if err != nil {
		log.Fatal(err)
	}
	var choose func(s gyges.State) (env.Action, error)
	var ng *netValued
	switch *player {
	case "net":
		spec, err := net.SpecOf(g.Info(), g)
		if err != nil {
			log.Fatal(err)
		}
		e, err := net.LoadEngine(models.ReadFile, *model, spec)
		if err != nil {
			log.Fatal(err)
		}
		ng = &netValued{Game: g, e: e, obs: make([]float32, g.Info().Observation.Size()),
			logits: make([]float32, g.Info().NumActions), value: make([]float32, 1), lambda: *lambda}
		ab, err := mcts.NewAlphaBeta[gyges.State](ng, *depth, 0, 1)
		if err != nil {
			log.Fatal(err)
		}
		choose = func(s gyges.State) (env.Action, error) {
			r, err := ab.Search(context.Background(), s)
			return r.Best, err
		}
	case "uniform":
		p := mcts.DefaultParams()
		p.HeuristicWeight, p.MinimaxWeight = 1, *mm
		search, err := mcts.New[gyges.State](g, mcts.Uniform[gyges.State]{}, p, 3)
		if err != nil {
			log.Fatal(err)
		}
		choose = func(s gyges.State) (env.Action, error) {
			search.SetRoot(s)
			if err := search.Run(context.Background(), mcts.Budget{Simulations: *sims}); err != nil {
				return 0, err
			}
			return search.Choose(0)
		}
	default:
		log.Fatalf("-player %q: net or uniform", *player)
	}
	var score [3]int // the tested player's wins, draws, losses
	var spent [2]time.Duration
	var moves [2]int
	var buf []env.Action
	for k := range *games {
		rng := rand.New(rand.NewPCG(*seed, uint64(k/2)))
		s := g.New()
		for d := 0; d < *opening && s.ToMove() != env.Terminal; d++ {
			buf = s.Legal(buf[:0])
			s = s.Play(buf[rng.IntN(len(buf))])
		}
		tested := env.Player(k % 2)
		for s.ToMove() == 0 || s.ToMove() == 1 {
			who := 1
			if s.ToMove() == tested {
				who = 0
			}
			t0 := time.Now()
			var a env.Action
			if who == 0 {
				a, err = choose(s)
			} else {
				var r mcts.ABResult
				r, err = judge.Search(context.Background(), s)
				a = r.Best
			}
			if err != nil {
				log.Fatal(err)
			}
			spent[who] += time.Since(t0)
			moves[who]++
			s = s.Play(a)
		}
		switch r := s.Result(); {
		case r == env.Draw:
			score[1]++
		case r.Value(tested) > 0:
			score[0]++
		default:
			score[2]++
		}
		fmt.Printf("game %d: tested player %d; %d-%d-%d\n", k+1, tested, score[0], score[1], score[2])
	}
	ms := func(i int) float64 { return float64(spent[i].Microseconds()) / 1000 / float64(max(moves[i], 1)) }
	fmt.Printf("%s against ab:%d: %d-%d-%d; ms a move %.1f / %.1f\n", *player, *depth, score[0], score[1], score[2], ms(0), ms(1))
	if ng != nil {
		fmt.Printf("network evaluations: %d\n", ng.evaluate)
	}
}
