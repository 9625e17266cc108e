// Package configs holds the training presets, one per game and variant, tuned for a 2-core
// machine without GPU, "tiny" for tests, and "tictactoe" for the test game that
// docs/NEW_GAME.md registers. They are embedded in the binary: `zero train --game G` starts
// from G's preset wherever it runs.
//
// configs_test checks that every game has a preset that loads, and TestPresetSearch
// pins the search each preset (and an old run folder's config.yaml) makes. The
// configurations that trained the shipped models are models/recipes/ (not
// embedded: zero train --config); TestModelCards checks that each card in
// models/README.md names its recipe and commands, and that the recipe's game, net,
// optimizer and last step are those its checkpoint records.
package configs

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/zerogames/zero/train/runconfig"
)

//go:embed *.yaml
var files embed.FS

// Names lists the presets.
func Names() []string {
	entries, _ := fs.Glob(files, "*.yaml")
	for i, e := range entries {
		entries[i] = strings.TrimSuffix(e, ".yaml")
	}
	slices.Sort(entries)
	return entries
}

// Load decodes and checks the preset name.
func Load(name string) (runconfig.Config, error) {
	data, err := files.ReadFile(name + ".yaml")
	if err != nil {
		return runconfig.Config{}, fmt.Errorf("no training preset %q (presets: %s)", name, strings.Join(Names(), ", "))
	}
	c, err := runconfig.ParseConfig(data)
	if err != nil {
		return runconfig.Config{}, fmt.Errorf("configs/%s.yaml: %w", name, err)
	}
	return c, nil
}
