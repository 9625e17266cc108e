package duration

import (
	"testing"
	"time"
)

// TestFormat: one notation for every duration shown, that time.ParseDuration reads back to
// the duration rounded.
func TestFormat(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0s"},
		{400 * time.Millisecond, "0s"},
		{39*time.Second + 600*time.Millisecond, "40s"},
		{59*time.Second + 700*time.Millisecond, "1m"},
		{12*time.Minute + 5*time.Second, "12m5s"},
		{59*time.Minute + 59*time.Second + 600*time.Millisecond, "1h"},
		{time.Hour + 2*time.Minute + 29*time.Second, "1h2m"},
		{2*time.Hour + 59*time.Minute + 31*time.Second, "3h"},
		{50*time.Hour + 3*time.Minute, "50h3m"},
		{-90 * time.Second, "-1m30s"},
	} {
		got := Format(tc.d)
		if got != tc.want {
			t.Errorf("Format(%v) = %q, want %q", tc.d, got, tc.want)
		}
		rounded := tc.d.Round(time.Second)
		if rounded.Abs() >= time.Hour {
			rounded = rounded.Round(time.Minute)
		}
		if back, err := time.ParseDuration(got); err != nil || back != rounded {
			t.Errorf("Format(%v) = %q reads back as %v, %v; want %v", tc.d, got, back, err, rounded)
		}
	}
	if got := Seconds(39.4); got != "39s" {
		t.Errorf("Seconds(39.4) = %q, want 39s", got)
	}
}
