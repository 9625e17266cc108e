package ui

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/zerogames/zero/internal/duration"
	"github.com/zerogames/zero/selfplay"
)

// Progress shows games being played: a progress bar with rate and time left when w is a
// terminal, else one plain line per game (for logs and pipes).
type Progress struct {
	w     io.Writer
	bar   *progressbar.ProgressBar
	start time.Time
}

// NewProgress returns a Progress for total games, described by what ("arena yinsh-blitz").
func NewProgress(w io.Writer, total int, what string) *Progress {
	p := &Progress{w: w, start: time.Now()}
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		p.bar = progressbar.NewOptions(total,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetDescription(what),
			progressbar.OptionShowCount(),
			progressbar.OptionShowIts(),
			progressbar.OptionSetItsString("games"),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionFullWidth(),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
		)
	}
	return p
}

// Game reports a finished game; it has the signature of ArenaConfig.Progress.
func (p *Progress) Game(done, total int, r *selfplay.Record) {
	if p.bar != nil {
		p.bar.Set(done)
		return
	}
	fmt.Fprintf(p.w, "game %d/%d (%s): %s (%s) vs %s (%s): %s in %d decisions\n", done, total,
		duration.Format(time.Since(p.start)), r.Players[0], r.Sides[0], r.Players[1], r.Sides[1],
		describe(r), len(r.Moves))
}

func describe(r *selfplay.Record) string {
	switch w := r.Winner(); w {
	case 0, 1:
		return r.Players[w] + " wins"
	}
	return "draw"
}
