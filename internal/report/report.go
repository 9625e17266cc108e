// Package report draws a training run's plots (`zero report`): from the run's metrics.jsonl,
// PNG charts of the losses, the Elo ladder and the throughput, against training steps and
// against the run's elapsed hours.
package report

import (
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/zerogames/zero/train/metrics"
)

// chart is one PNG: the series of a kind of record whose names it lists (all, if none).
type chart struct {
	file, title, kind, ylabel string
	names                     []string
}

var charts = []chart{
	{"loss", "Training losses", "train", "loss", []string{"loss", "policy_loss", "value_loss"}},
	{"elo", "Elo of the checkpoints (95% interval)", "eval", "Elo", []string{"elo", "elo_low", "elo_high"}},
	{"selfplay", "Self-play throughput", "selfplay", "per second", []string{"games_per_s", "samples_per_s"}},
}

// Write reads runDir/metrics.jsonl and writes the charts into outDir, returning the files
// written. Charts with no data are skipped.
func Write(runDir, outDir string) ([]string, error) {
	records, _, err := metrics.Read(filepath.Join(runDir, "metrics.jsonl"))
	if err != nil {
		return nil, fmt.Errorf("reading the run's metrics: %w", err)
	}
	records = metrics.Timeline(records)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, err
	}
	var files []string
	for _, c := range charts {
		series := pick(metrics.Collect(records, c.kind), c.names)
		if len(series) == 0 {
			continue
		}
		for _, byTime := range []bool{false, true} {
			name := c.file + "-by-step.png"
			if byTime {
				name = c.file + "-by-hour.png"
			}
			path := filepath.Join(outDir, name)
			if err := draw(path, c, series, byTime); err != nil {
				return files, fmt.Errorf("%s: %w", path, err)
			}
			files = append(files, path)
		}
	}
	if len(files) == 0 {
		return nil, errors.New("the run has no metrics to plot yet")
	}
	return files, nil
}

func pick(all []metrics.Series, names []string) []metrics.Series {
	var out []metrics.Series
	for _, n := range names {
		for _, s := range all {
			if s.Name == n {
				out = append(out, s)
			}
		}
	}
	return out
}

func draw(path string, c chart, series []metrics.Series, byTime bool) error {
	p := plot.New()
	p.Title.Text = c.title
	p.Y.Label.Text = c.ylabel
	p.X.Label.Text = "training step"
	if byTime {
		p.X.Label.Text = "hours of training"
	}
	p.Add(plotter.NewGrid())
	for i, s := range series {
		xys := make(plotter.XYs, len(s.Value))
		for j := range s.Value {
			xys[j].X = s.Step[j]
			if byTime {
				xys[j].X = s.Elapsed[j] / 3600
			}
			xys[j].Y = s.Value[j]
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(i)
		points.Color = plotutil.Color(i)
		points.Radius = vg.Points(1.5)
		if strings.HasSuffix(s.Name, "_low") || strings.HasSuffix(s.Name, "_high") {
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
			line.Color = color.Gray{Y: 150}
			points.Color = color.Gray{Y: 150}
		}
		p.Add(line, points)
		p.Legend.Add(strings.ReplaceAll(s.Name, "_", " "), line)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	return p.Save(8*vg.Inch, 5*vg.Inch, path)
}
