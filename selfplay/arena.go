package selfplay

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/atomicfile"
)

// ArenaConfig describes a round robin.
type ArenaConfig struct {
	// Players are the players' specs (see Spec), at least two, all different.
	Players []string
	// Games is the number of games each pair plays, sides alternating: the pair's first player
	// takes side 0 in its even games.
	Games int
	// Seed seeds everything: the chance of every game and every player's generators.
	Seed uint64
	// Opening is the number of decisions that open each game at random, the same in the two
	// games of a pair that swap sides (see Setup.Opening): needed to vary the games of
	// players that search deterministically (networks without noise).
	Opening int
	// Workers is the number of games played at once (0: one per core).
	Workers int
	// Anchor is the spec of the player rated 0 (default: the first player).
	Anchor string
	// Prior is the number of virtual draws of the ratings' prior (default 2, as BayesElo;
	// negative for none).
	Prior float64
	// Progress, if set, is called after each game, from one goroutine at a time, with the
	// number of games done, the total, and the game's record.
	Progress func(done, total int, r *Record)
}

// PairResult is how two players fared against each other, from A's side.
type PairResult struct {
	A          string `json:"a"`
	B          string `json:"b"`
	WinsA      int    `json:"wins_a"`
	Draws      int    `json:"draws"`
	WinsB      int    `json:"wins_b"`
	WinsAFirst int    `json:"wins_a_first"` // A's wins when A had side 0
	WinsBFirst int    `json:"wins_b_first"` // B's wins when B had side 0
}

// ArenaResult is a finished round robin.
type ArenaResult struct {
	Game    string       `json:"game"`
	Players []string     `json:"players"`
	Games   int          `json:"games_per_pair"`
	Seed    uint64       `json:"seed"`
	Opening int          `json:"opening,omitempty"`
	Pairs   []PairResult `json:"pairs"`
	// Ratings is nil, and left out of ratings.json, when Unrated says why.
	Ratings *Ratings `json:"ratings,omitempty"`
	// Engines says what each player's network ran on (net.Engine.Describe), by spec; players
	// without a network are not in it.
	Engines map[string]string `json:"engines,omitempty"`
	// Thinking is what each player (by the order of Players) spent on its moves over all its
	// games.
	Thinking []Thinking `json:"thinking"`
	// Records are the games, in the order of the pairs and their games.
	Records []Record `json:"-"`
	// Interrupted tells that the arena was stopped (its context ended) before every game was
	// played: the result is of the games finished, Records.
	Interrupted bool `json:"interrupted,omitempty"`
	// Unrated says why an interrupted arena has no Ratings (a player had no game linking it to
	// the anchor yet).
	Unrated string `json:"unrated,omitempty"`
}

// game is one game of the round robin.
type arenaGame struct {
	pair, a, b int // pair index and the players' indices
	k          int // the game's number within the pair
	cost       int // simulations per decision, to schedule the long games first
}

// arenaThreads is the threads of a player of an arena of players players, games games a pair
// on workers goroutines: its spec's, or for a search bounded by time alone its share of the
// cores among the games played at once (SearchThreads for a game played alone).
func arenaThreads(sp Spec, workers, players, games int) int {
	if sp.Threads > 0 || !sp.KindInfo().Searches || sp.Time <= 0 || sp.Simulations > 0 {
		return sp.Threads
	}
	atOnce := min(workers, max(players*(players-1)/2*games, 1))
	return max(1, SearchThreads()/atOnce)
}

