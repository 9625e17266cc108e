package main

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/zerogames/zero/"

// playSide are the packages that play and must link no training code: the engine protocol, the
// user interfaces, the arena's players and the registry they share, the network as inference
// sees it, and below them. train/worker, train/replay and train/dist are on the list too:
// self-play on another machine runs them, and needs no trainer.
var playSide = []string{
	"env", "mcts", "net", "net/linalg", "selfplay",
	"internal/games", "internal/engine", "internal/ui", "internal/ui/term", "internal/ui/web",
	"train/worker", "train/replay", "train/dist",
}

// TestPlaySideLinksNoGorgonia holds the import direction of the pipeline (env → mcts, net →
// play → self-play → training): no package in playSide depends, even indirectly, on a package
// whose path contains "gorgonia", in the default build, with OpenBLAS and with oneDNN. A
// failure names the chain of imports that brings it in.
func TestPlaySideLinksNoGorgonia(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH, so the dependencies cannot be listed:", err)
	}
	for _, tags := range []string{"", "openblas", "openblas,dnnl"} {
		pkgs := make([]string, len(playSide))
		for i, p := range playSide {
			pkgs[i] = module + p
		}
		imports := listImports(t, goCmd, tags, append(pkgs, module+"net/nettrain")...)
		for _, p := range pkgs {
			if chain := pathTo(imports, p, "gorgonia"); chain != nil {
				t.Errorf("tags %q: %s links gorgonia: %s", tags, p, strings.Join(chain, " → "))
			}
		}
		// The check is not blind: training does link gorgonia.
		if pathTo(imports, module+"net/nettrain", "gorgonia") == nil {
			t.Errorf("tags %q: net/nettrain does not seem to link gorgonia: the check sees nothing", tags)
		}
	}
}

// listImports runs go list -deps on pkgs and returns each package's direct imports, for every
// package listed.
func listImports(t *testing.T, goCmd, tags string, pkgs ...string) map[string][]string {
	t.Helper()
	args := []string{"list", "-deps", "-f", "{{.ImportPath}} {{join .Imports \" \"}}"}
	if tags != "" {
		args = append(args, "-tags", tags)
	}
	out, err := exec.Command(goCmd, append(args, pkgs...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) > 0 {
			imports[f[0]] = f[1:]
		}
	}
	for _, p := range pkgs {
		if _, ok := imports[p]; !ok {
			t.Fatalf("go list did not list %s", p)
		}
	}
	return imports
}

// pathTo returns a chain of imports from pkg to a package whose path contains sub (breadth
// first: a shortest one), or nil if there is none.
func pathTo(imports map[string][]string, pkg, sub string) []string {
	from := map[string]string{pkg: ""}
	queue := []string{pkg}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if strings.Contains(p, sub) {
			var chain []string
			for ; p != ""; p = from[p] {
				chain = append(chain, p)
			}
			slices.Reverse(chain)
			return chain
		}
		for _, q := range imports[p] {
			if _, seen := from[q]; !seen {
				from[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil
}

// TestLowLayersLinkWhatTheyUse: the search links no numerical library (its one Gamma draw is
// its own, mcts/gamma.go) and neither it nor the players link the terminal's progress bar
// (internal/ui's): the layers below the user interfaces depend on what they use.
func TestLowLayersLinkWhatTheyUse(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH, so the dependencies cannot be listed:", err)
	}
	imports := listImports(t, goCmd, "", module+"mcts", module+"selfplay", module+"internal/ui")
	for _, tc := range []struct{ pkg, sub string }{
		{"mcts", "gonum.org"},
		{"mcts", "progressbar"},
		{"mcts", "golang.org/x/term"},
		{"selfplay", "progressbar"},
		{"selfplay", "golang.org/x/term"},
	} {
		if chain := pathTo(imports, module+tc.pkg, tc.sub); chain != nil {
			t.Errorf("%s links %s: %s", tc.pkg, tc.sub, strings.Join(chain, " → "))
		}
	}
	// The check is not blind: the user interface does link the progress bar.
	if pathTo(imports, module+"internal/ui", "progressbar") == nil {
		t.Error("internal/ui does not seem to link the progress bar: the check sees nothing")
	}
}

// readSide are the packages that read a run folder and train nothing: the dashboard, zero
// report, the presets and the run folder's own packages. They link neither the trainer
// (gorgonia) nor the game server (NATS).
var readSide = []string{"internal/ui/dash", "internal/report", "configs", "train/runfolder", "train/runconfig"}

// TestReadSideLinksNoTrainer: no package in readSide depends, even indirectly, on gorgonia or
// NATS; a failure names the chain of imports that brings it in.
func TestReadSideLinksNoTrainer(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH, so the dependencies cannot be listed:", err)
	}
	pkgs := make([]string, len(readSide))
	for i, p := range readSide {
		pkgs[i] = module + p
	}
	imports := listImports(t, goCmd, "", append(pkgs, module+"train")...)
	for _, p := range pkgs {
		for _, sub := range []string{"gorgonia", "nats-io"} {
			if chain := pathTo(imports, p, sub); chain != nil {
				t.Errorf("%s links %s: %s", p, sub, strings.Join(chain, " → "))
			}
		}
	}
	// The check is not blind: the trainer links both.
	for _, sub := range []string{"gorgonia", "nats-io"} {
		if pathTo(imports, module+"train", sub) == nil {
			t.Errorf("train does not seem to link %s: the check sees nothing", sub)
		}
	}
}
