// Package report draws a training run's plots (`zero report`): from the run's metrics.jsonl,
// PNG charts of the losses, the Elo ladder and the throughput, against training steps and
// against the run's working time (minutes for runs under two hours, else hours), and a text
// summary of the run.
//
// Noisy series (losses, rates) are drawn as their raw points, faint, under an exponential
// moving average; the Elo of each checkpoint as points with its 95% interval as a shaded band.
// Legends sit beside the plot, never on the curves.
package report

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/zerogames/zero/train/metrics"
)

// Chart is one chart of a run: the series of a kind of record whose names it lists (a name
// ending in "/" stands for every series whose name starts with it, in name order). `zero
// report` draws each as two PNG files (File-by-step.png, File-by-time.png); zero serve's
// dashboard draws the same in the browser.
type Chart struct {
	File   string   `json:"id"`
	Title  string   `json:"title"`
	Kind   string   `json:"kind"` // the records' kind: train, selfplay, eval, ingest
	YLabel string   `json:"ylabel"`
	Names  []string `json:"names"`
	// Band: the series are a value with its _low and _high interval (the Elo's 95%).
	Band bool `json:"band"`
}

// Charts are a run's charts, in the order they are shown.
var Charts = []Chart{
	{"loss", "Training losses", "train", "loss", []string{"loss", "policy_loss", "value_loss"}, false},
	{"elo", "Elo of the checkpoints (95% interval)", "eval", "Elo", []string{"elo"}, true},
	{"selfplay", "Self-play and training rates", "selfplay", "per second", []string{"games_per_s", "samples_per_s", "steps_per_s"}, false},
	{"simulations", "Search rate", "selfplay", "simulations per second", []string{"simulations_per_s"}, false},
	{"ingest", "Games taken by the trainer, in all and by worker", "ingest", "games per second", []string{"games_per_s", "worker/"}, false},
	{"refused", "Games refused (not of the rules) and duplicates, per period", "ingest", "games", []string{"refused", "duplicates"}, false},
}

// Pick lists the value names of c among names (those of its records' kind), in the order c
// lists them, a prefix's in name order.
func (c Chart) Pick(names []string) []string {
	var out []string
	for _, n := range c.Names {
		var some []string
		for _, name := range names {
			if name == n || strings.HasSuffix(n, "/") && strings.HasPrefix(name, n) {
				some = append(some, name)
			}
		}
		slices.Sort(some)
		out = append(out, some...)
	}
	return out
}

// Write reads runDir/metrics.jsonl and writes the charts and summary.txt into outDir,
// returning the files written. Charts with no data are skipped.
func Write(runDir, outDir string) ([]string, error) {
	records, _, err := metrics.Read(filepath.Join(runDir, "metrics.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("reading the run's metrics: %w", err)
	}
	records = metrics.Timeline(records)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	hours := 0.0
	for _, r := range records {
		hours = max(hours, r.Elapsed/3600)
	}
	for _, c := range Charts {
		all := metrics.Collect(records, c.Kind)
		series := pick(all, c)
		if len(series) == 0 {
			continue
		}
		for _, byTime := range []bool{false, true} {
			name := c.File + "-by-step.png"
			if byTime {
				name = c.File + "-by-time.png"
			}
			path := filepath.Join(outDir, name)
			if err := draw1(path, c, series, all, byTime, hours); err != nil {
				return files, fmt.Errorf("%s: %w", path, err)
			}
			files = append(files, path)
		}
	}
	if len(files) == 0 {
		return nil, errors.New("the run has no metrics to plot yet")
	}
	path := filepath.Join(outDir, "summary.txt")
	f, err := os.Create(path)
	if err != nil {
		return files, err
	}
	Summary(f, records)
	if err := f.Close(); err != nil {
		return files, err
	}
	return append(files, path), nil
}

func pick(all []metrics.Series, c Chart) []metrics.Series {
	names := make([]string, len(all))
	for i, s := range all {
		names[i] = s.Name
	}
	var out []metrics.Series
	for _, n := range c.Pick(names) {
		s, _ := find(all, n)
		out = append(out, s)
	}
	return out
}

func find(all []metrics.Series, name string) (metrics.Series, bool) {
	i := slices.IndexFunc(all, func(s metrics.Series) bool { return s.Name == name })
	if i < 0 {
		return metrics.Series{}, false
	}
	return all[i], true
}

// smooth is the exponential moving average of v with a span of about a twentieth of the series
// (at least 1 point: no smoothing for short series), started at the first value.
func smooth(v []float64) []float64 {
	span := max(1, float64(len(v))/20)
	alpha := 2 / (span + 1)
	out := make([]float64, len(v))
	ema := math.NaN()
	for i, x := range v {
		switch {
		case math.IsNaN(x) || math.IsInf(x, 0):
		case math.IsNaN(ema):
			ema = x
		default:
			ema += alpha * (x - ema)
		}
		out[i] = ema
	}
	return out
}

// xAxis is the x of point j of s: its step, or its time in the unit chosen for the run.
func xAxis(s metrics.Series, j int, byTime bool, hours float64) float64 {
	switch {
	case !byTime:
		return s.Step[j]
	case hours < 2:
		return s.Elapsed[j] / 60
	default:
		return s.Elapsed[j] / 3600
	}
}

func points(s metrics.Series, v []float64, byTime bool, hours float64) plotter.XYs {
	xys := make(plotter.XYs, 0, len(v))
	for j := range v {
		if math.IsNaN(v[j]) || math.IsInf(v[j], 0) {
			continue
		}
		xys = append(xys, plotter.XY{X: xAxis(s, j, byTime, hours), Y: v[j]})
	}
	return xys
}

func faint(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	return color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 70}
}

