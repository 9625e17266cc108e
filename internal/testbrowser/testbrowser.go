// Package testbrowser starts headless Chromium for the browser tests of the web pages (packages
// internal/ui/web and internal/ui/dash) and saves their screenshots. Only tests import it, so
// chromedp is never linked into the binary.
package testbrowser

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// slack multiplies a browser test's timeout (Start).
const slack = 3

// Start starts headless Chromium (Debian's chromium package) for a test, or skips the test where
// there is none. It returns the browser's context, ended after timeout·slack or with the test,
// and the folder for screenshots: $ZERO_ARTIFACTS if set (CI keeps it), else a temporary folder.
// The timeout is a guard against a hung browser, the test's time on an idle machine with room
// to spare, not a speed target: slack multiplies it, since `go test ./...` runs the packages
// side by side on CI's two cores (one test, at 100 s, ran out at 103 s on a loaded machine).
func Start(t *testing.T, timeout time.Duration) (context.Context, string) {
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
	ctx, cancel := context.WithTimeout(context.Background(), timeout*slack)
	t.Cleanup(cancel)
	actx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(actx, chromedp.WithErrorf(t.Logf))
	t.Cleanup(cancelBrowser)
	return bctx, dir
}

// Shot saves a screenshot of the page as dir/name.png.
func Shot(t *testing.T, ctx context.Context, dir, name string) {
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

// Do runs the actions, and runs them again (up to 20 times, 50 ms apart) while they fail because
// a node or the page they worked on went away ("(-32000)": a list the page rebuilt between
// chromedp's query of a node and its click, a page left by a navigation while a condition was
// polled in it): the click or the condition then applies to what replaced it. Any other error
// is returned at once.
func Do(ctx context.Context, actions ...chromedp.Action[chromedp.Void]) error {
	var err error
	for range 20 {
		err = chromedp.Do(ctx, actions...)
		if err == nil || !strings.Contains(err.Error(), "(-32000)") {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}
