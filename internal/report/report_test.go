package report

import (
	"bytes"
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
	for step := range int64(20) {
		l.Write(metrics.Record{Kind: "train", Step: step * 100, Time: time.Now(), Elapsed: float64(step) * 600,
			Values: map[string]float64{"loss": 4 / float64(step+1), "policy_loss": 3 / float64(step+1), "value_loss": 1 / float64(step+1)}})
		if step%5 == 0 {
			l.Write(metrics.Record{Kind: "eval", Step: step * 100, Elapsed: float64(step) * 600,
				Values: map[string]float64{"elo": float64(step) * 30, "elo_low": float64(step)*30 - 40, "elo_high": float64(step)*30 + 40}})
		}
	}
	l.Close()
	files, err := Write(run, filepath.Join(run, "plots"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Fatalf("wrote %v; want loss and elo, by step and by hour", files)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil || !bytes.HasPrefix(data, []byte("\x89PNG")) || len(data) < 5000 {
			t.Fatalf("%s: not a plausible PNG (%d bytes, %v)", f, len(data), err)
		}
		if !strings.HasSuffix(f, ".png") {
			t.Fatalf("%s: not a .png", f)
		}
	}
}
