package report

import (
	"bytes"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/zerogames/zero/train/metrics"
)

// writeRun writes a run of 20 periods ten minutes apart into dir/metrics.jsonl with the
// project's metrics log: train, selfplay and ingest records each period, an eval record every
// fifth. kinds leaves out the kinds not listed; scale multiplies the losses and the Elo, so
// that two runs' lines differ.
func writeRun(t *testing.T, dir string, scale float64, kinds ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := metrics.Create(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	write := func(kind string, step int64, values map[string]float64) {
		if !slices.Contains(kinds, kind) {
			return
		}
		err := l.Write(metrics.Record{Kind: kind, Step: step * 100, Time: start.Add(time.Duration(step) * 10 * time.Minute),
			Elapsed: float64(step) * 600, Values: values})
		if err != nil {
			t.Fatal(err)
		}
	}
	for step := range int64(20) {
		write("train", step, map[string]float64{"loss": scale * 4 / float64(step+1), "policy_loss": scale * 3 / float64(step+1), "value_loss": scale * 1 / float64(step+1)})
		write("selfplay", step, map[string]float64{"games_per_s": 2, "samples_per_s": 20, "simulations_per_s": 2000, "steps_per_s": 0.5})
		write("ingest", step, map[string]float64{"games_per_s": 2, "worker/train/games_per_s": 1.5, "worker/b/games_per_s": 0.5,
			"host/vm/games_per_s": 2, "refused": float64(step % 2), "duplicates": 0, "publish_ms_p50": 3})
		if step%5 == 0 {
			elo := scale * float64(step) * 30
			write("eval", step, map[string]float64{"elo": elo, "elo_low": elo - 40, "elo_high": elo + 40})
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

var allKinds = []string{"train", "selfplay", "ingest", "eval"}

// checkPNGs fails unless the PNG files among files are names, in order, each a whole PNG of
// the chart's size.
func checkPNGs(t *testing.T, files []string, names ...string) {
	t.Helper()
	var pngs []string
	for _, f := range files {
		if !strings.HasSuffix(f, ".png") {
			continue
		}
		pngs = append(pngs, filepath.Base(f))
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil || img.Bounds().Dx() < 500 || len(data) < 5000 {
			t.Fatalf("%s: not a plausible chart (%d bytes, %v)", f, len(data), err)
		}
	}
	if strings.Join(pngs, " ") != strings.Join(names, " ") {
		t.Errorf("charts %v, want %v", pngs, names)
	}
}

var everyChart = []string{"loss-by-step.png", "loss-by-time.png", "elo-by-step.png", "elo-by-time.png",
	"selfplay-by-step.png", "selfplay-by-time.png", "simulations-by-step.png", "simulations-by-time.png",
	"ingest-by-step.png", "ingest-by-time.png", "refused-by-step.png", "refused-by-time.png"}

func TestWrite(t *testing.T) {
	run := t.TempDir()
	writeRun(t, run, 1) // a run just started: no records yet
	runs, err := Open(run)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(filepath.Join(run, "plots"), runs...); err == nil || err.Error() != "the run has no metrics to plot yet" {
		t.Fatalf("a run without records: error %v", err)
	}
	if _, err := os.Stat(filepath.Join(run, "plots")); err == nil {
		t.Errorf("a run without records: its plots folder was made")
	}
	writeRun(t, run, 1, allKinds...)
	if runs, err = Open(run); err != nil {
		t.Fatal(err)
	}
	files, err := Write(filepath.Join(run, "plots"), runs...)
	if err != nil {
		t.Fatal(err)
	}
	checkPNGs(t, files, everyChart...)
	summary, err := os.ReadFile(filepath.Join(run, "plots", "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"run        1900 steps, 3h10m of training (records from 2026-11-24 10:00 to 2026-11-24 13:10)\n",
		"elo        best +450 ± 40 at step 1500; last +450 ± 40 at step 1500 (4 checkpoints rated)\n",
		"rates      2 games/s, 20 samples/s, 2e+03 simulations/s, 0.5 steps/s (mean of the periods)\n",
		"ingest     about 22800 games taken (from the periods' rates) from 2 workers on 1 host, 10 refused, 0 duplicates; publication 3.0 ms (median of the periods' medians)\n",
	} {
		if !strings.Contains(string(summary), line) {
			t.Errorf("summary lacks %q:\n%s", line, summary)
		}
	}
	if strings.HasPrefix(string(summary), filepath.Base(run)) {
		t.Errorf("the summary of one run is headed by its name:\n%s", summary)
	}
}

// Two runs, the second without ingest records: each chart once, with both runs where both
// have its series; the summary of each, headed by its name.
func TestWriteSeveral(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	writeRun(t, a, 1, allKinds...)
	writeRun(t, b, 2, "train", "selfplay", "eval")
	runs, err := Open(a, b)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "ab")
	files, err := Write(out, runs...)
	if err != nil {
		t.Fatal(err)
	}
	checkPNGs(t, files, everyChart...)
	summary, err := os.ReadFile(filepath.Join(out, "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	want := "a (" + a + ")\nrun        1900 steps"
	if !strings.HasPrefix(string(summary), want) || !strings.Contains(string(summary), "\n\nb ("+b+")\nrun        1900 steps") ||
		strings.Count(string(summary), "ingest     ") != 1 {
		t.Errorf("summary.txt:\n%s\nwant a's then b's, each headed by its name", summary)
	}
}

// The lines a chart draws: every run's series, in the run's colour, a series' dash pattern
// the same in every run; a run without a series has no line of it.
func TestChartLines(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "c")
	writeRun(t, a, 1, allKinds...)
	writeRun(t, b, 2, "train", "selfplay", "eval")
	writeRun(t, c, 3, "selfplay")
	one, err := Open(a)
	if err != nil {
		t.Fatal(err)
	}
	three, err := Open(a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	chart := func(file string) Chart {
		i := slices.IndexFunc(Charts, func(c Chart) bool { return c.File == file })
		return Charts[i]
	}
	// A line's legend, colour, dash, its first point and whether it has a band.
	type want struct {
		legend      string
		color, dash int
		first       plotter.XY
		band        bool
	}
	tests := []struct {
		name   string
		chart  string
		runs   []Run
		byTime bool
		want   []want
	}{
		{"one run: a colour a series, solid", "loss", one, false, []want{
			{"loss", 0, 0, plotter.XY{X: 0, Y: 4}, false},
			{"policy loss", 1, 0, plotter.XY{X: 0, Y: 3}, false},
			{"value loss", 2, 0, plotter.XY{X: 0, Y: 1}, false},
		}},
		{"runs: a colour a run, a dash a series", "loss", three, false, []want{
			{"a: loss", 0, 0, plotter.XY{X: 0, Y: 4}, false},
			{"a: policy loss", 0, 1, plotter.XY{X: 0, Y: 3}, false},
			{"a: value loss", 0, 2, plotter.XY{X: 0, Y: 1}, false},
			{"b: loss", 1, 0, plotter.XY{X: 0, Y: 8}, false},
			{"b: policy loss", 1, 1, plotter.XY{X: 0, Y: 6}, false},
			{"b: value loss", 1, 2, plotter.XY{X: 0, Y: 2}, false},
		}},
		{"Elo with its bands, by time", "elo", three, true, []want{
			{"a: elo", 0, 0, plotter.XY{X: 0, Y: 0}, true},
			{"b: elo", 1, 0, plotter.XY{X: 0, Y: 0}, true},
		}},
		{"a series only the first run has", "ingest", three, false, []want{
			{"a: games per s", 0, 0, plotter.XY{X: 0, Y: 2}, false},
			{"a: worker/b/games per s", 0, 1, plotter.XY{X: 0, Y: 0.5}, false},
			{"a: worker/train/games per s", 0, 2, plotter.XY{X: 0, Y: 1.5}, false},
		}},
		{"every run", "simulations", three, false, []want{
			{"a: simulations per s", 0, 0, plotter.XY{X: 0, Y: 2000}, false},
			{"b: simulations per s", 1, 0, plotter.XY{X: 0, Y: 2000}, false},
			{"c: simulations per s", 2, 0, plotter.XY{X: 0, Y: 2000}, false},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := chartLines(chart(tt.chart), tt.runs, tt.byTime, 3+1.0/6)
			var got []want
			for _, l := range lines {
				legend := l.series
				if l.run != "" {
					legend = l.run + ": " + legend
				}
				got = append(got, want{legend, l.color, l.dash, l.raw[0], l.low != nil && l.high != nil})
				if len(l.raw) == 0 || !tt.byTime && l.raw[len(l.raw)-1].X == 0 {
					t.Errorf("%s: points %v", legend, l.raw)
				}
				if chart(tt.chart).Band != (l.smooth == nil) || l.smooth != nil && len(l.smooth) != len(l.raw) {
					t.Errorf("%s: %d smoothed points for %d", legend, len(l.smooth), len(l.raw))
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("lines\n%v\nwant\n%v", got, tt.want)
			}
		})
	}
	// The x of the last Elo point of b: by step 1500, by time 150 minutes = 2.5 hours.
	for _, byTime := range []bool{false, true} {
		lines := chartLines(chart("elo"), three, byTime, 3+1.0/6)
		last := lines[1].raw[len(lines[1].raw)-1]
		wantX := 1500.0
		if byTime {
			wantX = 2.5
		}
		if last.X != wantX || last.Y != 2*15*30 || lines[1].low[3].Y != last.Y-40 || lines[1].high[3].Y != last.Y+40 {
			t.Errorf("b's last Elo point (by time: %v) %v, interval %v to %v", byTime, last, lines[1].low[3], lines[1].high[3])
		}
	}
}

func TestOpen(t *testing.T) {
	dir := t.TempDir()
	a, b, empty := filepath.Join(dir, "a"), filepath.Join(dir, "x", "a"), filepath.Join(dir, "empty")
	writeRun(t, a, 1, allKinds...)
	writeRun(t, b, 1, allKinds...)
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		dirs    []string
		names   []string // of the runs
		wantErr string
	}{
		{"one", []string{a}, []string{"a"}, ""},
		{"two of the same base name", []string{a, b}, []string{filepath.Base(dir) + "/a", "x/a"}, ""},
		{"not a run", []string{a, empty}, nil, empty + ": not a run folder (no metrics.jsonl in it)"},
		{"no folder", []string{filepath.Join(dir, "none")}, nil, filepath.Join(dir, "none") + ": not a run folder"},
		{"the same twice", []string{a, a}, nil, a + " and " + a + ": the same run given twice"},
		{"the same by another path", []string{a, filepath.Join(b, "..", "..", "a")}, nil, "the same run given twice"},
		{"the same through a link", []string{link, a}, nil, link + " and " + a + ": the same run given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs, err := Open(tt.dirs...)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatal(err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			}
			var names []string
			for _, r := range runs {
				names = append(names, r.Name)
			}
			if !slices.Equal(names, tt.names) {
				t.Errorf("names %q, want %q", names, tt.names)
			}
		})
	}
}

func TestNames(t *testing.T) {
	tests := []struct {
		paths, want []string
	}{
		{[]string{"/w/runs/dist-one", "/w/runs/dist-two"}, []string{"dist-one", "dist-two"}},
		{[]string{"/w/a/run", "/w/b/run", "/w/b/other"}, []string{"a/run", "b/run", "other"}},
		{[]string{"/p/x/run", "/q/x/run", "/q/run"}, []string{"p/x/run", "q/x/run", "q/run"}},
		{[]string{"/run", "/a/run"}, []string{"run", "a/run"}},
		{[]string{"/"}, []string{"/"}},
	}
	for _, tt := range tests {
		if got := names(tt.paths); !slices.Equal(got, tt.want) {
			t.Errorf("names(%q) = %q, want %q", tt.paths, got, tt.want)
		}
	}
}

func TestSmooth(t *testing.T) {
	tests := []struct {
		in, want []float64
	}{
		{[]float64{1, 2, 3}, []float64{1, 2, 3}}, // too short to smooth: a span of 1
		{[]float64{math.NaN(), 4, math.Inf(1), 4}, []float64{math.NaN(), 4, 4, 4}},
	}
	for _, tt := range tests {
		got := smooth(tt.in)
		for i := range got {
			if got[i] != tt.want[i] && !(math.IsNaN(got[i]) && math.IsNaN(tt.want[i])) {
				t.Errorf("smooth(%v) = %v, want %v", tt.in, got, tt.want)
				break
			}
		}
	}
	// 100 points alternating 0 and 2: the average (span 5) stays near 1.
	v := make([]float64, 100)
	for i := range v {
		v[i] = float64(2 * (i % 2))
	}
	if s := smooth(v); math.Abs(s[99]-1) > 0.4 {
		t.Errorf("smoothed end %v, want about 1", s[99])
	}
}

// One rated checkpoint has an interval too: a stroke, where a polygon of two points has no area.
func TestBandOf(t *testing.T) {
	one := plotter.XYs{{X: 8.8, Y: 67}}
	band, err := bandOf(one, plotter.XYs{{X: 8.8, Y: 789}}, color.Black)
	if stroke, ok := band.(*plotter.Line); err != nil || !ok || len(stroke.XYs) != 2 || stroke.Width < vg.Points(4) {
		t.Errorf("one point: %T %v, want a wide stroke from low to high", band, err)
	}
	band, err = bandOf(plotter.XYs{{X: 1, Y: 0}, {X: 2, Y: 1}}, plotter.XYs{{X: 1, Y: 2}, {X: 2, Y: 3}}, color.Black)
	if poly, ok := band.(*plotter.Polygon); err != nil || !ok || len(poly.XYs[0]) != 4 || poly.XYs[0][2] != (plotter.XY{X: 2, Y: 3}) {
		t.Errorf("two points: %T %v, want the polygon low then high backwards", band, err)
	}
}

// The games taken are the run's count at its last record; in records without it, the periods'
// own counts, or for records without one their rates over the run's working time ("about": a
// day between two sessions is not intake).
func TestIngestSummaryAcrossSessions(t *testing.T) {
	at := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	rec := func(minutes, elapsed float64, values map[string]float64) metrics.Record {
		return metrics.Record{Kind: "ingest", Time: at.Add(time.Duration(minutes * float64(time.Minute))), Elapsed: elapsed, Values: values}
	}
	tests := []struct {
		name    string
		records []metrics.Record
		want    string
	}{
		{"rates only, a day between sessions", []metrics.Record{
			rec(0, 60, map[string]float64{"games_per_s": 1}), rec(1, 120, map[string]float64{"games_per_s": 1}), rec(2, 180, map[string]float64{"games_per_s": 1}),
			rec(24*60+3, 240, map[string]float64{"games_per_s": 1}),
		}, "about 180 games taken"},
		{"the periods' counts", []metrics.Record{
			rec(0, 60, map[string]float64{"games": 50, "games_per_s": 0.8}), rec(1, 120, map[string]float64{"games": 70, "games_per_s": 1.2}),
			rec(24*60+3, 180, map[string]float64{"games": 60, "games_per_s": 1}),
		}, "180 games taken in the recorded periods from"},
		{"counts, and a record of a build before them", []metrics.Record{
			rec(0, 60, map[string]float64{"games_per_s": 1}), rec(1, 120, map[string]float64{"games": 70, "games_per_s": 1.2}),
		}, "about 70 games taken (from the periods' rates)"},
		// A session killed before its last period was recorded: its games are in the run's
		// count, which the next session's records carry, as the state and the log say it.
		{"the run's count", []metrics.Record{
			rec(0, 60, map[string]float64{"games": 50, "games_per_s": 0.8, "games_total": 50}),
			rec(24*60+3, 180, map[string]float64{"games": 60, "games_per_s": 1, "games_total": 150}),
		}, "ingest     150 games taken from"},
	}
	for _, tt := range tests {
		var out strings.Builder
		ingestSummary(&out, tt.records)
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("%s: %q, want %q", tt.name, out.String(), tt.want)
		}
	}
}

// writeRecords writes records into dir/metrics.jsonl, a minute of the run apart from 10:00.
func writeRecords(t *testing.T, dir string, records ...metrics.Record) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := metrics.Create(filepath.Join(dir, "metrics.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	start := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for i, r := range records {
		r.Time, r.Elapsed = start.Add(time.Duration(i+1)*time.Minute), float64(i+1)*60
		if err := l.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestRemoteCharts: the charts of the intake are drawn for a run with remote workers only; the
// trainer's own self-play (worker "train") alone is in the rates' charts already.
func TestRemoteCharts(t *testing.T) {
	ingest := func(workers ...string) metrics.Record {
		v := map[string]float64{"games": 10, "games_per_s": 1, "refused": 0, "duplicates": 0}
		for _, w := range workers {
			v["worker/"+w+"/games_per_s"] = 1
		}
		return metrics.Record{Kind: "ingest", Step: 10, Values: v}
	}
	selfplay := metrics.Record{Kind: "selfplay", Step: 10, Values: map[string]float64{"games_per_s": 1, "simulations_per_s": 100}}
	tests := []struct {
		name    string
		records []metrics.Record
		remote  bool
	}{
		{"the trainer's self-play alone", []metrics.Record{selfplay, ingest(metrics.TrainerWorker), ingest(metrics.TrainerWorker)}, false},
		{"no worker named", []metrics.Record{selfplay, ingest(), ingest()}, false},
		{"a remote worker besides", []metrics.Record{selfplay, ingest(metrics.TrainerWorker), ingest(metrics.TrainerWorker, "box")}, true},
		{"remote workers only", []metrics.Record{selfplay, ingest("box", "other"), ingest("box")}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			writeRecords(t, dir, tt.records...)
			runs, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			if got := HasRemote(runs[0].Records); got != tt.remote {
				t.Errorf("HasRemote = %v, want %v", got, tt.remote)
			}
			files, err := Write(filepath.Join(dir, "plots"), runs...)
			if err != nil {
				t.Fatal(err)
			}
			want := []string{"selfplay-by-step.png", "selfplay-by-time.png", "simulations-by-step.png", "simulations-by-time.png"}
			if tt.remote {
				want = append(want, "ingest-by-step.png", "ingest-by-time.png", "refused-by-step.png", "refused-by-time.png")
			}
			checkPNGs(t, files, want...)
		})
	}
}

// TestOnePeriod: a run of one log period draws its points (a line of one point drew
// nothing, and its faint raw point hardly showed): the chart has pixels of the first series'
// colour in its plot area, not only in the legend.
func TestOnePeriod(t *testing.T) {
	dir := t.TempDir()
	writeRecords(t, dir, metrics.Record{Kind: "selfplay", Step: 440, Values: map[string]float64{"games_per_s": 12, "samples_per_s": 350, "steps_per_s": 40, "simulations_per_s": 4100}})
	runs, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Write(filepath.Join(dir, "plots"), runs...); err != nil {
		t.Fatal(err)
	}
	for _, chart := range []string{"selfplay-by-step.png", "simulations-by-time.png"} {
		data, err := os.ReadFile(filepath.Join(dir, "plots", chart))
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		r0, g0, b0, _ := plotutil.Color(0).RGBA()
		n := 0
		b := img.Bounds()
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Min.X+b.Dx()*3/4; x++ { // the plot, left of the legend
				r, g, bl, _ := img.At(x, y).RGBA()
				if r>>8 == r0>>8 && g>>8 == g0>>8 && bl>>8 == b0>>8 {
					n++
				}
			}
		}
		if n < 20 {
			t.Errorf("%s: %d pixels of the first series' colour in the plot, want its dot", chart, n)
		}
	}
}
