package train

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/zerogames/zero/train/runfolder"
)

// A run's configuration history: every session records the configuration it ran with in
// config-history/session-NNNN.yaml, a file zero train can start from again (--config), under
// a header of comments: the command, when and at which step the session started, its
// command-line stop, and the settings changed since the session before. A resume compares the
// configuration it is given with the newest record (config.yaml in a folder from before the
// history), prints the changes, and refuses those that would break the run (fixed). A
// schedule change is therefore an edit of config.yaml, or another --config, that the next
// session's record shows.

// sessionFile is the name of session n's record.
func sessionFile(n int) string {
	return filepath.Join(runfolder.HistoryDir, fmt.Sprintf("session-%04d.yaml", n))
}

var sessionName = regexp.MustCompile(`^session-(\d{4,})\.yaml$`)

// fixed are the settings a run keeps for its life, by key or section ("net."), with the reason
// another value cannot resume it.
var fixed = []struct{ key, why string }{
	{"game", "a run keeps its game: its checkpoints, replay and ladder are of this one"},
	{"net.", "a run keeps its net: its checkpoints hold weights of this architecture"},
	{"optimizer.method", "the checkpoints hold this method's state (Adam's moments are not SGD's velocities)"},
}

// A change is a setting that differs between two configurations: its key as in the file
// ("optimizer.schedule") and both values in YAML's flow style ("(none)" for an absent one).
type change struct{ key, old, new string }

func (c change) String() string { return c.key + ": " + c.old + " → " + c.new }

// changes lists the settings that differ from old to cfg, in the file's order.
func changes(old, cfg *Config) ([]change, error) {
	before, err := settings(old)
	if err != nil {
		return nil, err
	}
	after, err := settings(cfg)
	if err != nil {
		return nil, err
	}
	was := map[string]string{}
	for _, s := range before {
		was[s[0]] = s[1]
	}
	var out []change
	for _, s := range after {
		v, ok := was[s[0]]
		if !ok {
			v = "(none)"
		}
		if v != s[1] {
			out = append(out, change{s[0], v, s[1]})
		}
		delete(was, s[0])
	}
	for _, s := range before {
		if _, gone := was[s[0]]; gone {
			out = append(out, change{s[0], s[1], "(none)"})
		}
	}
	return out, nil
}

// settings flattens a configuration as it is written into (key, value) pairs: a mapping's
// entries are settings of their own (net.blocks), a list is one value (optimizer.schedule).
func settings(c *Config) ([][2]string, error) {
	var doc yaml.Node
	if err := doc.Encode(c); err != nil {
		return nil, err
	}
	var out [][2]string
	var walk func(key string, n *yaml.Node)
	walk = func(key string, n *yaml.Node) {
		if n.Kind != yaml.MappingNode {
			out = append(out, [2]string{key, flow(n)})
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			if key != "" {
				k = key + "." + k
			}
			walk(k, n.Content[i+1])
		}
	}
	walk("", &doc)
	return out, nil
}

// flow writes a value on one line, as YAML's flow style does: [{step: 6900, factor: 0.25}].
func flow(n *yaml.Node) string {
	if n.Kind == yaml.ScalarNode && n.Value == "" {
		return `""`
	}
	var style func(*yaml.Node)
	style = func(n *yaml.Node) {
		n.Style |= yaml.FlowStyle
		for _, c := range n.Content {
			style(c)
		}
	}
	style(n)
	data, err := yaml.Marshal(n)
	if err != nil {
		return n.Value
	}
	return strings.TrimSpace(string(data))
}

// refused is the error for the changes a resume cannot take, nil if none is one of them.
func refused(dir string, cs []change) error {
	var lines []string
	for _, c := range cs {
		for _, f := range fixed {
			if c.key == f.key || (strings.HasSuffix(f.key, ".") && strings.HasPrefix(c.key, f.key)) {
				lines = append(lines, fmt.Sprintf("%s: %s", c, f.why))
				break
			}
		}
	}
	if len(lines) == 0 {
		return nil
	}
	return fmt.Errorf("run folder %s cannot resume with this configuration (give another --run for a new run):\n  %s",
		dir, strings.Join(lines, "\n  "))
}

// lastRecord is the configuration the run in dir last ran with, and where it was read: the
// newest session record, or config.yaml in a folder from before the history. It is nil for a
// folder that holds no run.
func lastRecord(dir string) (*Config, string, error) {
	entries, err := os.ReadDir(filepath.Join(dir, runfolder.HistoryDir))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, "", err
	}
	newest := -1
	for _, e := range entries {
		if m := sessionName.FindStringSubmatch(e.Name()); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n > newest {
				newest = n
			}
		}
	}
	from := runfolder.ConfigFile
	if newest >= 0 {
		from = sessionFile(newest)
	}
	c, err := LoadConfig(filepath.Join(dir, from))
	if errors.Is(err, os.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("run folder %s: %w", dir, err)
	}
	// Records hold the cores filled in; config.yaml may leave them to the machine.
	c.Cores()
	return &c, from, nil
}

// sessionRecord is session n's record: its header of comments, then cfg.
func sessionRecord(cfg *Config, n int, command string, start time.Time, state *runfolder.State, stop *StopConfig, from string, cs []change) ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# Session %d of this run", n)
	if command != "" {
		fmt.Fprintf(&b, ": %s", command)
	}
	fmt.Fprintf(&b, "\n# started %s at step %d", start.UTC().Format(time.RFC3339), state.Step)
	if state.Checkpoint != "" {
		fmt.Fprintf(&b, " (%s)", filepath.ToSlash(state.Checkpoint))
	}
	b.WriteString("\n")
	if stop != nil {
		fmt.Fprintf(&b, "# stop for this session only (command line): steps %d, time %s\n", stop.Steps, time.Duration(stop.Time))
	}
	if from == "" {
		b.WriteString("# the run's first session\n")
	} else {
		since := filepath.ToSlash(from)
		switch {
		case from == runfolder.ConfigFile && n > 1:
			fmt.Fprintf(&b, "# sessions 1 to %d ran before the configuration history, last with config.yaml\n", n-1)
			since = "then"
		case from == runfolder.ConfigFile:
			b.WriteString("# the run's first session, over a config.yaml no session counted\n")
		}
		if len(cs) == 0 {
			fmt.Fprintf(&b, "# no setting changed since %s\n", since)
		} else {
			fmt.Fprintf(&b, "# changed since %s:\n", since)
			for _, c := range cs {
				fmt.Fprintf(&b, "#   %s\n", c)
			}
		}
	}
	data, err := cfg.Marshal()
	if err != nil {
		return nil, err
	}
	b.Write(data)
	return []byte(b.String()), nil
}
