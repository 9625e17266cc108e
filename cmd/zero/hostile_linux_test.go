package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The hostile inputs of a user (issue 48): checkpoint paths that are not files (a device that
// never ends, a FIFO nobody writes, a folder) and search settings that would allocate without
// bound, given to the commands that read them. Each runs zero in a child process whose address
// space is bounded (memoryEnv) and under a timeout, so that an unbounded read or allocation
// fails the test as a crash, and a blocking read as a timeout, instead of taking the machine.

// memoryEnv, set in a child's environment (with newGameEnv, which makes the test binary zero),
// bounds the child's address space to that many bytes (RLIMIT_AS), from its start.
const memoryEnv = "ZERO_TEST_MEMORY"

// childMemory is the bound: zero's runtime and a player of the shipped models work in it;
// what the inputs below asked for without a bound (23 GB and more) is far beyond it.
const childMemory = 2 << 30

func init() {
	if v := os.Getenv(memoryEnv); v != "" {
		n, err := strconv.ParseUint(v, 10, 64)
		if err == nil {
			err = syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: n, Max: n})
		}
		if err != nil {
			os.Stderr.WriteString("zero test: " + memoryEnv + "=" + v + ": " + err.Error() + "\n")
			os.Exit(3)
		}
	}
}

// boundedZero runs zero in dir on stdin with the memory bound and a timeout; it returns the
// output and the exit code, and fails the test if zero crashed, was killed or timed out.
func boundedZero(t *testing.T, dir, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, args...)
	// OPENBLAS_NUM_THREADS=1: OpenBLAS (-tags openblas) sizes its buffers for a thread pool of
	// one thread a core when it loads, and under this address-space limit its first sgemm then
	// waits for ever for memory it cannot map (seen on 0.3.21, 2 cores); zero runs one thread a
	// BLAS call anyway (linalg.Setup), so the limit bounds what this test is about, our reads.
	cmd.Env = append(os.Environ(), newGameEnv+"=1", memoryEnv+"="+strconv.Itoa(childMemory), "OPENBLAS_NUM_THREADS=1")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	start := time.Now()
	err = cmd.Run()
	var ee *exec.ExitError
	switch {
	case ctx.Err() != nil:
		t.Fatalf("zero %s: still running after %v (a read that blocks?)\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), time.Since(start).Round(time.Millisecond), out.String(), errOut.String())
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatal(err)
	}
	if code > 1 || strings.Contains(errOut.String(), "fatal error") || strings.Contains(errOut.String(), "panic:") {
		t.Fatalf("zero %s: exit code %d (a crash)\nstdout:\n%s\nstderr:\n%.2000s", strings.Join(args, " "), code, out.String(), errOut.String())
	}
	return out.String(), errOut.String(), code
}

func TestHostileCheckpoints(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.zck")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(dir, "folder.zck")
	if err := os.Mkdir(folder, 0o755); err != nil {
		t.Fatal(err)
	}
	const model = "models/yinsh-blitz.zck" // the shipped model, from the binary
	tiny, err := filepath.Abs("../../configs/tiny.yaml")
	if err != nil {
		t.Fatal(err)
	}
	notFile := []struct{ name, path, want string }{
		{"/dev/zero", "/dev/zero", "/dev/zero: a device, not a checkpoint file"},
		{"a FIFO", fifo, fifo + ": a named pipe, not a checkpoint file"},
		{"a folder", folder, folder + ": a folder, not a checkpoint file"},
	}
	inFlight := "mcts:10:in_flight=1000000000:" + model
	inFlightRefused := `player "` + inFlight + `": mcts: in_flight = 1000000000: want 1 to 256`

	// Commands that fail with a clear error.
	type failing struct {
		name string
		args []string
		want string
	}
	var cases []failing
	for _, f := range notFile {
		cases = append(cases,
			failing{"net info of " + f.name, []string{"net", "info", f.path}, f.want},
			failing{"arena with mcts:10: of " + f.name, []string{"arena", "--game", "yinsh-blitz", "--players", "mcts:10:" + f.path + ",random", "--games", "2", "--out", filepath.Join(dir, "arena")}, f.want},
			failing{"play against mcts:10: of " + f.name, []string{"play", "--game", "yinsh-blitz", "--opponent", "mcts:10:" + f.path}, f.want},
			failing{"bench selfplay --checkpoint of " + f.name, []string{"bench", "selfplay", "--config", tiny, "--checkpoint", f.path, "--time", "1ms", "--warmup", "0s"}, f.want},
		)
	}
	cases = append(cases,
		failing{"arena with in_flight=1000000000", []string{"arena", "--game", "yinsh-blitz", "--players", inFlight + ",random", "--games", "2", "--out", filepath.Join(dir, "arena")}, inFlightRefused},
		failing{"play against in_flight=1000000000", []string{"play", "--game", "yinsh-blitz", "--opponent", inFlight}, inFlightRefused},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, stderr, code := boundedZero(t, dir, "quit\n", c.args...)
			if code != 1 || !strings.Contains(stderr, c.want) {
				t.Errorf("exit code %d, stderr %q; want 1 and %q", code, stderr, c.want)
			}
		})
	}

	// The engine refuses each such player and goes on with the one it had.
	t.Run("engine", func(t *testing.T) {
		var in strings.Builder
		var want []string
		in.WriteString("game yinsh-blitz\n")
		want = append(want, "=\n\n")
		for _, f := range notFile {
			in.WriteString("player mcts:10:" + f.path + "\n")
			want = append(want, "? player \"mcts:10:"+f.path+"\": checkpoint "+f.want+"\n\n")
		}
		in.WriteString("player " + inFlight + "\nplayer\nplayer mcts:10:" + model + "\ngo visits 10\nquit\n")
		want = append(want, "? "+inFlightRefused+"\n\n", "= mcts:400:models/yinsh-blitz.zck\n\n", "=\n\n", "=\n")
		stdout, _, code := boundedZero(t, dir, in.String(), "engine")
		pos := 0
		for _, w := range want {
			i := strings.Index(stdout[pos:], w)
			if i < 0 {
				t.Fatalf("exit code %d; the engine's answers lack %q after byte %d:\n%s", code, w, pos, stdout)
			}
			pos += i + len(w)
		}
		if code != 0 || !strings.HasSuffix(stdout, "=\n\n") {
			t.Errorf("exit code %d, the answers end %q", code, stdout[max(0, len(stdout)-40):])
		}
	})

	// zero train --init refuses such a checkpoint before it touches the run folder: a new one
	// is not made, an empty one stays empty.
	for _, f := range notFile {
		for _, made := range []bool{false, true} {
			name := "train --init of " + f.name
			if made {
				name += " into an empty folder"
			}
			t.Run(name, func(t *testing.T) {
				run := filepath.Join(t.TempDir(), "run")
				if made {
					if err := os.Mkdir(run, 0o755); err != nil {
						t.Fatal(err)
					}
				}
				_, stderr, code := boundedZero(t, dir, "", "train", "--config", tiny, "--run", run, "--init", f.path, "--log", "1h")
				if code != 1 || !strings.Contains(stderr, "init: "+f.want) {
					t.Errorf("exit code %d, stderr %q; want 1 and %q", code, stderr, "init: "+f.want)
				}
				entries, err := os.ReadDir(run)
				switch {
				case !made && !errors.Is(err, os.ErrNotExist):
					t.Errorf("the refused run made its folder (%v): %v", err, entries)
				case made && (err != nil || len(entries) > 0):
					t.Errorf("the refused run left files in its folder (%v): %v", err, entries)
				}
			})
		}
	}
}
