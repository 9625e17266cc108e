package web

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/zerogames/zero/internal/ui"
)

// browser starts headless Chromium (Debian's chromium package) for a test, or skips the test
// where there is none. It returns the browser's context and the folder for screenshots:
// $ZERO_ARTIFACTS if set (CI keeps it), else a temporary folder.
func browser(t *testing.T, timeout time.Duration) (context.Context, string) {
	t.Helper()
	path := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		t.Skip("no chromium on this machine (Debian: apt-get install chromium): the browser test needs it")
	}
	dir := os.Getenv("ZERO_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path),
		chromedp.Headless,
		chromedp.NoSandbox, // root in a container has no user namespaces for the sandbox
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1360, 900),
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	t.Cleanup(cancel)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(cancelBrowser)
	return bctx, dir
}

// shot saves a screenshot of the page as dir/name.png.
func shot(t *testing.T, ctx context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot %s", path)
}

// A whole yinsh-blitz game in a real browser against the random agent: the test clicks as a
// person would (a point to place a ring; a ring, then one of its highlighted destinations; a
// highlighted row; a highlighted ring to remove; the pass button), checks what the page shows
// after each turn, asks for the agent's evaluation, takes a move back, and at the end checks
// the result shown against the game record the page offers for download.
func TestBrowserWholeGame(t *testing.T) {
	ctx, dir := browser(t, 55*time.Second)
	srv := httptest.NewServer(New(Options{Seed: func() uint64 { return 11 }}))
	defer srv.Close()

	var status string
	run := func(actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, actions...); err != nil {
			t.Fatal(err)
		}
	}
	get := func(a chromedp.Action[string]) string {
		t.Helper()
		v, err := chromedp.Run(ctx, a)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	attr := func(sel, name string) string {
		t.Helper()
		v, err := chromedp.Run(ctx, chromedp.AttributeValue(chromedp.CSS(sel), name))
		if err != nil {
			t.Fatal(err)
		}
		return v.Value
	}
	click := func(sel string) { t.Helper(); run(chromedp.Click(chromedp.CSS(sel))) }
	count := func(sel string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	// settle waits until the page is idle with at least n moves in its list.
	settle := func(n int) {
		t.Helper()
		run(chromedp.Poll[chromedp.Void](fmt.Sprintf(`document.body.dataset.busy === "false" && document.querySelectorAll("#moves li").length >= %d`, n),
			chromedp.WithPollingTimeout(10*time.Second)))
		status = get(chromedp.Text(chromedp.CSS("#status")))
	}

	run(chromedp.Navigate(srv.URL+"/?game=yinsh-blitz&side=white&opponent=random"),
		chromedp.WaitReady(chromedp.CSS(`#board .hit.place`)))
	settle(0)
	title := get(chromedp.Text(chromedp.CSS("#title")))
	if title != "YINSH blitz" || status != "Your turn — white to place a ring." || count(".hit.place") != 85 || count("#board .coord") != 22 {
		t.Fatalf("start: title %q, status %q, %d points to place on", title, status, count(".hit.place"))
	}
	shot(t, ctx, dir, "yinsh-blitz-1-start")

	seen := map[string]bool{}
	undone := false
	for step := 0; ; step++ {
		if step > 300 {
			t.Fatal("the game does not end")
		}
		state := attr("#status", "data-state")
		if state == "over" {
			break
		}
		if state != "you" {
			t.Fatalf("step %d: the page waits for nobody (state %q, status %q)", step, state, status)
		}
		n := count("#moves li")
		switch {
		case count("[data-row]") > 0:
			if !seen["row"] {
				shot(t, ctx, dir, "yinsh-blitz-3-row")
			}
			seen["row"] = true
			click(`[data-row]`)
		case count(".hit.remove") > 0:
			seen["ring"] = true
			click(`.hit.remove`)
		case count(".hit.place") > 0:
			placed := count(`[data-piece="W"]`)
			click(`.hit.place`)
			settle(n + 2)
			if got := count(`[data-piece="W"]`); got != placed+1 || count(`[data-piece="B"]`) != placed+1 {
				t.Fatalf("after placing: %d white and %d black rings shown, want %d each", got, count(`[data-piece="B"]`), placed+1)
			}
			continue
		case count(".hit.ring") > 0:
			run(chromedp.Click(chromedp.CSS(`.hit.ring`)), chromedp.WaitReady(chromedp.CSS(`.hit.dest`)))
			if count(".selected") != 1 || count(".hit.dest") == 0 {
				t.Fatalf("a ring picked: %d selected, %d destinations", count(".selected"), count(".hit.dest"))
			}
			if !seen["move"] {
				shot(t, ctx, dir, "yinsh-blitz-2-ring-picked")
			}
			seen["move"] = true
			markers := count(`[data-piece="w"]`) + count(`[data-piece="b"]`)
			click(`.hit.dest`)
			settle(n + 1)
			if got := count(`[data-piece="w"]`) + count(`[data-piece="b"]`); got < markers+1 && count("#choices [data-move]")+count("[data-row]")+count(".hit.remove") == 0 {
				// A move leaves a marker; only a row removed since takes markers away.
				if !strings.Contains(status, "wins") && count(".lastpath") != 1 {
					t.Fatalf("after a move: %d markers shown, were %d, and no last move drawn", got, markers)
				}
			}
			if count(".lastpath") != 1 {
				t.Fatal("the last move is not shown")
			}
			if !undone && n > 14 {
				// Ask for the agent's view, then take the move back and make it again.
				click("#analyze")
				settle(0)
				if count("#analysis tbody tr") < 1 {
					t.Fatal("no analysis shown")
				}
				shot(t, ctx, dir, "yinsh-blitz-4-analysis")
				before := count("#moves li")
				click("#undo")
				settle(0)
				if after := count("#moves li"); after >= before {
					t.Fatalf("undo: %d moves, were %d", after, before)
				}
				undone = true
			}
			continue
		case count(`#choices [data-move="pass"]`) > 0:
			click(`#choices [data-move="pass"]`)
		default:
			shot(t, ctx, dir, "yinsh-blitz-stuck")
			t.Fatalf("step %d: nothing to click; status %q", step, status)
		}
		settle(n + 1)
	}
	shot(t, ctx, dir, "yinsh-blitz-5-end")
	if !seen["move"] || !undone {
		t.Fatalf("the game ended before the test could move a ring and undo: %v", seen)
	}

	// What the page says of the end is what the record it offers says.
	href := attr("#download", "href")
	resp, err := srv.Client().Get(srv.URL + href)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rec, err := ui.ReadRecord(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("Game over: %s wins.", rec.Result)
	if rec.Result == "white" {
		want = "Game over: you win (white)."
	}
	if status != want || len(rec.Moves) != count("#moves li") {
		t.Fatalf("the page says %q after %d moves; the record: result %s after %d moves", status, count("#moves li"), rec.Result, len(rec.Moves))
	}
	if count(".pip.on") != 1 {
		t.Errorf("%d rings shown removed, want the winner's 1", count(".pip.on"))
	}
}
