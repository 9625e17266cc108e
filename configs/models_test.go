package configs

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/zerogames/zero/models"
	"github.com/zerogames/zero/net"
	"github.com/zerogames/zero/train"
)

// TestModelCards: every shipped model's card in models/README.md has a reproduce row whose
// commands train from configuration files of configs/ or models/recipes/, in one run folder;
// the files load, are of the model's game and net, and the last one ends the run as the model
// was made: its optimizer (with the learning-rate schedule) is the one the checkpoint
// recorded, and it stops at the model's step. A model that is the mean of the run's last
// checkpoints (`zero net average`, no optimizer state) has the command that writes it last in
// the row: it averages checkpoints the run writes and keeps (multiples of checkpoint_every, or
// the last step; no more than keep_last), the newest at the model's step.
func TestModelCards(t *testing.T) {
	const root = ".."
	readme, err := os.ReadFile(filepath.Join(root, "models", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := filepath.Glob(filepath.Join(root, "models", "*.zck"))
	if err != nil || len(shipped) == 0 {
		t.Fatalf("no models (%v)", err)
	}
	command := regexp.MustCompile("`zero train --config (\\S+) --run (\\S+)`")
	average := regexp.MustCompile("`zero net average --out (\\S+) --force ([^`]+)`")
	for _, model := range shipped {
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
		h, _, err := net.Inspect(models.ReadFile, model)
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
			if c.Stop.Steps != h.Step {
				t.Errorf("%s: %s stops at step %d, the model is step %d", name, file, c.Stop.Steps, h.Step)
			}
			if mean := average.FindStringSubmatch(row); mean != nil {
				if h.Optimizer != nil {
					t.Errorf("%s: the card averages checkpoints, the model has an optimizer's state", name)
				}
				checkMean(t, name, mean[1], mean[2], run, c)
				continue
			}
			opt := c.Optimizer
			if h.Optimizer != nil && len(h.Optimizer.Schedule) == 0 && len(opt.Schedule) == 0 {
				opt.Schedule = h.Optimizer.Schedule // none either way
			}
			if h.Optimizer == nil || !reflect.DeepEqual(opt, *h.Optimizer) {
				t.Errorf("%s: %s's optimizer is\n%+v\nthe checkpoint's\n%+v", name, file, opt, h.Optimizer)
			}
		}
	}
}

// checkMean checks a card's `zero net average --out OUT --force ARGS` (ARGS as a shell reads
// them, brace ranges {A..B..STEP} expanded): it writes the model and averages checkpoints of
// the run that c ends, ones the run writes and keeps, the newest at c's last step.
func checkMean(t *testing.T, name, out, args, run string, c train.Config) {
	t.Helper()
	if out != "models/"+name {
		t.Errorf("%s: the card's average writes %s", name, out)
	}
	step := regexp.MustCompile(`^` + regexp.QuoteMeta(run) + `/checkpoints/step-(\d{8})\.zck$`)
	seen := map[int64]bool{}
	var newest int64
	for _, arg := range strings.Fields(args) {
		paths, err := expandBraces(arg)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			return
		}
		for _, p := range paths {
			m := step.FindStringSubmatch(p)
			if m == nil {
				t.Errorf("%s: the card averages %s, not a checkpoint of %s", name, p, run)
				continue
			}
			n, _ := strconv.ParseInt(m[1], 10, 64)
			if seen[n] {
				t.Errorf("%s: the card averages step %d twice", name, n)
			}
			seen[n] = true
			newest = max(newest, n)
			if n > c.Stop.Steps || n != c.Stop.Steps && n%int64(c.Trainer.CheckpointEvery) != 0 {
				t.Errorf("%s: the run writes no checkpoint at step %d (every %d, and at the last, %d)", name, n, c.Trainer.CheckpointEvery, c.Stop.Steps)
			}
		}
	}
	if newest != c.Stop.Steps {
		t.Errorf("%s: the newest checkpoint averaged is step %d, the run's last %d", name, newest, c.Stop.Steps)
	}
	if len(seen) > c.Trainer.KeepLast {
		t.Errorf("%s: the card averages %d checkpoints, the run keeps its last %d", name, len(seen), c.Trainer.KeepLast)
	}
}

// expandBraces expands the brace ranges {A..B} and {A..B..STEP} of a shell word as bash does,
// zero-padded to the width of A or B when one of them starts with 0.
func expandBraces(word string) ([]string, error) {
	r := regexp.MustCompile(`\{(\d+)\.\.(\d+)(?:\.\.(\d+))?\}`)
	m := r.FindStringSubmatchIndex(word)
	if m == nil {
		if strings.ContainsAny(word, "{}*?…") {
			return nil, fmt.Errorf("%s: not a path or a brace range {A..B..STEP}", word)
		}
		return []string{word}, nil
	}
	a, b := word[m[2]:m[3]], word[m[4]:m[5]]
	from, _ := strconv.Atoi(a)
	to, _ := strconv.Atoi(b)
	by := 1
	if m[6] >= 0 {
		by, _ = strconv.Atoi(word[m[6]:m[7]])
	}
	if from > to || by < 1 {
		return nil, fmt.Errorf("%s: the range counts down or by %d", word, by)
	}
	width := 0
	if len(a) > 1 && a[0] == '0' || len(b) > 1 && b[0] == '0' {
		width = max(len(a), len(b))
	}
	var words []string
	for n := from; n <= to; n += by {
		rest, err := expandBraces(word[m[1]:])
		if err != nil {
			return nil, err
		}
		for _, r := range rest {
			words = append(words, fmt.Sprintf("%s%0*d%s", word[:m[0]], width, n, r))
		}
	}
	return words, nil
}

func TestExpandBraces(t *testing.T) {
	for _, tc := range []struct {
		word, want, err string
	}{
		{"run/step-1.zck", "run/step-1.zck", ""},
		{"s-{1..3}", "s-1 s-2 s-3", ""},
		{"s-000{06000..06500..250}.zck", "s-00006000.zck s-00006250.zck s-00006500.zck", ""},
		{"{8..12..2}-{0..1}", "8-0 8-1 10-0 10-1 12-0 12-1", ""},
		{"s-{3..1}", "", "counts down"},
		{"s-{06000,…,12615}", "", "not a path"},
	} {
		got, err := expandBraces(tc.word)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want an error with %q", tc.word, err, tc.err)
			}
			continue
		}
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %q (%v), want %q", tc.word, got, err, tc.want)
		}
	}
}