// Arena plays a round robin between cfg.Players on game g: cfg.Games games per pair, sides
// alternating, on cfg.Workers goroutines, and rates the players. Stopped by ctx, it rates the
// games finished and returns their result (Interrupted) with ctx's error, or only the error
// if none finished.
//
// Games 2i and 2i+1 of a pair share their chance seed, so with the sides swapped they draw the
// same chance outcomes (Imbriqua's deck orders) as long as the same chance decisions come up.
// Every seed derives from cfg.Seed, the pair and the game's number: the results do not depend
// on the number of workers or the order the games finish in.
func Arena[S env.State[S]](ctx context.Context, g env.Game[S], cfg ArenaConfig) (*ArenaResult, error) {
	specs, err := checkArena(cfg)
	if err != nil {
		return nil, err
	}
	anchor := 0
	if cfg.Anchor != "" {
		anchor = slices.Index(cfg.Players, cfg.Anchor)
		if anchor < 0 {
			return nil, fmt.Errorf("anchor %q is not one of the players", cfg.Anchor)
		}
	}
	prior := cfg.Prior
	switch {
	case prior == 0:
		prior = 2
	case prior < 0:
		prior = 0
	}
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// A player searching for a time alone, its threads not set, takes its share of the cores
	// the games played at once share (one each when there are as many games as cores).
	for i, sp := range specs {
		specs[i].Threads = arenaThreads(sp, workers, len(specs), cfg.Games)
	}
	// Make one player of each spec first, so a bad spec or checkpoint fails before any game.
	engines := map[string]string{}
	for _, sp := range specs {
		p, err := NewPlayer(g, sp)
		if err != nil {
			return nil, err
		}
		if e, ok := p.(interface{ Engine() string }); ok && e.Engine() != "" {
			engines[sp.Text] = e.Engine()
		}
	}
	var games []arenaGame
	pair := 0
	for a := range specs {
		for b := a + 1; b < len(specs); b++ {
			for k := range cfg.Games {
				games = append(games, arenaGame{pair: pair, a: a, b: b, k: k,
					cost: specs[a].Simulations + specs[b].Simulations})
			}
			pair++
		}
	}
	records := make([]Record, len(games))
	order := make([]int, len(games))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(games[j].cost, games[i].cost) })

	parent := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan int)
	var (
		mu       sync.Mutex
		done     int
		finished = make([]bool, len(games))
		wg       sync.WaitGroup
	)
	for range min(workers, len(games)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each worker keeps one player per spec, reseeded for every game, so the trees'
			// memory is reused.
			players := make([]Player[S], len(specs))
			for job := range jobs {
				ga := games[job]
				var seats [2]int
				if ga.k%2 == 0 {
					seats = [2]int{ga.a, ga.b}
				} else {
					seats = [2]int{ga.b, ga.a}
				}
				var ps [2]Player[S]
				var names [2]string
				for side, who := range seats {
					if players[who] == nil {
						p, err := NewPlayer(g, specs[who])
						if err != nil {
							cancel(err)
							return
						}
						players[who] = p
					}
					ps[side], names[side] = players[who], specs[who].Text
				}
				chanceSeed := mix(cfg.Seed, uint64(ga.pair), uint64(ga.k/2), 0)
				seeds := [2]uint64{mix(cfg.Seed, uint64(ga.pair), uint64(ga.k), 1), mix(cfg.Seed, uint64(ga.pair), uint64(ga.k), 2)}
				rec, err := PlayGame(ctx, g, Setup[S]{Players: ps, Names: names, ChanceSeed: chanceSeed,
					Seeds: seeds, Opening: cfg.Opening})
				if err != nil {
					cancel(fmt.Errorf("game %d of %s vs %s: %w", ga.k+1, specs[ga.a].Text, specs[ga.b].Text, err))
					return
				}
				records[job] = rec
				mu.Lock()
				finished[job] = true
				done++
				if cfg.Progress != nil {
					cfg.Progress(done, len(games), &records[job])
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, job := range order {
		select {
		case jobs <- job:
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	// Stopped from outside (not by a failure), the games finished are rated: an arena of hours
	// stopped by Ctrl-C keeps what it played.
	stopped := context.Cause(ctx)
	if stopped != nil && (parent.Err() == nil || !errors.Is(stopped, context.Cause(parent)) || done == 0) {
		return nil, stopped
	}
	if done == len(games) {
		stopped = nil // stopped once every game was played: nothing was cut short
	}
	if stopped != nil {
		var kept []arenaGame
		var keptRecords []Record
		for i, ok := range finished {
			if ok {
				kept, keptRecords = append(kept, games[i]), append(keptRecords, records[i])
			}
		}
		games, records = kept, keptRecords
	}

	res := &ArenaResult{Game: g.Info().Name, Players: slices.Clone(cfg.Players), Games: cfg.Games, Seed: cfg.Seed,
		Opening: cfg.Opening, Records: records, Interrupted: stopped != nil}
	if len(engines) > 0 {
		res.Engines = engines
	}
	outcomes := make([]Outcome, 0, len(games))
	res.Pairs = make([]PairResult, pair)
	for a, k := 0, 0; a < len(specs); a++ { // named even if none of their games finished
		for b := a + 1; b < len(specs); b, k = b+1, k+1 {
			res.Pairs[k].A, res.Pairs[k].B = specs[a].Text, specs[b].Text
		}
	}
	res.Thinking = make([]Thinking, len(specs))
	for i, ga := range games {
		pr := &res.Pairs[ga.pair]
		pr.A, pr.B = specs[ga.a].Text, specs[ga.b].Text
		first, second := ga.a, ga.b
		if ga.k%2 == 1 {
			first, second = ga.b, ga.a
		}
		res.Thinking[first].Add(records[i].Thinking[0])
		res.Thinking[second].Add(records[i].Thinking[1])
		score := 0.5
		switch records[i].Winner() {
		case 0:
			score = 1
		case 1:
			score = 0
		}
		outcomes = append(outcomes, Outcome{First: first, Second: second, Score: score})
		switch {
		case score == 0.5:
			pr.Draws++
		case (score == 1) == (first == ga.a):
			pr.WinsA++
			if first == ga.a {
				pr.WinsAFirst++
			}
		default:
			pr.WinsB++
			if first == ga.b {
				pr.WinsBFirst++
			}
		}
	}
	ratings, err := Rate(cfg.Players, outcomes, anchor, prior)
	switch {
	case err == nil:
		res.Ratings = &ratings
	case stopped == nil:
		return nil, err
	default:
		// Stopped before the games linked every player: the games and pairs still stand.
		res.Unrated = err.Error()
	}
	return res, stopped
}

// The bounds of an arena (what it allocates grows with them: a record for every game, players
// for every worker).
const (
	// MaxArenaGames bounds the games of a pair, and MaxArenaTotal those of an arena.
	MaxArenaGames = 100_000
	MaxArenaTotal = 1_000_000
	// MaxArenaWorkers bounds the games played at once.
	MaxArenaWorkers = 256
	// MaxOpening bounds the random decisions that open a game.
	MaxOpening = 1000
)

func checkArena(cfg ArenaConfig) ([]Spec, error) {
	if len(cfg.Players) < 2 {
		return nil, fmt.Errorf("an arena needs at least two players, got %d", len(cfg.Players))
	}
	if cfg.Opening < 0 || cfg.Opening > MaxOpening {
		return nil, fmt.Errorf("opening = %d: want a number of decisions from 0 to %d", cfg.Opening, MaxOpening)
	}
	if cfg.Games < 1 || cfg.Games > MaxArenaGames {
		return nil, fmt.Errorf("games per pair = %d: want 1 to %d", cfg.Games, MaxArenaGames)
	}
	if pairs := len(cfg.Players) * (len(cfg.Players) - 1) / 2; pairs > MaxArenaTotal/cfg.Games {
		return nil, fmt.Errorf("%d players, %d games per pair: %d games, more than the %d an arena plays", len(cfg.Players), cfg.Games, pairs*cfg.Games, MaxArenaTotal)
	}
	if cfg.Workers < 0 || cfg.Workers > MaxArenaWorkers {
		return nil, fmt.Errorf("workers = %d: want 0 (one per core) to %d", cfg.Workers, MaxArenaWorkers)
	}
	specs := make([]Spec, len(cfg.Players))
	for i, text := range cfg.Players {
		sp, err := ParseSpec(text)
		if err != nil {
			return nil, err
		}
		if slices.Contains(cfg.Players[:i], text) {
			return nil, fmt.Errorf("player %q given twice", text)
		}
		specs[i] = sp
	}
	return specs, nil
}

// mix derives a seed from a seed and three numbers (SplitMix64's finalizer over each).
func mix(seed uint64, a, b, c uint64) uint64 {
	h := seed
	for _, x := range [3]uint64{a, b, c} {
		h ^= x + 0x9e3779b97f4a7c15 + h<<6 + h>>2
		h ^= h >> 30
		h *= 0xbf58476d1ce4e5b9
		h ^= h >> 27
		h *= 0x94d049bb133111eb
		h ^= h >> 31
	}
	return h
}

// WriteTable prints the ratings and the results of each pair.
func (r *ArenaResult) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	rt := r.Ratings
	if r.Interrupted {
		fmt.Fprintf(w, "%s: interrupted: %d games of %d played\n", r.Game, len(r.Records), r.Games*len(r.Pairs))
	}
	if rt == nil {
		fmt.Fprintf(w, "no ratings: %s\n\n", r.Unrated)
		return r.writePairs(w, tw)
	}
	fmt.Fprintf(w, "%s: %d games, %d per pair; Elo by maximum likelihood, 95%% intervals, %s = 0\n",
		r.Game, rt.Games, r.Games, rt.Anchor)
	order := make([]int, len(rt.Players))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int { return cmp.Compare(rt.Players[j].Elo, rt.Players[i].Elo) })
	fmt.Fprintln(tw, "player\tElo\t95%\tgames\tscore")
	for _, i := range order {
		p := rt.Players[i]
		fmt.Fprintf(tw, "%s\t%+.0f\t±%.0f\t%d\t%.1f%%\n", p.Name, noNegativeZero(p.Elo), p.CI95, p.Games, 100*p.Points/float64(max(p.Games, 1)))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "first side's advantage: %+.0f ±%.0f Elo\n\n", noNegativeZero(rt.Advantage), rt.AdvantageCI95)
	return r.writePairs(w, tw)
}

// writePairs prints the results of each pair, then what each player spent on its moves.
func (r *ArenaResult) writePairs(w io.Writer, tw *tabwriter.Writer) error {
	// The first side by its name in the game (south, white, light), as the records give it.
	first := "side 0"
	if len(r.Records) > 0 && r.Records[0].Sides[0] != "" {
		first = r.Records[0].Sides[0]
	}
	fmt.Fprintf(tw, "pair (a vs b)\ta wins\tdraws\tb wins\twins as %s (a, b)\n", first)
	for _, p := range r.Pairs {
		fmt.Fprintf(tw, "%s vs %s\t%d\t%d\t%d\t%d, %d\n", p.A, p.B, p.WinsA, p.Draws, p.WinsB, p.WinsAFirst, p.WinsBFirst)
	}
	if err := tw.Flush(); err != nil || len(r.Thinking) != len(r.Players) {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(tw, "player\tmoves chosen\ttime a move\tsimulations a move")
	for i, p := range r.Players {
		th := r.Thinking[i]
		n := max(th.Moves, 1)
		sims := "-"
		if th.Simulations > 0 {
			sims = fmt.Sprintf("%.0f", float64(th.Simulations)/float64(n))
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\n", p, th.Moves, roundTime(th.Time/time.Duration(n)), sims)
	}
	return tw.Flush()
}

// roundTime keeps three significant digits of d.
func roundTime(d time.Duration) time.Duration {
	for r := time.Duration(1); ; r *= 10 {
		if d < 1000*r {
			return d.Round(r)
		}
	}
}

// noNegativeZero rounds values that would print as -0 to 0.
func noNegativeZero(v float64) float64 {
	if math.Abs(v) < 0.5 {
		return 0
	}
	return v
}

// WriteFiles writes ratings.json (the result without the games) and games.jsonl (one Record
// per line, Record.MarshalLine) into dir, creating it if needed. Each file is written to a temporary name and
// renamed, so a reader never sees half a file.
func (r *ArenaResult) WriteFiles(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	ratings, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := atomicfile.Write(filepath.Join(dir, "ratings.json"), func(w io.Writer) error {
		_, err := w.Write(append(ratings, '\n'))
		return err
	}); err != nil {
		return err
	}
	return atomicfile.Write(filepath.Join(dir, "games.jsonl"), func(w io.Writer) error {
		for i := range r.Records {
			if _, err := w.Write(r.Records[i].MarshalLine()); err != nil {
				return err
			}
		}
		return nil
	})
}
