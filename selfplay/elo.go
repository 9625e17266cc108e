package selfplay

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// Outcome is one game for the ratings: the players of sides 0 (who begins) and 1, by index,
// and the score of side 0: 1 a win, 0.5 a draw, 0 a loss.
type Outcome struct {
	First, Second int
	Score         float64
}

// Rating is one player's estimated strength.
type Rating struct {
	Name string `json:"name"`
	// Elo is the rating, the anchor being at 0.
	Elo float64 `json:"elo"`
	// CI95 is the half-width of the 95% confidence interval of Elo (relative to the anchor).
	CI95 float64 `json:"ci95"`
	// Games and Points are the games played and points scored (draws count half).
	Games  int     `json:"games"`
	Points float64 `json:"points"`
}

// Ratings are Elo ratings estimated by maximum likelihood over a set of games.
//
// The model is Elo's logistic curve with an advantage for the side that begins: side 0
// scores with expectation 1 / (1 + 10^(-(R0 - R1 + A)/400)), a draw counting as half a win
// and half a loss (as BayesElo and Ordo do without a draw model). The ratings R and the
// advantage A maximize the likelihood of all the games at once, plus BayesElo's prior:
// Prior virtual draws, colour-blind, between every two players who met (and Prior virtual draws
// between the two sides of equal players, for the advantage), which keeps a
// player who won or lost everything at a finite rating. The 95% intervals are 1.96 standard
// errors from the inverse of the observed Fisher information, the anchor being fixed at 0.
type Ratings struct {
	Players []Rating `json:"players"`
	// Anchor names the player held at 0.
	Anchor string `json:"anchor"`
	// Advantage is the first side's advantage A in Elo, and AdvantageCI95 its interval.
	Advantage     float64 `json:"first_side_advantage"`
	AdvantageCI95 float64 `json:"first_side_advantage_ci95"`
	// Prior is the number of virtual draws between players who met.
	Prior float64 `json:"prior_draws"`
	// Games is the number of games rated.
	Games int `json:"games"`
}

// eloScale turns an Elo difference into the logistic's natural units: 10^(d/400) = e^(d·k).
const eloScale = math.Ln10 / 400

