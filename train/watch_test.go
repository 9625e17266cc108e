package train

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/net/nettrain"
)

func TestStatusLine(t *testing.T) {
	loss := &nettrain.Loss{Total: 2.3456, Policy: 1.9, Value: 0.4321}
	tests := []struct {
		name string
		p    progress
		want string
	}{
		{"filling", progress{firstStep: true, samples: 1234, minSamples: 2000, sampleRate: 25.5, left: -1},
			"filling the replay buffer: 1,234 / 2,000 samples before the first step, 26 samples/s, about 30s"},
		{"filling, no rate yet", progress{firstStep: true, samples: 0, minSamples: 50_000, left: -1},
			"filling the replay buffer: 0 / 50,000 samples before the first step"},
		{"filled, waiting for the first step", progress{firstStep: true, samples: 2100, minSamples: 2000, window: 2100, elapsed: 61 * time.Second, left: -1},
			"step 0 | 1m1s | buffer 2,100 of 2,100 samples"},
		{"training", progress{step: 12_345, samples: 1_234_567, minSamples: 2000, window: 500_000,
			elapsed: 3*time.Hour + 4*time.Minute + 31*time.Second, left: 55*time.Minute + 2*time.Second, loss: loss, rates: "2.00 games/s"},
			"step 12,345 | 3h5m (55m2s left) | loss 2.346 (policy 1.900, value 0.432) | buffer 500,000 of 1,234,567 samples | 2.00 games/s"},
		{"resumed with a full buffer, no loss yet", progress{step: 2250, samples: 76_843, minSamples: 2000, window: 38_605, elapsed: 53 * time.Minute, left: -1},
			"step 2,250 | 53m | buffer 38,605 of 76,843 samples"},
	}
	for _, tt := range tests {
		if got := tt.p.line(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
	// The bar's description: the bar shows the step and times itself.
	shorts := []struct {
		p    progress
		want string
	}{
		{tests[0].p, "filling the buffer: 1,234 / 2,000 samples"},
		{tests[3].p, "55m2s left | loss 2.346 (policy 1.900, value 0.432)"},
		{progress{step: 5, left: 90 * time.Second, steps: 1.5}, "1m30s left | 1.50 steps/s"},
		{progress{step: 5, left: -1}, "training"},
	}
	for _, tt := range shorts {
		if got := tt.p.short(); got != tt.want {
			t.Errorf("short(%+v) = %q, want %q", tt.p, got, tt.want)
		}
	}
}

func TestLeft(t *testing.T) {
	r := &run[yinsh.State]{start: time.Now()}
	if got := r.left(context.Background(), 10, 1); got != -1 {
		t.Errorf("no stop: %v left, want -1 (unknown)", got)
	}
	r.stop = StopConfig{Steps: 110}
	if got := r.left(context.Background(), 10, 2); got != 50*time.Second {
		t.Errorf("100 steps to go at 2/s: %v left, want 50s", got)
	}
	r.stop = StopConfig{Steps: 110, Time: Duration(time.Hour)}
	r.before = 3600 - 20 // 20 s of the run's hour left
	if got := r.left(context.Background(), 10, 2); got < 19*time.Second || got > 20*time.Second {
		t.Errorf("stop.time in 20 s, stop.steps in 50 s: %v left, want 20s", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if got := r.left(ctx, 10, 2); got < 4*time.Second || got > 5*time.Second {
		t.Errorf("--for ends in 5 s: %v left", got)
	}
}

// TestConsoleKeepsTheBar: a line written while the bar is drawn starts on a cleared line, not
// in the middle of the bar.
func TestConsoleKeepsTheBar(t *testing.T) {
	var out bytes.Buffer
	bar := progressbar.NewOptions64(100, progressbar.OptionSetWriter(&out), progressbar.OptionThrottle(0),
		progressbar.OptionSetWidth(20), progressbar.OptionSetDescription("training"))
	c := console{out: &out, bar: bar}
	c.withBar(func(b *progressbar.ProgressBar) { b.Set64(40) })
	drawn := out.Len()
	if !strings.Contains(out.String(), "training") {
		t.Fatalf("the bar was not drawn: %q", out.String())
	}
	c.printf("eval %s: %s", "step-00000250", "random 100%")
	after := out.String()[drawn:]
	line := "eval step-00000250: random 100%\n"
	i := strings.Index(after, line)
	if i < 0 {
		t.Fatalf("the line is missing: %q", after)
	}
	// What comes between the bar and the line is the bar's erasure: a carriage return, blanks,
	// a carriage return.
	if clear := after[:i]; !strings.HasPrefix(clear, "\r") || !strings.HasSuffix(clear, "\r") || strings.Trim(clear, "\r ") != "" {
		t.Errorf("between the bar and the line: %q, want the bar erased", clear)
	}
}
