package selfplay

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/zerogames/zero/env"
)

// Setup is what one game needs: the players of sides 0 and 1, their names (specs), and seeds.
type Setup[S env.State[S]] struct {
	Players [2]Player[S]
	Names   [2]string
	// ChanceSeed alone seeds chance's draws (and the random opening), so two games with the
	// same ChanceSeed draw alike as long as the same chance decisions come up: the same deck
	// order in Imbriqua, whoever plays which side.
	ChanceSeed uint64
	// Seeds seed the players of sides 0 and 1 for the game.
	Seeds [2]uint64
	// Opening is the number of decisions at the start drawn at random (uniformly among the
	// legal actions, chance by probability) from the chance generator instead of asked of the
	// players: with the same ChanceSeed two games open alike, and players that search
	// deterministically still meet in varied positions.
	Opening int
}

// PlayGame plays one game of g as set up and returns its record.
func PlayGame[S env.State[S]](ctx context.Context, g env.Game[S], setup Setup[S]) (Record, error) {
	info := g.Info()
	players, names := setup.Players, setup.Names
	rec := Record{Game: info.Name, Players: names, Sides: info.PlayerNames, Opening: setup.Opening,
		Seeds: [3]uint64{setup.ChanceSeed, setup.Seeds[0], setup.Seeds[1]}, Result: "none"}
	chance := rand.New(rand.NewPCG(setup.ChanceSeed, 0xc4a9ce))
	s := g.New()
	for i, p := range players {
		p.NewGame(s, setup.Seeds[i])
	}
	var (
		actions  = make([]env.Action, 0, info.NumActions)
		outcomes = make([]env.Outcome, 0, info.NumActions)
	)
	for n := 0; s.ToMove() != env.Terminal; n++ {
		if n >= info.MaxLength {
			return rec, fmt.Errorf("%s: the game is longer than its bound of %d decisions", info.Name, info.MaxLength)
		}
		var a env.Action
		switch who := s.ToMove(); {
		case who == env.Chance:
			outcomes = s.Chances(outcomes[:0])
			a = env.SampleOutcome(outcomes, chance.Float64())
		case n < setup.Opening:
			actions = s.Legal(actions[:0])
			a = actions[chance.IntN(len(actions))]
		default:
			var err error
			start := time.Now()
			if a, err = players[who].Choose(ctx, s, n); err != nil {
				return rec, fmt.Errorf("%s (%s) at decision %d: %w", names[who], info.PlayerNames[who], n+1, err)
			}
			th := &rec.Thinking[who]
			th.Moves++
			th.Time += time.Since(start)
			if c, ok := players[who].(interface{ Simulations() int }); ok {
				th.Simulations += int64(c.Simulations())
			}
			actions = s.Legal(actions[:0])
			legal := false
			for _, b := range actions {
				legal = legal || a == b
			}
			if !legal {
				return rec, fmt.Errorf("%s (%s) at decision %d chose the illegal %s, after %s", names[who],
					info.PlayerNames[who], n+1, env.ActionString(s, a), rec.MoveList())
			}
		}
		for i, p := range players {
			if err := p.Played(s, a); err != nil {
				return rec, fmt.Errorf("%s told of %s: %w", names[i], env.ActionString(s, a), err)
			}
		}
		rec.Moves = append(rec.Moves, env.ActionString(s, a))
		s = s.Play(a)
	}
	rec.Result = info.ResultName(s.Result())
	return rec, nil
}
