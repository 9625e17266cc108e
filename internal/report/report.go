// Package report draws a training run's plots (`zero report`): from the run's metrics.jsonl,
// PNG charts of the losses, the Elo ladder and the throughput, against training steps and
// against the run's working time (minutes for runs under two hours, else hours), and a text
// summary of the run. Several runs are drawn over each other to compare them, each chart once
// with every run's series, each run in its colour and against its own working time.
//
// Noisy series (losses, rates) are drawn as their raw points, faint, under an exponential
// moving average; the Elo of each checkpoint as points with its 95% interval as a shaded band.
// Legends sit beside the plot, never on the curves.
//
// summary.txt gives a run in a few lines (length, smoothed final losses, best and
// last Elo with intervals, mean rates, games taken). Charts (a kind of record, its
// value names, whether they carry an interval, whether it is of remote workers'
// intake) is the dashboard's list too; the intake's charts are drawn only for a run
// whose ingest records name a worker besides the trainer's own (HasRemote). Open
// reads every run before Write writes anything, so a folder without
// metrics.jsonl, or a run given twice, is an error with nothing written. What a
// chart draws is built apart from the drawing (chartLines), which the tests check
// run by run, and drawn in layers (bands, faint points, lines). Each run's Elo is
// its own ladder's, anchored at random: runs compare on it only as far as their
// ladders do.
package report

import (
	"bytes"
	"errors"
	"fmt"
	"image/color"
	"io"
	"io/fs"
	"math"
	"os"
	"path"
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

	"github.com/zerogames/zero/internal/atomicfile"
	"github.com/zerogames/zero/internal/duration"
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
	// Remote: the chart is of the intake of remote workers' games, drawn only for a run that
	// had some (HasRemote): the trainer's own self-play alone is in the rates' charts.
	Remote bool `json:"remote"`
}

// Charts are a run's charts, in the order they are shown.
var Charts = []Chart{
	{"loss", "Training losses", "train", "loss", []string{"loss", "policy_loss", "value_loss"}, false, false},
	{"elo", "Elo of the checkpoints (95% interval)", "eval", "Elo", []string{"elo"}, true, false},
	{"selfplay", "Self-play and training rates", "selfplay", "per second", []string{"games_per_s", "samples_per_s", "steps_per_s"}, false, false},
	{"simulations", "Search rate", "selfplay", "simulations per second", []string{"simulations_per_s"}, false, false},
	{"ingest", "Games taken by the trainer, in all and by worker", "ingest", "games per second", []string{"games_per_s", "worker/"}, false, true},
	{"refused", "Games refused (not of the rules) and duplicates, per period", "ingest", "games", []string{"refused", "duplicates"}, false, true},
}

// HasRemote tells whether a run's ingest records name a worker besides the trainer's own
// self-play (metrics.TrainerWorker): a run with remote workers, whose intake the Remote
// charts draw.
func HasRemote(records []metrics.Record) bool {
	own := "worker/" + metrics.TrainerWorker + "/"
	for _, r := range records {
		if r.Kind != "ingest" {
			continue
		}
		for name := range r.Values {
			if strings.HasPrefix(name, "worker/") && !strings.HasPrefix(name, own) {
				return true
			}
		}
	}
	return false
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

// Run is a training run as the report reads it.
type Run struct {
	// Name tells the run in legends and the summary: its folder's base name, or as much of the
	// folder's path as tells it from the other runs drawn with it.
	Name    string
	Dir     string
	Records []metrics.Record // metrics.Timeline of its metrics.jsonl
	Skipped int              // damaged lines of its metrics.jsonl, left out
}

// Open reads the runs in dirs, in that order, and names them. A folder without a
// metrics.jsonl, or a run given twice (under any spelling of its path), is an error naming the
// folder.
func Open(dirs ...string) ([]Run, error) {
	if len(dirs) == 0 {
		return nil, errors.New("no run to read")
	}
	runs := make([]Run, len(dirs))
	abs := make([]string, len(dirs))
	infos := make([]os.FileInfo, len(dirs))
	for i, dir := range dirs {
		records, skipped, err := metrics.Read(filepath.Join(dir, "metrics.jsonl"))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: not a run folder (no metrics.jsonl in it)", dir)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: reading the run's metrics: %w", dir, err)
		}
		if abs[i], err = filepath.Abs(dir); err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		if infos[i], err = os.Stat(dir); err != nil {
			return nil, err
		}
		for j := range i {
			// SameFile as well: a symbolic link, or a path through one, is the same run.
			if abs[j] == abs[i] || os.SameFile(infos[j], infos[i]) {
				return nil, fmt.Errorf("%s and %s: the same run given twice", dirs[j], dir)
			}
		}
		runs[i] = Run{Dir: dir, Records: metrics.Timeline(records), Skipped: skipped}
	}
	for i, name := range names(abs) {
		runs[i].Name = name
	}
	return runs, nil
}

