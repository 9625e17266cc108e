package web

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Loading a record from the page: a bad file is refused with the reader's error in the page
// (the node and the move) and the game on the board is left as it was; a good one (an SGF the
// server wrote, of another game than the page's) starts a game from its last position, its
// moves listed, the person on the record's side, the form turned to the record's game.
func TestBrowserLoadRecord(t *testing.T) {
	ctx, dir := browser(t, 30*time.Second)
	srv := httptest.NewServer(New(Options{Seed: func() uint64 { return 4 }}))
	defer srv.Close()
	files := t.TempDir()
	// The record to load: a Gygès game of ten decisions, played through the API.
	src := newGame(t, srv, `{"game":"gyges","side":"north","opponent":"random"}`)
	for i := 0; len(src.Moves) < 10 && !src.Over; i++ {
		if src.AgentTurn {
			call(t, srv, "POST", "/api/agent", `{"id":"`+src.ID+`"}`, &src)
		} else {
			call(t, srv, "POST", "/api/play", `{"id":"`+src.ID+`","move":"`+src.Legal[(3*i)%len(src.Legal)]+`"}`, &src)
		}
	}
	good := filepath.Join(files, "gyges-game.sgf")
	bad := filepath.Join(files, "broken.sgf")
	text := getRecord(t, srv, src.ID, "sgf")
	os.WriteFile(good, []byte(text), 0o644)
	// The same game with north's first move given to south (node 3, after the root and
	// south's first): a move out of turn.
	if !strings.Contains(text, ";W[") {
		t.Fatalf("the record has no move of north (W): %s", text)
	}
	os.WriteFile(bad, []byte(strings.Replace(text, ";W[", ";B[", 1)), 0o644)

	d := &driver{t: t, ctx: ctx, dir: dir}
	d.run(chromedp.Navigate(srv.URL+"/?game=yinsh-blitz&side=white&opponent=random"), chromedp.WaitReady(chromedp.CSS(`#board .hit.place`)))
	d.settle(0)
	d.click(`.hit.place`)
	d.settle(2)
	var id string
	d.eval(`page.st.id`, &id)

	d.run(chromedp.SetUploadFiles(chromedp.CSS("#load-file"), []string{bad}))
	d.run(chromedp.Poll[chromedp.Void](`!document.getElementById("message").hidden && document.body.dataset.busy === "false"`, chromedp.WithPollingTimeout(10*time.Second)))
	msg := d.text("#message")
	var after struct {
		ID    string
		Moves int
		Kind  string
	}
	d.eval(`({ id: page.st.id, moves: document.querySelectorAll("#moves li").length, kind: document.getElementById("message").dataset.kind })`, &after)
	if !strings.HasPrefix(msg, "broken.sgf: node 3: B[") || !strings.Contains(msg, "but north is to move") || after.Kind != "error" || after.ID != id || after.Moves != 2 || d.text("#title") != "YINSH blitz" {
		t.Errorf("a bad record: message %q (%s); the page's game %s with %d moves (was %s with 2), title %q", msg, after.Kind, after.ID, after.Moves, id, d.text("#title"))
	}
	d.shot("load-record-1-refused")

	d.run(chromedp.SetUploadFiles(chromedp.CSS("#load-file"), []string{good}))
	d.run(chromedp.Poll[chromedp.Void](`page.st.game === "gyges" && document.body.dataset.busy === "false"`, chromedp.WithPollingTimeout(10*time.Second)))
	d.settle(len(src.Moves) + 1) // and the agent's reply: it is south's turn
	var got struct {
		Moves          []string
		Human, Game    string
		Kind, Opponent string
	}
	d.eval(`({ moves: [...document.querySelectorAll("#moves li")].map((li) => li.textContent), human: page.st.human,
		game: document.getElementById("ng-game").value, kind: document.getElementById("message").dataset.kind,
		opponent: page.st.players.south })`, &got)
	if len(got.Moves) != len(src.Moves)+1 || strings.Join(got.Moves[:len(src.Moves)], ";") != strings.Join(src.Moves, ";") || got.Human != "north" || got.Game != "gyges" || got.Kind != "info" || got.Opponent != "random" {
		t.Errorf("the record loaded: moves %q (want %q), you play %s, the form's game %s, message %q (%s), the opponent %s", got.Moves, src.Moves, got.Human, got.Game, d.text("#message"), got.Kind, got.Opponent)
	}
	if !strings.HasPrefix(d.status, "Your turn") || !strings.Contains(d.text("#message"), "Loaded gyges-game.sgf: 10 moves") {
		t.Errorf("after loading: status %q, message %q", d.status, d.text("#message"))
	}
	d.shot("load-record-2-loaded")
}
