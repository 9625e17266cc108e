package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/train/metrics"
)

func TestWrite(t *testing.T) {
	run := t.TempDir()
	if _, err := Write(run, filepath.Join(run, "plots")); err == nil {
		t.Fatalf("a run without metrics was plotted")
	}
	l, _ := metrics.Create(filepath.Join(run, "metrics.jsonl"))
	start := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	for step := range int64(20) {
		at := start.Add(time.Duration(step) * 10 * time.Minute)
		l.Write(metrics.Record{Kind: "train", Step: step * 100, Time: at, Elapsed: float64(step) * 600,
			Values: map[string]float64{"loss": 4 / float64(step+1), "policy_loss": 3 / float64(step+1), "value_loss": 1 / float64(step+1)}})
		l.Write(metrics.Record{Kind: "selfplay", Step: step * 100, Time: at, Elapsed: float64(step) * 600,
			Values: map[string]float64{"games_per_s": 2, "samples_per_s": 20, "simulations_per_s": 2000, "steps_per_s": 0.5}})
		l.Write(metrics.Record{Kind: "ingest", Step: step * 100, Time: at, Elapsed: float64(step) * 600,
			Values: map[string]float64{"games_per_s": 2, "worker/train/games_per_s": 1.5, "worker/b/games_per_s": 0.5,
				"host/vm/games_per_s": 2, "refused": float64(step % 2), "duplicates": 0, "publish_ms_p50": 3}})
		if step%5 == 0 {
			l.Write(metrics.Record{Kind: "eval", Step: step * 100, Time: at, Elapsed: float64(step) * 600,
				Values: map[string]float64{"elo": float64(step) * 30, "elo_low": float64(step)*30 - 40, "elo_high": float64(step)*30 + 40}})
		}
	}
	l.Close()
	files, err := Write(run, filepath.Join(run, "plots"))
	if err != nil {
		t.Fatal(err)
	}
	var pngs []string
	for _, f := range files {
		if strings.HasSuffix(f, ".png") {
			pngs = append(pngs, filepath.Base(f))
			data, err := os.ReadFile(f)
			if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) || len(data) < 5000 {
				t.Fatalf("%s: not a plausible PNG (%d bytes, %v)", f, len(data), err)
			}
		}
	}
	want := []string{"loss-by-step.png", "loss-by-time.png", "elo-by-step.png", "elo-by-time.png",
		"selfplay-by-step.png", "selfplay-by-time.png", "simulations-by-step.png", "simulations-by-time.png",
		"ingest-by-step.png", "ingest-by-time.png", "refused-by-step.png", "refused-by-time.png"}
	if strings.Join(pngs, " ") != strings.Join(want, " ") {
		t.Errorf("charts %v, want %v", pngs, want)
	}
	summary, err := os.ReadFile(filepath.Join(run, "plots", "summary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"run        1900 steps, 3h10m0s of training (records from 2026-11-24 10:00 to 2026-11-24 13:10)\n",
		"elo        best +450 ± 40 at step 1500; last +450 ± 40 at step 1500 (4 checkpoints rated)\n",
		"rates      2 games/s, 20 samples/s, 2e+03 simulations/s, 0.5 steps/s (mean of the periods)\n",
		"ingest     about 22800 games taken from 2 workers on 1 host, 10 refused, 0 duplicates; publication 3.0 ms (median of the periods' medians)\n",
	} {
		if !strings.Contains(string(summary), line) {
			t.Errorf("summary lacks %q:\n%s", line, summary)
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