// names are the shortest ends of the (distinct, absolute) paths that no two paths share: each
// path's base name, and one more folder of the paths whose names collide until they do not.
func names(paths []string) []string {
	parts := make([][]string, len(paths))
	for i, p := range paths {
		for _, part := range strings.Split(filepath.ToSlash(p), "/") {
			if part != "" {
				parts[i] = append(parts[i], part)
			}
		}
	}
	n := make([]int, len(paths)) // how many of its path's last parts a name has
	for i := range n {
		n[i] = min(1, len(parts[i]))
	}
	name := func(i int) string {
		if len(parts[i]) == 0 {
			return paths[i] // the root
		}
		return path.Join(parts[i][len(parts[i])-n[i]:]...)
	}
	for {
		byName := map[string][]int{}
		for i := range paths {
			byName[name(i)] = append(byName[name(i)], i)
		}
		longer := false
		for _, same := range byName {
			if len(same) < 2 {
				continue
			}
			for _, i := range same {
				if n[i] < len(parts[i]) {
					n[i], longer = n[i]+1, true
				}
			}
		}
		if !longer {
			break
		}
	}
	out := make([]string, len(paths))
	for i := range paths {
		out[i] = name(i)
	}
	return out
}

// Write draws the runs' charts into outDir, every run on each chart, and writes their
// summaries into summary.txt; it returns the files written. Charts no run has data for are
// skipped; when no chart is left, nothing is written.
func Write(outDir string, runs ...Run) ([]string, error) {
	hours := 0.0 // the longest run's: the unit of every by-time chart
	for _, run := range runs {
		for _, r := range run.Records {
			hours = max(hours, r.Elapsed/3600)
		}
	}
	type page struct {
		path   string
		c      Chart
		lines  []line
		byTime bool
	}
	var pages []page
	for _, c := range Charts {
		for _, byTime := range []bool{false, true} {
			lines := chartLines(c, runs, byTime, hours)
			if len(lines) == 0 {
				break
			}
			name := c.File + "-by-step.png"
			if byTime {
				name = c.File + "-by-time.png"
			}
			pages = append(pages, page{filepath.Join(outDir, name), c, lines, byTime})
		}
	}
	if len(pages) == 0 {
		if len(runs) == 1 {
			return nil, errors.New("the run has no metrics to plot yet")
		}
		return nil, errors.New("the runs have no metrics to plot yet")
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, pg := range pages {
		if err := draw1(pg.path, pg.c, pg.lines, pg.byTime, hours); err != nil {
			return files, fmt.Errorf("%s: %w", pg.path, err)
		}
		files = append(files, pg.path)
	}
	summary := filepath.Join(outDir, "summary.txt")
	var buf bytes.Buffer
	for i, run := range runs {
		if len(runs) > 1 {
			if i > 0 {
				fmt.Fprintln(&buf)
			}
			fmt.Fprintf(&buf, "%s (%s)\n", run.Name, run.Dir)
		}
		Summary(&buf, run.Records)
	}
	if err := atomicfile.WriteBytes(summary, buf.Bytes()); err != nil {
		return files, err
	}
	return append(files, summary), nil
}

// line is one series of one run as a chart draws it.
type line struct {
	// run and series name the line in the legend ("run: series"); run is "" when the chart
	// has one run. series is the value's name, with spaces for underscores.
	run, series string
	// color and dash index plotutil's colours and dash patterns. With one run, each series
	// has its colour and lines are solid; with several, each run has its colour and a
	// series its dash pattern (in the order of the chart's series), the same in every run.
	color, dash int
	// raw are the values as recorded (NaN and infinities left out), drawn faint under smooth,
	// their moving average; on a chart with bands, raw are drawn as they are, points joined,
	// and smooth is nil.
	raw, smooth plotter.XYs
	// low and high bound the 95% interval at raw's points (a chart with bands, when the run
	// records the interval with every value), else nil.
	low, high plotter.XYs
}

// chartLines are the lines of chart c: for each run in order, its series of c in c's order
// (a run without one of them draws none).
func chartLines(c Chart, runs []Run, byTime bool, hours float64) []line {
	kinds := make([][]metrics.Series, len(runs)) // each run's series of c's kind
	var union []string                           // the names of c's series of every run
	for r, run := range runs {
		kinds[r] = metrics.Collect(run.Records, c.Kind)
		for _, s := range pick(kinds[r], c) {
			if !slices.Contains(union, s.Name) {
				union = append(union, s.Name)
			}
		}
	}
	union = c.Pick(union) // in c's order: a series' dash pattern is the same in every run
	var lines []line
	for r, run := range runs {
		if c.Remote && !HasRemote(run.Records) {
			continue
		}
		all := kinds[r]
		for i, s := range pick(all, c) {
			l := line{series: strings.ReplaceAll(s.Name, "_", " "), color: i}
			if len(runs) > 1 {
				l.run, l.color, l.dash = run.Name, r, slices.Index(union, s.Name)
			}
			l.raw = points(s, s.Value, byTime, hours)
			if !c.Band {
				l.smooth = points(s, smooth(s.Value), byTime, hours)
				lines = append(lines, l)
				continue
			}
			low, okLow := find(all, s.Name+"_low")
			high, okHigh := find(all, s.Name+"_high")
			if okLow && okHigh && len(low.Value) == len(s.Value) && len(high.Value) == len(s.Value) {
				l.low, l.high = points(low, low.Value, byTime, hours), points(high, high.Value, byTime, hours)
			}
			lines = append(lines, l)
		}
	}
	return lines
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

func draw1(path string, c Chart, lines []line, byTime bool, hours float64) error {
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
	// In layers, each over the one before for every line: the bands, the faint raw points,
	// the lines; so no run's band or points hide another's line.
	var dots, curves []plot.Plotter
	for _, l := range lines {
		col := plotutil.Color(l.color)
		run := ""
		if l.run != "" {
			run = l.run + ": "
		}
		if l.low != nil {
			band, err := bandOf(l.low, l.high, faint(col))
			if err != nil {
				return err
			}
			p.Add(band)
			legend.Add(run+"95% interval", band)
		}
		if c.Band {
			line, pts, err := plotter.NewLinePoints(l.raw)
			if err != nil {
				return err
			}
			line.Color, line.Dashes, pts.Color, pts.Radius = col, plotutil.Dashes(l.dash), col, vg.Points(2)
			curves = append(curves, line, pts)
			legend.Add(run+l.series, line, pts)
			continue
		}
		if len(l.raw) == 1 {
			// One log period: a line of one point draws nothing, and its faint raw point
			// hardly shows; the point is drawn as a dot.
			dot, err := plotter.NewScatter(l.raw)
			if err != nil {
				return err
			}
			dot.Color, dot.Radius, dot.Shape = col, vg.Points(3), draw.CircleGlyph{}
			curves = append(curves, dot)
			legend.Add(run+l.series, dot)
			continue
		}
		raw, err := plotter.NewScatter(l.raw)
		if err != nil {
			return err
		}
		raw.Color, raw.Radius = faint(col), vg.Points(1.2)
		line, err := plotter.NewLine(l.smooth)
		if err != nil {
			return err
		}
		line.Color, line.Width, line.Dashes = col, vg.Points(1.5), plotutil.Dashes(l.dash)
		dots = append(dots, raw)
		curves = append(curves, line)
		legend.Add(run+l.series+" (smoothed)", line)
	}
	p.Add(dots...)
	p.Add(curves...)
	return save(p, legend, path)
}

// bandOf is the shaded interval between low and high: a polygon, or for a single point (the
// run's one rated checkpoint), where a polygon has no area, a wide vertical stroke.
func bandOf(low, high plotter.XYs, col color.Color) (interface {
	plot.Plotter
	plot.Thumbnailer
}, error) {
	if len(low) == 1 {
		stroke, err := plotter.NewLine(append(slices.Clone(low), high...))
		if err != nil {
			return nil, err
		}
		stroke.Color, stroke.Width = col, vg.Points(6)
		return stroke, nil
	}
	poly, err := plotter.NewPolygon(append(slices.Clone(low), reverse(slices.Clone(high))...))
	if err != nil {
		return nil, err
	}
	poly.Color = col
	poly.LineStyle.Width = 0
	return poly, nil
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
	// Atomically: a chart a browser or a viewer is showing is replaced whole, never seen half
	// drawn, and a failed write leaves the chart before it.
	return atomicfile.Write(path, func(w io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
		return err
	})
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
		duration.Seconds(elapsed), first.Time.Format("2006-01-02 15:04"), last.Time.Format("2006-01-02 15:04"))
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
		fmt.Fprintf(w, "elo        best %+.0f%s at step %.0f; last %+.0f%s at step %.0f (%s rated)\n",
			elo.Value[best], ci(best), elo.Step[best], elo.Value[n], ci(n), elo.Step[n], nouns(len(elo.Value), "checkpoint"))
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
// and hosts, the refused and duplicates, the workers' median publication latency. How many is
// the run's own count at its last record (games_total: what its state and log say, the
// session's last period recorded at its stop); in a run recorded before that count, the sum of
// the periods' counts, which misses the periods a killed session did not record, or "about"
// as many as their rates tell, for a build that recorded no count.
func ingestSummary(w io.Writer, records []metrics.Record) {
	var games, refused, dups float64
	total, estimated := -1.0, false
	workers, hosts := map[string]bool{}, map[string]bool{}
	var p50 []float64
	var last time.Time
	lastElapsed := 0.0
	for _, r := range records {
		if r.Kind != "ingest" {
			continue
		}
		if n, ok := r.Values["games_total"]; ok {
			total = n
		}
		if n, ok := r.Values["games"]; ok {
			games += n // the period's count
		} else {
			// A record of a build before the count: its rate over the run's own clock since the
			// record before (a wall-clock gap would count the time between sessions too).
			estimated = true
			if !last.IsZero() && r.Elapsed > lastElapsed {
				games += r.Values["games_per_s"] * (r.Elapsed - lastElapsed)
			}
		}
		last, lastElapsed = r.Time, r.Elapsed
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
	taken := fmt.Sprintf("%.0f games taken", total)
	switch {
	case total >= 0:
	case estimated:
		taken = fmt.Sprintf("about %.0f games taken (from the periods' rates)", games)
	default:
		taken = fmt.Sprintf("%.0f games taken in the recorded periods", games)
	}
	line := fmt.Sprintf("ingest     %s from %s on %s, %.0f refused, %.0f duplicates", taken, nouns(len(workers), "worker"), nouns(len(hosts), "host"), refused, dups)
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
