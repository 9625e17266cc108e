package net

import (
	"fmt"

	"github.com/zerogames/zero/env"
)

// Spec is what the network needs to know of a game: its observation shape, its action space,
// and where each action's logit comes from.
//
// The policy head computes Outputs logits per position; action a's logit is output
// OutputOf(a). For a game with a spatial policy the outputs are the PolicyPlanes planes of
// Height×Width cells (plane by plane, cell by cell as in the observation), then OffGrid dense
// outputs for the actions off the grid, in ascending action order; for other games the outputs
// are the actions themselves.
type Spec struct {
	// Game is the game and variant's name, as checkpoints record it.
	Game string
	// Rules is the revision of the game's rules (env.Info.Rules), as checkpoints record it.
	Rules int
	// Encoding is the version of the game's observation and action encodings
	// (env.Info.Encoding), as checkpoints record it.
	Encoding int
	// Observation is the shape of the net's input.
	Observation env.Shape
	// NumActions is the size of the game's action space.
	NumActions int
	// PolicyPlanes is the number of policy planes over the grid; 0 for a dense policy head.
	PolicyPlanes int
	// OffGrid is the number of actions off the grid (spatial heads only).
	OffGrid int
	// output[a] is action a's index among the policy outputs.
	output []int32
	// earlier is the game's env.EarlierEncodings, if it has one: the encodings whose networks
	// read the first planes of today's observation, which Load widens to today's.
	earlier env.EarlierEncodings
}

// NewSpec describes a game for the network. Pass the game itself as policy if it implements
// env.SpatialPolicy and a spatial head is wanted, nil for a dense head. Two actions on the same
// policy cell, or a cell off the planes, are errors.
func NewSpec(info *env.Info, policy env.SpatialPolicy) (*Spec, error) {
	s := &Spec{Game: info.Name, Rules: info.Rules, Encoding: info.Encoding, Observation: info.Observation, NumActions: info.NumActions}
	if s.Observation.Size() == 0 || s.NumActions <= 0 {
		return nil, fmt.Errorf("%s: observation %v and %d actions: nothing to learn", info.Name, s.Observation, s.NumActions)
	}
	s.output = make([]int32, s.NumActions)
	if policy == nil {
		for a := range s.output {
			s.output[a] = int32(a)
		}
		return s, nil
	}
	s.PolicyPlanes = policy.PolicyPlanes()
	cells := s.Observation.Height * s.Observation.Width
	if s.PolicyPlanes < 1 {
		return nil, fmt.Errorf("%s: %d policy planes", info.Name, s.PolicyPlanes)
	}
	taken := make([]env.Action, s.PolicyPlanes*cells)
	for i := range taken {
		taken[i] = -1
	}
	var off []env.Action
	for a := range env.Action(s.NumActions) {
		plane, cell, ok := policy.PolicyCell(a)
		if !ok {
			off = append(off, a)
			continue
		}
		if plane < 0 || plane >= s.PolicyPlanes || cell < 0 || cell >= cells {
			return nil, fmt.Errorf("%s: action %d at plane %d cell %d, off the %d×%d policy planes", info.Name, a, plane, cell, s.PolicyPlanes, cells)
		}
		i := plane*cells + cell
		if taken[i] >= 0 {
			return nil, fmt.Errorf("%s: actions %d and %d on the same policy cell (plane %d, cell %d)", info.Name, taken[i], a, plane, cell)
		}
		taken[i] = a
		s.output[a] = int32(i)
	}
	s.OffGrid = len(off)
	for k, a := range off {
		s.output[a] = int32(s.PolicyPlanes*cells + k)
	}
	return s, nil
}

// SpecOf describes a game for the network, with a spatial policy head when the game offers one.
func SpecOf(info *env.Info, game any) (*Spec, error) {
	sp, _ := game.(env.SpatialPolicy)
	s, err := NewSpec(info, sp)
	if err == nil {
		s.earlier, _ = game.(env.EarlierEncodings)
	}
	return s, err
}

// EarlierPlanes is the number of observation planes a network of encoding enc reads, the first
// of today's, if the game serves that earlier encoding (env.EarlierEncodings): Load widens such a
// network to today's encoding. False for today's encoding and those the game does not serve.
func (s *Spec) EarlierPlanes(enc int) (int, bool) { return s.earlierPlanes(enc) }

func (s *Spec) earlierPlanes(enc int) (int, bool) {
	if s.earlier == nil || enc == s.Encoding {
		return 0, false
	}
	n, ok := s.earlier.EncodingPlanes(enc)
	return n, ok && n >= 1 && n < s.Observation.Planes
}

// Spatial tells whether the policy head is convolutional.
func (s *Spec) Spatial() bool { return s.PolicyPlanes > 0 }

// Cells is the number of cells of the grid.
func (s *Spec) Cells() int { return s.Observation.Height * s.Observation.Width }

// Outputs is the number of logits the policy head computes per position.
func (s *Spec) Outputs() int {
	if s.Spatial() {
		return s.PolicyPlanes*s.Cells() + s.OffGrid
	}
	return s.NumActions
}

// OutputOf is the index of action a's logit among the policy head's outputs.
func (s *Spec) OutputOf(a env.Action) int { return int(s.output[a]) }

// sameShape tells whether two specs describe the same network shape (names aside).
func (s *Spec) sameShape(t *Spec) error {
	switch {
	case s.Observation != t.Observation:
		return fmt.Errorf("observation %v, the game's is %v", t.Observation, s.Observation)
	case s.NumActions != t.NumActions:
		return fmt.Errorf("%d actions, the game has %d", t.NumActions, s.NumActions)
	case s.PolicyPlanes != t.PolicyPlanes || s.OffGrid != t.OffGrid:
		return fmt.Errorf("policy of %d planes and %d off-grid outputs, the game's is %d and %d", t.PolicyPlanes, t.OffGrid, s.PolicyPlanes, s.OffGrid)
	}
	return nil
}
