package web

import (
	"fmt"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// At the widths of laptop and desktop windows, 1024 to 1600 px, nothing of the Gygès and
// Imbriqua pages is cut off (driver.fits after every move: the pieces left to place beside the
// Gygès board, the deck's texts beside Imbriqua's), from either side, through the set-up or
// opening into the game; a screenshot of each at its start and after its moves.
func TestBrowserWidths(t *testing.T) {
	ctx, dir := browser(t, 100*time.Second)
	srv := httptest.NewServer(New(Options{Seed: func() uint64 { return 9 }}))
	defer srv.Close()
	d := &driver{t: t, ctx: ctx, dir: dir}
	for _, width := range []int64{1024, 1280, 1600} {
		for _, tt := range []struct{ game, side string }{
			{"gyges-advanced", "south"}, {"gyges", "north"}, {"imbriqua", "light"}, {"imbriqua", "dark"},
		} {
			name := fmt.Sprintf("width-%d-%s-%s", width, tt.game, tt.side)
			d.run(chromedp.EmulateViewport(width, 860),
				chromedp.Navigate(fmt.Sprintf("%s/?game=%s&side=%s&opponent=random", srv.URL, tt.game, tt.side)),
				// The page is idle before its first game exists: wait for the game itself.
				chromedp.Poll[chromedp.Void](`typeof page !== "undefined" && page.st != null`, chromedp.WithPollingTimeout(10*time.Second)))
			d.settle(0)
			d.shot(name + "-start")
			// The person's moves, picked across the legal list as a person might: through the
			// set-up or opening and well into the game.
			for i := 0; i < 16; i++ {
				var over bool
				d.eval(`page.st.over`, &over)
				if over {
					break
				}
				n := d.count("#moves li")
				var ok bool
				d.eval(fmt.Sprintf(`(() => { const l = page.st.legal; if (!l.length) return false; play(l[(%d * 7) %% l.length]); return true; })()`, i), &ok)
				if !ok {
					t.Fatalf("%s: no legal move at move %d, the game going on", name, n)
				}
				d.settle(n + 1)
			}
			d.shot(name + "-later")
		}
	}
}