func draw1(path string, c Chart, series, all []metrics.Series, byTime bool, hours float64) error {
	p := plot.New()
	p.Title.Text = c.Title
	p.Y.Label.Text = c.YLabel
	switch {
	case !byTime:
		p.X.Label.Text = "training step"
	case hours < 2:
		p.X.Label.Text = "minutes of training"
	default:
		p.X.Label.Text = "hours of training"
	}
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	for i, s := range series {
		col := plotutil.Color(i)
		if c.Band {
			low, okLow := find(all, s.Name+"_low")
			high, okHigh := find(all, s.Name+"_high")
			if okLow && okHigh && len(low.Value) == len(s.Value) && len(high.Value) == len(s.Value) {
				band := append(points(low, low.Value, byTime, hours), reverse(points(high, high.Value, byTime, hours))...)
				poly, err := plotter.NewPolygon(band)
				if err != nil {
					return err
				}
				poly.Color = faint(col)
				poly.LineStyle.Width = 0
				p.Add(poly)
				legend.Add("95% interval", poly)
			}
			line, pts, err := plotter.NewLinePoints(points(s, s.Value, byTime, hours))
			if err != nil {
				return err
			}
			line.Color, pts.Color, pts.Radius = col, col, vg.Points(2)
			p.Add(line, pts)
			legend.Add(strings.ReplaceAll(s.Name, "_", " "), line, pts)
			continue
		}
		raw, err := plotter.NewScatter(points(s, s.Value, byTime, hours))
		if err != nil {
			return err
		}
		raw.Color, raw.Radius = faint(col), vg.Points(1.2)
		line, err := plotter.NewLine(points(s, smooth(s.Value), byTime, hours))
		if err != nil {
			return err
		}
		line.Color, line.Width = col, vg.Points(1.5)
		p.Add(raw, line)
		legend.Add(strings.ReplaceAll(s.Name, "_", " ")+" (smoothed)", line)
	}
	return save(p, legend, path)
}

func reverse(xys plotter.XYs) plotter.XYs {
	slices.Reverse(xys)
	return xys
}

// save draws the plot with its legend to the right of it, outside the data area.
func save(p *plot.Plot, legend plot.Legend, path string) error {
	const width, height = 9 * vg.Inch, 5 * vg.Inch
	img := vgimg.New(width, height)
	dc := draw.New(img)
	r := legend.Rectangle(dc)
	pad := vg.Points(8)
	plotArea := dc
	plotArea.Max.X -= r.Max.X - r.Min.X + 2*pad
	p.Draw(plotArea)
	legendArea := dc
	legendArea.Min.X = plotArea.Max.X + pad
	legendArea.Max.Y -= p.Title.TextStyle.Height(p.Title.Text) + 2*pad
	legend.Top = true
	legend.Draw(legendArea)
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = vgimg.PngCanvas{Canvas: img}.WriteTo(f)
	return errors.Join(err, f.Close())
}

