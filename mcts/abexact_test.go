package mcts

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/zerogames/zero/env"
)

// turnsTree: the most turns on a path from id, owner's turn being played (as value counts them).
func turnsTree(id int32, owner env.Player) int {
	nd := treeTab[id]
	switch nd.who {
	case env.Terminal:
		return 0
	case env.Chance:
		m := 0
		for _, c := range nd.kids {
			m = max(m, turnsTree(c, owner))
		}
		return m
	}
	add := 0
	if nd.who != owner {
		add = 1
	}
	m := 0
	for _, c := range nd.kids {
		m = max(m, turnsTree(c, nd.who))
	}
	return m + add
}

func TestAlphaBetaExactOnRandomTrees(t *testing.T) {
	bad := 0
	for seed := uint64(0); seed < 3000; seed++ {
		rng := rand.New(rand.NewPCG(seed, 2))
		g := newTree(randomTree(rng, 5+int(seed%5)))
		ex := exactTree(0)
		// Prove from every node, every owner, every turns.
		for id := range treeTab {
			if treeTab[id].who == env.Terminal {
				continue
			}
			for owner := env.Player(0); owner < 2; owner++ {
				for turns := 0; turns < 4; turns++ {
					ab := mustAB(t, g, 1, 1)
					v, ok := ab.Prove(tpos{int32(id)}, owner, turns, 0)
					if ok && math.Abs(v-exactTree(int32(id))) > 1e-9 {
						if bad++; bad < 5 {
							t.Errorf("seed %d node %d owner %d turns %d: Prove %v, exact %v", seed, id, owner, turns, v, exactTree(int32(id)))
						}
					}
				}
			}
		}
		if treeTab[0].who == env.Chance {
			continue
		}
		need := turnsTree(0, treeTab[0].who) + 1
		if need > MaxABDepth {
			continue
		}
		ab := mustAB(t, g, need, seed)
		res, err := ab.Search(context.Background(), tpos{0})
		if err != nil {
			t.Fatal(err)
		}
		sg := sign(treeTab[0].who)
		if math.Abs(res.Value-sg*ex) > 1e-9 || math.Abs(sg*exactTree(treeTab[0].kids[res.Best])-sg*ex) > 1e-9 {
			if bad++; bad < 10 {
				t.Errorf("seed %d: ab:%d value %v best %d (worth %v), exact %v", seed, need, res.Value, res.Best, sg*exactTree(treeTab[0].kids[res.Best]), sg*ex)
			}
		}
		// The principal variation starts with the move chosen and keeps the exact value all
		// along, down to the end of the game or a chance decision (the search sees the end).
		st := tpos{0}
		for _, a := range res.PV {
			if st = st.Play(a); math.Abs(exactTree(st.id)-ex) > 1e-9 {
				if bad++; bad < 10 {
					t.Errorf("seed %d: ab:%d's PV %v reaches node %d, worth %v, exact %v", seed, need, res.PV, st.id, exactTree(st.id), ex)
				}
				break
			}
		}
		if len(res.PV) == 0 || res.PV[0] != res.Best || treeTab[st.id].who != env.Terminal && treeTab[st.id].who != env.Chance {
			if bad++; bad < 10 {
				t.Errorf("seed %d: ab:%d's PV %v (best %d) ends at node %d, a decision", seed, need, res.PV, res.Best, st.id)
			}
		}
	}
	t.Log("bad", bad)
}
