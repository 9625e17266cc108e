package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/train/metrics"
)

func TestReport(t *testing.T) {
	dir := t.TempDir()
	a, b, empty := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "empty")
	for i, run := range []string{a, b} {
		if err := os.MkdirAll(run, 0o755); err != nil {
			t.Fatal(err)
		}
		l, err := metrics.Create(filepath.Join(run, "metrics.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		start := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
		for step := range int64(5) {
			at, elapsed := start.Add(time.Duration(step)*time.Minute), float64(step)*60
			l.Write(metrics.Record{Kind: "train", Step: step * 10, Time: at, Elapsed: elapsed,
				Values: map[string]float64{"loss": float64(i+2) / float64(step+1)}})
			l.Write(metrics.Record{Kind: "eval", Step: step * 10, Time: at, Elapsed: elapsed,
				Values: map[string]float64{"elo": float64(step * 50), "elo_low": float64(step*50 - 30), "elo_high": float64(step*50 + 30)}})
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	tests := []struct {
		name    string
		args    []string
		wantOut []string // the files listed, all of which must exist
		wantErr string
	}{
		{"one run: into its plots", []string{"--run", a},
			[]string{filepath.Join(a, "plots", "loss-by-step.png"), filepath.Join(a, "plots", "elo-by-time.png"), filepath.Join(a, "plots", "summary.txt")}, ""},
		{"two runs", []string{"--run", a, "--run", b, "--out", out},
			[]string{filepath.Join(out, "loss-by-step.png"), filepath.Join(out, "elo-by-time.png"), filepath.Join(out, "summary.txt")}, ""},
		{"two runs, nowhere to write", []string{"--run", a, "--run", b}, nil, "--out: give the folder for the charts of several runs"},
		{"a folder that is not a run", []string{"--run", a, "--run", empty, "--out", out}, nil, empty + ": not a run folder (no metrics.jsonl in it)"},
		{"a run twice", []string{"--run", a, "--run", filepath.Join(b, "..", "a"), "--out", out}, nil, "the same run given twice"},
		{"an empty run flag", []string{"--run", ""}, nil, "usage"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.RemoveAll(out)
			var stdout, stderr strings.Builder
			err := run(context.Background(), append([]string{"report"}, tt.args...), strings.NewReader(""), &stdout, &stderr)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("error %v\nstderr: %s", err, stderr.String())
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
			case tt.wantErr != "":
				if _, err := os.Stat(out); err == nil {
					t.Errorf("%s written after an error", out)
				}
			}
			for _, f := range tt.wantOut {
				if !strings.Contains(stdout.String(), f+"\n") {
					t.Errorf("stdout lacks %s:\n%s", f, stdout.String())
				}
				if _, err := os.Stat(f); err != nil {
					t.Error(err)
				}
			}
		})
	}
	// Damaged lines are left out, and said to be.
	f, err := os.OpenFile(filepath.Join(b, "metrics.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("GARBAGE LINE\n{\"kind\":\"train\",\"step\":\"x\"}\n")
	f.Close()
	var stdout, stderr strings.Builder
	if err := run(context.Background(), []string{"report", "--run", a, "--run", b, "--out", out}, strings.NewReader(""), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(b, "metrics.jsonl") + ": damaged lines left out: 2\n"; stderr.String() != want {
		t.Errorf("stderr %q, want %q", stderr.String(), want)
	}
	summary, err := os.ReadFile(filepath.Join(a, "plots", "summary.txt"))
	if err != nil || !strings.HasPrefix(string(summary), "run        40 steps") {
		t.Errorf("one run's summary.txt (%v):\n%s", err, summary)
	}
}
