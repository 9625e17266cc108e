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

// TestChoiceValue: the value shown with an analysis is its chosen move's where known, the root
// mean only where not.
func TestChoiceValue(t *testing.T) {
	for _, tc := range []struct {
		an   Analysis
		want float64
	}{
		{Analysis{Value: 0.02, Moves: []MoveStat{{Move: "a", WinProb: 0.8}, {Move: "b", WinProb: 0.9}}}, 0.6},
		{Analysis{Value: 0.3, Moves: []MoveStat{{Move: "a", WinProb: -1}}}, 0.3},
		{Analysis{Value: -0.5}, -0.5},
	} {
		if got := tc.an.ChoiceValue(); got < tc.want-1e-9 || got > tc.want+1e-9 {
			t.Errorf("%+v: %v, want %v", tc.an, got, tc.want)
		}
	}
}
