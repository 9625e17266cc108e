package train

import (
	"path/filepath"

	"github.com/zerogames/zero/train/runconfig"
	"github.com/zerogames/zero/train/runfolder"
)

// A run's configuration is package runconfig's (its file format, defaults and checks); these
// names keep it where the loop takes it, train.Config.
type (
	Config         = runconfig.Config
	SelfPlayConfig = runconfig.SelfPlayConfig
	ReplayConfig   = runconfig.ReplayConfig
	TrainerConfig  = runconfig.TrainerConfig
	EvalConfig     = runconfig.EvalConfig
	StopConfig     = runconfig.StopConfig
	Duration       = runconfig.Duration
)

// DefaultConfig, LoadConfig and ParseConfig are runconfig's.
var (
	DefaultConfig = runconfig.DefaultConfig
	LoadConfig    = runconfig.LoadConfig
	ParseConfig   = runconfig.ParseConfig
)

// ReadConfig reads the configuration of the run folder dir.
func ReadConfig(dir string) (Config, error) {
	return LoadConfig(filepath.Join(dir, runfolder.ConfigFile))
}

// ErrBusy is the error of a run folder another process trains in (runfolder.ErrBusy).
var ErrBusy = runfolder.ErrBusy
