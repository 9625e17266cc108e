package configs

import (
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train"
)

// TestModelCards: every shipped model's card in models/README.md has a reproduce row whose
// commands train from configuration files of configs/ or models/recipes/, in one run folder;
// the files load, are of the model's game and net, and the last one ends the run as the model
// was made: its optimizer (with the learning-rate schedule) is the one the checkpoint
// recorded, and it stops at the model's step.
func TestModelCards(t *testing.T) {
	const root = ".."
	readme, err := os.ReadFile(filepath.Join(root, "models", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	models, err := filepath.Glob(filepath.Join(root, "models", "*.zck"))
	if err != nil || len(models) == 0 {
		t.Fatalf("no models (%v)", err)
	}
	command := regexp.MustCompile("`zero train --config (\\S+) --run (\\S+)`")
	for _, model := range models {
		name := filepath.Base(model)
		_, card, ok := strings.Cut(string(readme), "\n## "+name+"\n")
		if !ok {
			t.Errorf("models/README.md: no card for %s", name)
			continue
		}
		card, _, _ = strings.Cut(card, "\n## ")
		_, row, ok := strings.Cut(card, "\n| reproduce | ")
		if !ok {
			t.Errorf("models/README.md, %s: no reproduce row", name)
			continue
		}
		row, _, _ = strings.Cut(row, "\n")
		commands := command.FindAllStringSubmatch(row, -1)
		if len(commands) == 0 {
			t.Errorf("models/README.md, %s: the reproduce row has no `zero train --config FILE --run DIR`: %s", name, row)
			continue
		}
		h, _, err := net.Inspect(model)
		if err != nil {
			t.Fatal(err)
		}
		for i, cmd := range commands {
			file, run := cmd[1], cmd[2]
			if run != commands[0][2] {
				t.Errorf("%s: the sessions run in %s and %s", name, commands[0][2], run)
			}
			if !strings.HasPrefix(file, "configs/") && !strings.HasPrefix(file, "models/recipes/") {
				t.Errorf("%s: %s is neither in configs/ nor in models/recipes/", name, file)
			}
			c, err := train.LoadConfig(filepath.Join(root, file))
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			if c.Game != h.Game || c.Net != h.Net {
				t.Errorf("%s: %s trains %s with %+v; the model is %s with %+v", name, file, c.Game, c.Net, h.Game, h.Net)
			}
			if c.Init != "" {
				if _, err := os.Stat(filepath.Join(root, c.Init)); err != nil {
					t.Errorf("%s: %s starts from %v", name, file, err)
				}
			}
			if i < len(commands)-1 {
				continue
			}
			opt := c.Optimizer
			if h.Optimizer != nil && len(h.Optimizer.Schedule) == 0 && len(opt.Schedule) == 0 {
				opt.Schedule = h.Optimizer.Schedule // none either way
			}
			if h.Optimizer == nil || !reflect.DeepEqual(opt, *h.Optimizer) {
				t.Errorf("%s: %s's optimizer is\n%+v\nthe checkpoint's\n%+v", name, file, opt, h.Optimizer)
			}
			if c.Stop.Steps != h.Step {
				t.Errorf("%s: %s stops at step %d, the model is step %d", name, file, c.Stop.Steps, h.Step)
			}
		}
	}
}
