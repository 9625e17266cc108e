package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime/pprof"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/zerogames/zero/internal/games"
	"github.com/zerogames/zero/internal/ui"
	"github.com/zerogames/zero/selfplay"
	"github.com/zerogames/zero/train"
)

// benchSearch measures one search as play, the engine and arenas run it: a search bounded by
// time alone from positions of seeded random games, from each number of threads in turn
// (interleaved, position by position), reporting simulations a second and the CPU used.
func benchSearch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench search", "[flags]", "measure one timed search (as zero engine's go infinite, mcts:TIME): simulations a second and cores used, by number of threads, from positions of seeded random games, interleaved")
	game := fs.String("game", defaultGame, "the game: "+joinNames())
	player := fs.String("player", "", "the player searching, a spec of uct, ucb1 or mcts without its threads (default: the game's shipped model, mcts with the model)")
	threadList := fs.String("threads", "", "the numbers of threads to measure, comma-separated (default: 1 and the cores, "+strconv.Itoa(selfplay.SearchThreads())+")")
	per := fs.Duration("time", time.Second, "the time of each search")
	positions := fs.Int("positions", 4, "the positions searched, each the position after a seeded random number of random moves")
	rounds := fs.Int("rounds", 2, "the rounds: every position searched once by each number of threads in each")
	seed := fs.Uint64("seed", 1, "the seed of the random games")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the searches measured (give one --threads to profile it alone) to `FILE`, for go tool pprof")
	if help, err := parseFlags(fs, args, stdout, stderr); help || err != nil {
		return err
	}
	if err := noArgs(fs.Args()); err != nil {
		return err
	}
	if err := durations(durationFlag{"time", *per, ""}); err != nil {
		return err
	}
	switch {
	case *positions < 1 || *positions > 1000:
		return fmt.Errorf("--positions %d: want 1 to 1000", *positions)
	case *rounds < 1 || *rounds > 1000:
		return fmt.Errorf("--rounds %d: want 1 to 1000", *rounds)
	case *per > selfplay.MaxMoveTime:
		return fmt.Errorf("--time %v: want at most %v", *per, selfplay.MaxMoveTime)
	}
	g, err := games.Lookup(*game)
	if err != nil {
		return err
	}
	spec := *player
	if spec == "" {
		spec = ui.DefaultSpec("", g.Info().Name)
	}
	threads := []int{1, selfplay.SearchThreads()}
	if *threadList != "" {
		if threads, err = intList("--threads", *threadList, selfplay.MaxThreads); err != nil {
			return err
		}
	} else if threads[1] == 1 {
		threads = threads[:1]
	}
	specs := make([]string, len(threads))
	for i, k := range threads {
		if specs[i], err = withThreads(spec, k); err != nil {
			return err
		}
	}
	pool, err := randomPositions(g, 20**positions, *seed)
	if err != nil {
		return err
	}
	// One agent a number of threads, warmed up by a short search (its engines, helpers and
	// cache made) on a position of its own.
	agents := make([]games.Agent, len(threads))
	warm := g.NewPosition()
	for i, sp := range specs {
		if agents[i], err = g.NewAgent(sp, 1); err != nil {
			return err
		}
		if _, err := agents[i].Analyze(ctx, warm, selfplay.Limits{Simulations: math.MaxInt, Time: 50 * time.Millisecond}, nil); err != nil {
			return err
		}
	}
	// The positions measured: the first of the pool whose search goes on past the root, not one
	// the solver decides before any simulation (a search of it measures nothing).
	var pos []*games.Position
	for _, p := range pool {
		if len(pos) == *positions {
			break
		}
		an, err := agents[0].Analyze(ctx, p, selfplay.Limits{Simulations: 20, Untimed: true}, nil)
		if err != nil {
			return err
		}
		if an.Work > 0 {
			pos = append(pos, p)
		}
	}
	if len(pos) < *positions {
		return fmt.Errorf("bench search: %d of %d random positions are not decided by the solver at once; %d wanted", len(pos), len(pool), *positions)
	}
	fmt.Fprintf(stdout, "bench search: %s, %s, %d positions × %d rounds of %v a search, %s\n", g.Info().Name, spec, len(pos), *rounds, *per, cpuName())
	var prof *os.File
	if *cpuProfile != "" {
		if prof, err = os.Create(*cpuProfile); err != nil {
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		defer prof.Close()
		if err := pprof.StartCPUProfile(prof); err != nil {
			return err
		}
	}
	sims := make([]float64, len(threads))
	wall := make([]time.Duration, len(threads))
	cpu := make([]float64, len(threads))
	for range *rounds {
		for _, p := range pos {
			for i := range threads {
				// A fresh tree and cache, made before the clock starts: nothing carried over
				// from the last search.
				agents[i].Release()
				if _, err := agents[i].Analyze(ctx, warm, selfplay.Limits{Simulations: 1, Untimed: true}, nil); err != nil {
					return err
				}
				c0, t0 := train.CPUSeconds(), time.Now()
				an, err := agents[i].Analyze(ctx, p, selfplay.Limits{Simulations: math.MaxInt, Time: *per}, nil)
				el, c := time.Since(t0), train.CPUSeconds()-c0
				if err != nil {
					return err
				}
				if err := ctx.Err(); err != nil {
					return err
				}
				sims[i] += float64(an.Work)
				wall[i] += el
				cpu[i] += c
			}
		}
	}
	if prof != nil {
		pprof.StopCPUProfile()
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "threads\tsimulations/s\tcores used\t× 1 thread\t")
	for i, k := range threads {
		rate := sims[i] / wall[i].Seconds()
		ratio := "-"
		if threads[0] == 1 && i > 0 && sims[0] > 0 {
			ratio = fmt.Sprintf("%.2f", rate/(sims[0]/wall[0].Seconds()))
		}
		fmt.Fprintf(tw, "%d\t%.0f\t%.2f\t%s\t\n", k, rate, cpu[i]/wall[i].Seconds(), ratio)
	}
	return tw.Flush()
}

// withThreads is spec searching from k threads (selfplay.Spec.WithSetting).
func withThreads(spec string, k int) (string, error) {
	sp, err := selfplay.ParseSpec(spec)
	if err != nil {
		return "", err
	}
	switch {
	case !sp.KindInfo().Searches:
		names := selfplay.SearchKinds()
		return "", fmt.Errorf("--player %q: a search of %s or %s is measured, not %s", spec, strings.Join(names[:len(names)-1], ", "), names[len(names)-1], sp.Kind)
	case sp.Threads != 0:
		return "", fmt.Errorf("--player %q: give the threads with --threads, not in the spec", spec)
	}
	return sp.WithSetting("threads", strconv.Itoa(k))
}

// randomPositions plays n seeded random games a random number of moves in (up to 30, chance
// drawn by its probabilities), keeping the positions that are not over.
func randomPositions(g games.Game, n int, seed uint64) ([]*games.Position, error) {
	rng := rand.New(rand.NewPCG(seed, 0xbe5c))
	var out []*games.Position
	for tries := 0; len(out) < n; tries++ {
		if tries > 100*n {
			return nil, errors.New("bench search: no position found that is not over")
		}
		p := g.NewPosition()
		for range rng.IntN(31) {
			if p.Over() {
				break
			}
			move := ""
			if ch := p.Chances(); len(ch) > 0 {
				x := rng.Float64()
				for _, o := range ch {
					if move = o.Move; x < o.Prob {
						break
					}
					x -= o.Prob
				}
			} else {
				legal := p.Legal()
				move = legal[rng.IntN(len(legal))]
			}
			if err := p.Play(move); err != nil {
				return nil, err
			}
		}
		if !p.Over() && len(p.Chances()) == 0 {
			out = append(out, p)
		}
	}
	return out, nil
}
