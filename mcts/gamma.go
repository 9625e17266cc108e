package mcts

import (
	"math"
	"math/rand/v2"
)

// gammaRand draws from the Gamma distribution of shape alpha > 0 and scale 1, for the root's
// Dirichlet noise (a Dirichlet sample is independent Gamma draws, normalized). For alpha ≥ 1
// it is Marsaglia and Tsang's squeeze method ("A simple method for generating gamma
// variables", ACM TOMS 26(3), 2000); below 1 it draws shape alpha+1 and multiplies by
// U^(1/alpha), their boost for small shapes (in float64 it underflows to 0 only for U below
// about 10^(-308·alpha), which the normalization of the noise survives).
func gammaRand(rng *rand.Rand, alpha float64) float64 {
	boost := 1.0
	if alpha < 1 {
		boost = math.Pow(1-rng.Float64(), 1/alpha) // 1−U: in (0, 1], never 0^(1/alpha)
		alpha++
	}
	d := alpha - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := rng.Float64()
		if u < 1-0.0331*(x*x)*(x*x) || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v * boost
		}
	}
}