// Rate estimates the ratings of players names[i] from games, holding names[anchor] at 0,
// with prior virtual draws (BayesElo's default is 2). It refuses games that do not connect
// every player to the anchor.
func Rate(names []string, games []Outcome, anchor int, prior float64) (Ratings, error) {
	n := len(names)
	switch {
	case n < 2:
		return Ratings{}, errors.New("ratings need at least two players")
	case anchor < 0 || anchor >= n:
		return Ratings{}, fmt.Errorf("anchor %d: want a player index in [0, %d)", anchor, n)
	case prior < 0 || math.IsNaN(prior):
		return Ratings{}, fmt.Errorf("prior %v: want a number of virtual draws ≥ 0", prior)
	}
	r := Ratings{Players: make([]Rating, n), Anchor: names[anchor], Prior: prior, Games: len(games)}
	met := make([][]bool, n)
	for i := range met {
		met[i] = make([]bool, n)
		r.Players[i].Name = names[i]
	}
	for _, g := range games {
		if g.First < 0 || g.First >= n || g.Second < 0 || g.Second >= n || g.First == g.Second {
			return Ratings{}, fmt.Errorf("a game between players %d and %d of %d", g.First, g.Second, n)
		}
		if g.Score != 0 && g.Score != 0.5 && g.Score != 1 {
			return Ratings{}, fmt.Errorf("a game scored %v: want 0, 0.5 or 1", g.Score)
		}
		met[g.First][g.Second], met[g.Second][g.First] = true, true
		r.Players[g.First].Games++
		r.Players[g.Second].Games++
		r.Players[g.First].Points += g.Score
		r.Players[g.Second].Points += 1 - g.Score
	}
	if err := connected(names, met, anchor); err != nil {
		return Ratings{}, err
	}

	// θ holds the ratings of the players but the anchor (in logistic units), then A.
	idx := make([]int, n) // player → index in θ, -1 for the anchor
	m := 0
	for i := range n {
		idx[i] = -1
		if i != anchor {
			idx[i] = m
			m++
		}
	}
	dim := m + 1
	theta := make([]float64, dim)
	grad := mat.NewVecDense(dim, nil)
	hess := mat.NewSymDense(dim, nil)
	step := mat.NewVecDense(dim, nil)
	var chol mat.Cholesky
	rating := func(i int) float64 {
		if idx[i] < 0 {
			return 0
		}
		return theta[idx[i]]
	}
	// term adds one game's (or virtual game's) contribution: weight × [s ln p + (1-s) ln(1-p)]
	// with p = σ(R_i - R_j + A·adv).
	term := func(i, j int, s, weight float64, adv bool) {
		d := rating(i) - rating(j)
		if adv {
			d += theta[m]
		}
		p := 1 / (1 + math.Exp(-d))
		g, h := weight*(s-p), weight*p*(1-p)
		var x [3]int // θ indices with coefficient +1, -1, +1
		var c [3]float64
		x[0], c[0] = idx[i], 1
		x[1], c[1] = idx[j], -1
		x[2], c[2] = -1, 0
		if adv {
			x[2], c[2] = m, 1
		}
		for a := range 3 {
			if x[a] < 0 {
				continue
			}
			grad.SetVec(x[a], grad.AtVec(x[a])+g*c[a])
			for b := a; b < 3; b++ {
				if x[b] < 0 {
					continue
				}
				hess.SetSym(x[a], x[b], hess.At(x[a], x[b])+h*c[a]*c[b])
			}
		}
	}
	// Same-player pairs never occur (refused above), so x[a] == x[b] only for a == b, whose
	// diagonal entry SetSym sets once.
	evaluate := func() {
		grad.Zero()
		hess.Zero()
		for _, g := range games {
			term(g.First, g.Second, g.Score, 1, true)
		}
		if prior > 0 {
			for i := range n {
				for j := i + 1; j < n; j++ {
					if met[i][j] {
						term(i, j, 0.5, prior, false)
					}
				}
			}
		}
		if prior > 0 {
			// The prior's virtual draws are also played between the two sides of equal
			// players, so that a side winning every game (common in a short match) gets a
			// finite advantage too.
			p := 1 / (1 + math.Exp(-theta[m]))
			grad.SetVec(m, grad.AtVec(m)+prior*(0.5-p))
			hess.SetSym(m, m, hess.At(m, m)+prior*p*(1-p))
		}
		// Without a prior the advantage is estimated from the games alone; a tiny ridge keeps
		// it defined when no game was played (or every game was a draw with no information on it).
		hess.SetSym(m, m, hess.At(m, m)+1e-9)
	}
	// Newton's method on a concave log-likelihood: θ += H⁻¹ ∇ (H = the negated Hessian).
	for iter := 0; ; iter++ {
		evaluate()
		if ok := chol.Factorize(hess); !ok {
			return Ratings{}, errors.New("the ratings are not determined by these games (a player who won or lost every game needs a prior > 0)")
		}
		if err := chol.SolveVecTo(step, grad); err != nil {
			return Ratings{}, fmt.Errorf("ratings: %w", err)
		}
		size := 0.0
		for k := range dim {
			d := step.AtVec(k)
			// Damp huge steps: far from the optimum the quadratic model overshoots.
			d = max(-2, min(2, d))
			theta[k] += d
			size = max(size, math.Abs(d))
		}
		if size < 1e-10 {
			break
		}
		if iter == 200 {
			return Ratings{}, errors.New("ratings: Newton's method did not converge in 200 steps (results that no finite rating explains, as a player or a side winning every game, need a prior > 0)")
		}
	}
	evaluate()
	if ok := chol.Factorize(hess); !ok {
		return Ratings{}, errors.New("the ratings are not determined by these games")
	}
	var cov mat.SymDense
	if err := chol.InverseTo(&cov); err != nil {
		return Ratings{}, fmt.Errorf("ratings: %w", err)
	}
	for i := range n {
		if idx[i] >= 0 {
			r.Players[i].Elo = theta[idx[i]] / eloScale
			r.Players[i].CI95 = 1.96 * math.Sqrt(cov.At(idx[i], idx[i])) / eloScale
		}
	}
	r.Advantage = theta[m] / eloScale
	r.AdvantageCI95 = 1.96 * math.Sqrt(cov.At(m, m)) / eloScale
	return r, nil
}

// connected checks that every player is linked to the anchor by a chain of games.
func connected(names []string, met [][]bool, anchor int) error {
	reached := make([]bool, len(names))
	queue := []int{anchor}
	reached[anchor] = true
	for len(queue) > 0 {
		i := queue[0]
		queue = queue[1:]
		for j, ok := range met[i] {
			if ok && !reached[j] {
				reached[j] = true
				queue = append(queue, j)
			}
		}
	}
	for i, ok := range reached {
		if !ok {
			return fmt.Errorf("player %s played no game linked to the anchor %s: no rating", names[i], names[anchor])
		}
	}
	return nil
}
