package selfplay_test

import (
	"fmt"

	"github.com/zerogames/zero/selfplay"
)

// Three players: b scores 3 to 1 against a, c scores 3 to 1 against b, over 40 games each
// with sides alternating; a and c never meet. Ratings are relative to a.
func ExampleRate() {
	var games []selfplay.Outcome
	add := func(weak, strong, n int) {
		for k := range n {
			score := 1.0 // the stronger wins 3 games in 4
			if (k/2)%4 == 3 {
				score = 0
			}
			if k%2 == 0 {
				games = append(games, selfplay.Outcome{First: strong, Second: weak, Score: score})
			} else {
				games = append(games, selfplay.Outcome{First: weak, Second: strong, Score: 1 - score})
			}
		}
	}
	add(0, 1, 40)
	add(1, 2, 40)
	r, err := selfplay.Rate([]string{"a", "b", "c"}, games, 0, 0)
	if err != nil {
		panic(err)
	}
	for _, p := range r.Players {
		fmt.Printf("%s %+4.0f ±%.0f\n", p.Name, p.Elo, p.CI95)
	}
	// Output:
	// a   +0 ±0
	// b +191 ±124
	// c +382 ±176
}
