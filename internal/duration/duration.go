// Package duration writes a duration as every part of zero shows one to people (the training
// log, zero report's summary, the dashboard, an arena's progress): to the second under an
// hour, to the minute from an hour, in Go's notation without its zero units ("39s", "12m5s",
// "1h", "2h5m", "50h3m"), which time.ParseDuration and the --for flag read back.
package duration

import (
	"fmt"
	"time"
)

// Format writes d to the second under an hour, else to the minute.
func Format(d time.Duration) string {
	if d < 0 {
		return "-" + Format(-d)
	}
	if d = d.Round(time.Second); d < time.Hour {
		m, s := d/time.Minute, (d%time.Minute)/time.Second
		switch {
		case m == 0:
			return fmt.Sprintf("%ds", s)
		case s == 0:
			return fmt.Sprintf("%dm", m)
		}
		return fmt.Sprintf("%dm%ds", m, s)
	}
	d = d.Round(time.Minute)
	if h, m := d/time.Hour, (d%time.Hour)/time.Minute; m != 0 {
		return fmt.Sprintf("%dh%dm", h, m)
	}
	return fmt.Sprintf("%dh", d/time.Hour)
}

// Seconds is Format of a number of seconds (a run's working time, as its records hold it).
func Seconds(s float64) string { return Format(time.Duration(s * float64(time.Second))) }