// Summary writes the run in a few lines: its length, the losses at the end, the best rated
// checkpoint and the last one, and self-play's rates over the run.
func Summary(w io.Writer, records []metrics.Record) {
	var last, first *metrics.Record
	var steps int64
	for i := range records {
		r := &records[i]
		if first == nil {
			first = r
		}
		last = r
		steps = max(steps, r.Step)
	}
	if last == nil {
		fmt.Fprintln(w, "no records")
		return
	}
	elapsed := 0.0
	for _, r := range records {
		elapsed = max(elapsed, r.Elapsed)
	}
	fmt.Fprintf(w, "run        %d steps, %s of training (records from %s to %s)\n", steps,
		(time.Duration(elapsed) * time.Second).Round(time.Second), first.Time.Format("2006-01-02 15:04"), last.Time.Format("2006-01-02 15:04"))
	train := metrics.Collect(records, "train")
	var losses []string
	for _, name := range []string{"loss", "policy_loss", "value_loss"} {
		if s, ok := find(train, name); ok && len(s.Value) > 0 {
			sm := smooth(s.Value)
			losses = append(losses, fmt.Sprintf("%s %.3f", strings.ReplaceAll(name, "_", " "), sm[len(sm)-1]))
		}
	}
	if len(losses) > 0 {
		fmt.Fprintf(w, "losses     %s (smoothed, at the end)\n", strings.Join(losses, ", "))
	}
	eval := metrics.Collect(records, "eval")
	if elo, ok := find(eval, "elo"); ok && len(elo.Value) > 0 {
		best := 0
		for j := range elo.Value {
			if elo.Value[j] > elo.Value[best] {
				best = j
			}
		}
		ci := func(j int) string {
			if low, ok := find(eval, "elo_low"); ok && len(low.Value) == len(elo.Value) {
				return fmt.Sprintf(" ± %.0f", elo.Value[j]-low.Value[j])
			}
			return ""
		}
		n := len(elo.Value) - 1
		fmt.Fprintf(w, "elo        best %+.0f%s at step %.0f; last %+.0f%s at step %.0f (%d checkpoints rated)\n",
			elo.Value[best], ci(best), elo.Step[best], elo.Value[n], ci(n), elo.Step[n], len(elo.Value))
	}
	sp := metrics.Collect(records, "selfplay")
	var rates []string
	for _, name := range []string{"games_per_s", "samples_per_s", "simulations_per_s", "steps_per_s"} {
		if s, ok := find(sp, name); ok && len(s.Value) > 0 {
			sum, n := 0.0, 0
			for _, v := range s.Value {
				if !math.IsNaN(v) && !math.IsInf(v, 0) {
					sum, n = sum+v, n+1
				}
			}
			if n > 0 {
				rates = append(rates, fmt.Sprintf("%.3g %s", sum/float64(n), strings.ReplaceAll(strings.TrimSuffix(name, "_per_s"), "_", " ")+"/s"))
			}
		}
	}
	if len(rates) > 0 {
		fmt.Fprintf(w, "rates      %s (mean of the periods)\n", strings.Join(rates, ", "))
	}
	ingestSummary(w, records)
}

// ingestSummary is the line of the games the trainer took: how many, from how many workers
// and hosts, the refused and duplicates, the workers' median publication latency.
func ingestSummary(w io.Writer, records []metrics.Record) {
	var games, refused, dups float64
	workers, hosts := map[string]bool{}, map[string]bool{}
	var p50 []float64
	var last time.Time
	for _, r := range records {
		if r.Kind != "ingest" {
			continue
		}
		secs := 0.0
		if !last.IsZero() {
			secs = r.Time.Sub(last).Seconds()
		}
		last = r.Time
		games += r.Values["games_per_s"] * secs
		refused += r.Values["refused"]
		dups += r.Values["duplicates"]
		if v, ok := r.Values["publish_ms_p50"]; ok {
			p50 = append(p50, v)
		}
		for name := range r.Values {
			if w, ok := strings.CutPrefix(name, "worker/"); ok {
				workers[strings.TrimSuffix(w, "/games_per_s")] = true
			}
			if h, ok := strings.CutPrefix(name, "host/"); ok {
				hosts[strings.TrimSuffix(h, "/games_per_s")] = true
			}
		}
	}
	if last.IsZero() {
		return
	}
	line := fmt.Sprintf("ingest     about %.0f games taken from %s on %s, %.0f refused, %.0f duplicates", games, nouns(len(workers), "worker"), nouns(len(hosts), "host"), refused, dups)
	if len(p50) > 0 {
		slices.Sort(p50)
		line += fmt.Sprintf("; publication %.1f ms (median of the periods' medians)", p50[len(p50)/2])
	}
	fmt.Fprintln(w, line)
}

// nouns is n and noun, in the plural unless n is 1.
func nouns(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
