package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/zerogames/zero/internal/games"
)

func perftCmd(fs *flag.FlagSet) func(context.Context, []string, io.Reader, io.Writer, io.Writer) error {
	game := fs.String("game", defaultGame, "the game: "+joinNames())
	moves := fs.String("moves", "", "the position, as the moves from the start (or from --position) separated by ';'")
	position := fs.String("position", "", "start from this position, in the game's position notation (gyges: 321123/000000/000000/000000/000000/321123 s)")
	depth := fs.Int("depth", 4, "the number of plies (every decision, chance included, is a ply)")
	bulk := fs.Bool("bulk", false, "count the last ply's moves without playing them (every node is made otherwise)")
	divide := fs.Bool("divide", false, "also count the leaves below each legal move at the full depth")
	return func(ctx context.Context, args []string, _ io.Reader, stdout, _ io.Writer) error {
		if err := noArgs(args); err != nil {
			return err
		}
		if *depth < 1 || *depth > 64 {
			return fmt.Errorf("--depth %d: want 1 to 64", *depth)
		}
		g, err := games.Lookup(*game)
		if err != nil {
			return fmt.Errorf("--game: %w", err)
		}
		pos, from := g.NewPosition(), ""
		if *position != "" {
			if pos, err = games.FromPosition(g, *position); err != nil {
				return fmt.Errorf("--position: %w", err)
			}
			from = " from " + *position
		}
		if err := pos.PlayMoves(*moves); err != nil {
			return fmt.Errorf("--moves: %w", err)
		}
		method := "every node made"
		if *bulk {
			method = "last ply bulk-counted"
		}
		fmt.Fprintf(stdout, "perft %s%s after %d moves, %s to move; %s\n", g.Info().Name, from, len(pos.Moves()), pos.ToMove(), method)
		fmt.Fprintf(stdout, "%5s %15s %9s %13s\n", "depth", "leaves", "seconds", "leaves/s")
		start := time.Now()
		err = g.Perft(ctx, pos, *depth, *bulk, func(d int, leaves uint64) {
			elapsed := time.Since(start)
			fmt.Fprintf(stdout, "%5d %15d %9.3f %13.0f\n", d, leaves, elapsed.Seconds(), float64(leaves)/max(elapsed.Seconds(), 1e-9))
			start = time.Now()
		})
		if err != nil {
			return err
		}
		if *divide {
			lines, err := g.Divide(ctx, pos, *depth, *bulk)
			if err != nil {
				return err
			}
			for _, l := range lines {
				fmt.Fprintf(stdout, "%s: %d\n", l.Move, l.Leaves)
			}
		}
		return ctx.Err()
	}
}
