package train

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zerogames/zero/env/yinsh"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train/dist"
)

// fakeWeights fails its first downloads with errs, then writes data to the path asked for; its
// run's info is run (runErr: it cannot be read).
type fakeWeights struct {
	errs         []error
	data         []byte
	disconnected bool
	calls        int
	run          dist.RunInfo
	runErr       error
}

func (f *fakeWeights) Run(context.Context) (dist.RunInfo, []byte, error) { return f.run, nil, f.runErr }

func (f *fakeWeights) GetWeights(_ context.Context, path string) (int64, error) {
	f.calls++
	if f.calls <= len(f.errs) {
		return 0, f.errs[f.calls-1]
	}
	return int64(len(f.data)), os.WriteFile(path, f.data, 0o644)
}

func (f *fakeWeights) Connected() bool { return !f.disconnected }

// TestFetchRetries: a worker's first download of the run's network is tried again when it fails
// (CI saw 'nats: timeout' while the trainer replaced the object), up to fetchTries failures in
// a row while connected; waiting for a network not yet published, or for the server to come
// back, is not counted; a later download (a new network while playing) is not retried here,
// the worker keeps playing with the network it has.
func TestFetchRetries(t *testing.T) {
	g := yinsh.Blitz
	spec, err := net.SpecOf(g.Info(), g)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Game: g.Info().Name, Net: net.Config{Blocks: 1, Channels: 4, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 4}}
	w0, err := net.NewWeights(spec, cfg.Net, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	ckpt := filepath.Join(t.TempDir(), "ckpt.zck")
	if err := net.Save(ckpt, w0, nil, 7, time.Now()); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	timeout := errors.New("nats: timeout")
	repeat := func(err error, n int) []error {
		out := make([]error, n)
		for i := range out {
			out[i] = err
		}
		return out
	}
	for _, tc := range []struct {
		name         string
		errs         []error
		disconnected bool
		first        bool
		want         string // the error's text, "" for a network loaded
		calls        int
	}{
		{name: "at once", first: true, calls: 1},
		{name: "after failures", errs: repeat(timeout, fetchTries-1), first: true, calls: fetchTries},
		{name: "too many failures", errs: repeat(timeout, fetchTries), first: true, want: "nats: timeout", calls: fetchTries},
		{name: "not published yet", errs: repeat(dist.ErrNoWeights, 2*fetchTries), first: true, calls: 2*fetchTries + 1},
		{name: "server away", errs: repeat(timeout, 2*fetchTries), disconnected: true, first: true, calls: 2*fetchTries + 1},
		{name: "a later network", errs: []error{timeout}, want: "nats: timeout", calls: 1},
		{name: "a corrupt network", first: true, want: "does not fit this build", calls: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeWeights{errs: tc.errs, data: data, disconnected: tc.disconnected}
			if tc.name == "a corrupt network" {
				f.data = bytes.Clone(data)
				f.data[len(f.data)-1] ^= 0xff
			}
			var log bytes.Buffer
			w := &remote[yinsh.State]{g: g, weights: f, retry: time.Millisecond, spec: spec, cfg: cfg,
				opt: WorkerOptions{Dir: t.TempDir()}, console: console{out: &log}}
			model, err := w.fetch(context.Background(), tc.first)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("fetch: %v", err)
			case tc.want == "" && (model == nil || w.step.Load() != 7):
				t.Fatalf("fetch: model %v at step %d, want the checkpoint's step 7", model, w.step.Load())
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("fetch: %v, want an error with %q", err, tc.want)
			}
			if f.calls != tc.calls {
				t.Errorf("%d downloads, want %d", f.calls, tc.calls)
			}
		})
	}
}

// TestCheckRun: at each new network or reconnection a worker reads the run's info again, and
// stops for good (errNotThisRun) when a trainer restarted by another build runs another
// revision of the rules, another encoding or another net; it used to play on, its games all
// refused, or with its old network for ever. Info it cannot read now is read again later.
func TestCheckRun(t *testing.T) {
	g := yinsh.Blitz
	cfg := Config{Game: g.Info().Name, Net: net.Config{Blocks: 1, Channels: 4, PolicyChannels: 2, ValueChannels: 1, ValueHidden: 4}}
	same := dist.InfoOf(g.Info(), cfg.Net)
	rules, encoding, bigger := same, same, same
	rules.Rules++
	encoding.Encoding++
	bigger.Net.Blocks++
	for _, tc := range []struct {
		name   string
		run    dist.RunInfo
		runErr error
		want   string // "" for playing on
	}{
		{"the same run", same, nil, ""},
		{"another revision of the rules", rules, nil, "revision"},
		{"another encoding", encoding, nil, "encoding"},
		{"another net", bigger, nil, "its net is now"},
		{"info not readable now", rules, errors.New("nats: timeout"), ""},
	} {
		var log bytes.Buffer
		w := &remote[yinsh.State]{g: g, weights: &fakeWeights{run: tc.run, runErr: tc.runErr}, cfg: cfg, console: console{out: &log}}
		err := w.checkRun(context.Background())
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!errors.Is(err, errNotThisRun) || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: %v, want errNotThisRun saying %q", tc.name, err, tc.want)
		}
	}
}
