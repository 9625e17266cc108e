package mcts

import (
	"fmt"

	"github.com/zerogames/zero/env"
)

// A hand-built game tree for the tests of the solver against exact values: a position is a node of treeTab.
type tnode struct {
	who   env.Player // 0, 1, env.Chance or env.Terminal
	kids  []int32    // children by action (action k leads to kids[k])
	probs []float64  // chance only
	res   env.Result // terminal only
}

var treeTab []tnode

type tpos struct{ id int32 }

func (p tpos) ToMove() env.Player { return treeTab[p.id].who }
func (p tpos) Legal(dst []env.Action) []env.Action {
	for k := range treeTab[p.id].kids {
		dst = append(dst, env.Action(k))
	}
	return dst
}
func (p tpos) Chances(dst []env.Outcome) []env.Outcome {
	if treeTab[p.id].who != env.Chance {
		return dst
	}
	for k, pr := range treeTab[p.id].probs {
		dst = append(dst, env.Outcome{Action: env.Action(k), Prob: pr})
	}
	return dst
}
func (p tpos) Play(a env.Action) tpos                       { return tpos{treeTab[p.id].kids[a]} }
func (p tpos) Result() env.Result                           { return treeTab[p.id].res }
func (p tpos) Observe(dst []float32)                        { clear(dst) }
func (p tpos) Symmetry(int) tpos                            { return p }
func (p tpos) String() string                               { return fmt.Sprintf("node %d", p.id) }
func (p tpos) AppendAction(dst []byte, a env.Action) []byte { return fmt.Appendf(dst, "a%d", a) }
func (p tpos) ParseAction(text string) (env.Action, error) {
	var a int
	_, err := fmt.Sscanf(text, "a%d", &a)
	return env.Action(a), err
}

type tgame struct{ info env.Info }

func (g *tgame) Info() *env.Info                          { return &g.info }
func (g *tgame) New() tpos                                { return tpos{0} }
func (g *tgame) MapAction(_ int, a env.Action) env.Action { return a }

// newTree installs the table and returns its game.
func newTree(tab []tnode) *tgame {
	treeTab = tab
	n := 1
	for _, nd := range tab {
		n = max(n, len(nd.kids))
	}
	return &tgame{info: env.Info{Name: "tree", PlayerNames: [2]string{"a", "b"}, NumActions: n,
		Observation: env.Shape{Planes: 1, Height: 1, Width: 1}, MaxLength: len(tab), Symmetries: 1,
		HasChance: true, Rules: 1, Encoding: 1}}
}

func dec(p env.Player, kids ...int32) tnode { return tnode{who: p, kids: kids} }
func end(r env.Result) tnode                { return tnode{who: env.Terminal, res: r} }
func chance(probs []float64, kids ...int32) tnode {
	return tnode{who: env.Chance, kids: kids, probs: probs}
}
