package mcts

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestGammaRand: the Dirichlet noise's Gamma draws have the distribution's mean and variance
// (both alpha, at scale 1) and its mass below the median of shape 1 (1 − e^(−ln 2)) for the
// shapes the games use (0.03 to 1) and above, seeded; no draw is negative or NaN, and the
// shapes below 1 give positive draws.
func TestGammaRand(t *testing.T) {
	const n = 200_000
	for _, alpha := range []float64{0.03, 0.1, 0.3, 0.5, 1, 2.5, 10} {
		rng := rand.New(rand.NewPCG(1, uint64(alpha*1000)))
		sum, sum2, zeros := 0.0, 0.0, 0
		below := 0
		for range n {
			x := gammaRand(rng, alpha)
			if !(x >= 0) {
				t.Fatalf("alpha %v: draw %v", alpha, x)
			}
			if x == 0 {
				zeros++
			}
			if x < math.Ln2 {
				below++
			}
			sum += x
			sum2 += x * x
		}
		mean := sum / n
		variance := sum2/n - mean*mean
		// Standard errors: the mean's √(α/n); the variance's √((μ4 − σ⁴)/n), μ4 = 3α² + 6α.
		seMean := math.Sqrt(alpha / n)
		seVar := math.Sqrt((3*alpha*alpha + 6*alpha - alpha*alpha) / n)
		if math.Abs(mean-alpha) > 5*seMean {
			t.Errorf("alpha %v: mean %v, want %v ± %v", alpha, mean, alpha, 5*seMean)
		}
		if math.Abs(variance-alpha) > 5*seVar {
			t.Errorf("alpha %v: variance %v, want %v ± %v", alpha, variance, alpha, 5*seVar)
		}
		if alpha == 1 {
			// Exponential(1): P(X < ln 2) = 1/2.
			if p := float64(below) / n; math.Abs(p-0.5) > 5*math.Sqrt(0.25/n) {
				t.Errorf("alpha 1: P(X < ln 2) = %v, want 0.5", p)
			}
		}
		if alpha >= 0.1 && zeros > 0 {
			t.Errorf("alpha %v: %d draws of 0", alpha, zeros)
		}
	}
}
