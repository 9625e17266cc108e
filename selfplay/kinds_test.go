package selfplay

import (
	"strings"
	"testing"

	"github.com/zerogames/zero/internal/testgames"
)

// TestKinds: each kind has its maker at its place, each of its forms (placeholders filled)
// reads as that kind, and each is made into a player of its kind's abilities.
func TestKinds(t *testing.T) {
	g := testgames.TicTacToe
	if n, m := len(kinds), len(makers[testgames.Board]()); n != m {
		t.Fatalf("%d kinds, %d makers", n, m)
	}
	ckpt := saveTinyNet(t, t.TempDir()+"/ttt.zck", g.Info(), g)
	fill := strings.NewReplacer("N", "20", "TIME", "30ms", "D", "2", "KEY=VALUE:…:", "c_puct=1.5:", "CHECKPOINT", ckpt)
	for _, k := range Kinds() {
		if len(k.Forms) == 0 || k.Summary == "" || k.parse == nil {
			t.Errorf("%s: forms %q, summary %q", k.Name, k.Forms, k.Summary)
		}
		if !strings.Contains(KindsHelp(), k.Forms[0]+",") && !strings.Contains(KindsHelp(), k.Forms[0]+" (") {
			t.Errorf("the help lacks %s", k.Forms[0])
		}
		for _, form := range k.Forms {
			text := fill.Replace(form)
			sp, err := ParseSpec(text)
			if err != nil {
				t.Errorf("%s: %v", text, err)
				continue
			}
			if got := sp.KindInfo(); got.Name != k.Name {
				t.Errorf("%s reads as kind %q, want %q", text, got.Name, k.Name)
			}
			p, err := NewPlayer(g, sp)
			if err != nil {
				t.Errorf("%s: %v", text, err)
				continue
			}
			if _, isSearch := p.(*Searcher[testgames.Board]); isSearch != k.Searches {
				t.Errorf("%s: a tree search %v, the kind says %v", text, isSearch, k.Searches)
			}
			if c, ok := p.(interface{ Close() }); ok {
				c.Close()
			}
		}
	}
	if _, ok := KindOf("chess"); ok {
		t.Error("a kind chess")
	}
	if _, err := ParseSpec("chess:3"); err == nil || !strings.Contains(err.Error(), strings.Join(KindForms(), ", ")) {
		t.Errorf("an unknown kind: %v", err)
	}
}
