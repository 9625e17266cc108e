package gyges

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"strings"

	"github.com/zerogames/zero/env"
)

// Names are the players' names: south (player 0, who places and moves first) and north.
var Names = [2]string{"south", "north"}

// DefaultMoveCap is the number of moves (both players' together, placements not counted)
// after which a game is drawn, unless the config says otherwise.
const DefaultMoveCap = 200

// maxMoveCap bounds the configurable cap (the state counts moves in 16 bits).
const maxMoveCap = 10000

// Config is a game's configuration: the variant and the move cap, which is part of the game.
type Config struct {
	// Advanced plays the advanced rule: a movement ending on a piece may replace it.
	Advanced bool
	// MoveCap is the number of moves after which the game is drawn (0 means DefaultMoveCap).
	// A win made by the last move stands.
	MoveCap int
}

// The optional interfaces of the env contract that Gygès implements.
var (
	_ env.Game[State]         = (*Game)(nil)
	_ env.SpatialPolicy       = (*Game)(nil)
	_ env.PositionGame[State] = (*Game)(nil)
	_ env.PositionState       = State{}
	_ env.Explainer           = State{}
	_ env.WinFinder[State]    = (*Game)(nil)
	_ env.LegalCounter[State] = (*Game)(nil)
	_ env.Heuristic[State]    = (*Game)(nil)
	_ env.EarlierEncodings    = (*Game)(nil)
	_ env.Hasher[State]       = (*Game)(nil)
)

// Game is Gygès with a config. Use Basic, Advanced or NewGame.
type Game struct {
	info env.Info
	cfg  Config
}

var (
	// Basic is Gygès with the basic rule and the default move cap.
	Basic = mustGame(Config{})
	// Advanced is Gygès with the advanced rule (replacements) and the default move cap.
	Advanced = mustGame(Config{Advanced: true})
)

// NewGame returns the game with config cfg, or an error if the config is invalid.
func NewGame(cfg Config) (*Game, error) {
	if cfg.MoveCap == 0 {
		cfg.MoveCap = DefaultMoveCap
	}
	if cfg.MoveCap < 1 || cfg.MoveCap > maxMoveCap {
		return nil, fmt.Errorf("gyges: move cap %d: want 1 to %d", cfg.MoveCap, maxMoveCap)
	}
	name, actions := "gyges", NumActionsBasic
	if cfg.Advanced {
		name, actions = "gyges-advanced", NumActionsAdvanced
	}
	return &Game{cfg: cfg, info: env.Info{
		Name:        name,
		PlayerNames: Names,
		NumActions:  actions,
		Observation: env.Shape{Planes: numPlanes, Height: 6, Width: 6},
		MaxLength:   2*piecesEach + cfg.MoveCap,
		Symmetries:  2,
		Rules:       1,
		Encoding:    2,
	}}, nil
}

func mustGame(cfg Config) *Game {
	g, err := NewGame(cfg)
	if err != nil {
		panic(err)
	}
	return g
}

// Info returns the game's static facts.
func (g *Game) Info() *env.Info { return &g.info }

// Config returns the game's config (the move cap filled in).
func (g *Game) Config() Config { return g.cfg }

// New returns the empty board, south to place.
func (g *Game) New() State { return newState(g.cfg) }

// MapAction maps action a by symmetry k: k = 1 mirrors the board left–right (in the mover's
// frame as on the board, since turning the board commutes with mirroring it).
func (g *Game) MapAction(k int, a env.Action) env.Action {
	i := int(a)
	if k == 0 || i < 0 || i >= g.info.NumActions {
		return a
	}
	switch {
	case i < moveBase:
		return env.Action(i - i%6 + 5 - i%6)
	case i < replaceBase:
		i -= moveBase
		p, e := i/(numSquares+1), i%(numSquares+1)
		return env.Action(moveBase + mirrorSquare(p)*(numSquares+1) + mirrorSquare(e))
	}
	i -= replaceBase
	p, x, d := i/(numSquares*numSquares), i/numSquares%numSquares, i%numSquares
	return env.Action(replaceBase + (mirrorSquare(p)*numSquares+mirrorSquare(x))*numSquares + mirrorSquare(d))
}

// PolicyPlanes is the number of policy planes over the 6×6 board in the mover's frame: one per
// size to place (at the square), then one per end of a move (at the start square, the goal
// last), then, with the advanced rule, one per end and drop square of a replacement (at the
// start square).
func (g *Game) PolicyPlanes() int {
	if g.cfg.Advanced {
		return 3 + numSquares + 1 + numSquares*numSquares
	}
	return 3 + numSquares + 1
}

// PolicyCell places action a on the policy planes (see PolicyPlanes). Every action is on the
// grid.
func (g *Game) PolicyCell(a env.Action) (plane, cell int, ok bool) {
	i := int(a)
	switch {
	case i < 0 || i >= g.info.NumActions:
		return 0, 0, false
	case i < moveBase:
		return i / 6, i % 6, true
	case i < replaceBase:
		i -= moveBase
		return 3 + i%(numSquares+1), i / (numSquares + 1), true
	}
	i -= replaceBase
	return 3 + numSquares + 1 + i%(numSquares*numSquares), i / (numSquares * numSquares), true
}

// Observation planes, each 6×6 in the frame of the player to move (his start row first), so
// the network always sees the board from the mover's side.
const (
	planeSingles      = 0  // 1 where a piece of size 1 stands
	planeDoubles      = 1  // size 2
	planeTriples      = 2  // size 3
	planeNearRow      = 3  // 1 on the mover's nearest occupied row
	planeFarRow       = 4  // 1 on the opponent's nearest occupied row (the drop limit)
	planeOwnToPlace   = 5  // 3 planes: the mover's pieces of size 1, 2, 3 left to place, /2
	planeTheirToPlace = 8  // 3 planes: the opponent's
	planeMovesMade    = 11 // moves made / move cap
	planeAdvancedRule = 12 // all 1 with the advanced rule
	// Encoding 2 appends what each player's pieces that may move reach (the heuristic's reach,
	// heuristic.go), worked out for both players whoever is to move; all 0 during the set-up.
	planeOwnEnds    = 13 // per square, 1/4 for each of the mover's pieces whose moves end there
	planeOwnLands   = 14 // 1 on the pieces the mover's moves land on (bounce or replace)
	planeOwnRow     = 15 // 1 on the mover's pieces that may move (the row he moves from)
	planeTheirEnds  = 16 // the same three for the opponent
	planeTheirLands = 17
	planeTheirRow   = 18
	planeOwnGoal    = 19 // all 1 if the mover reaches the goal (he wins at once)
	planeTheirGoal  = 20 // all 1 if the opponent does (the mover must stop him)
	numPlanes       = 21
	// planesV1 is the observation of encoding 1, the first 13 planes of encoding 2's: the
	// networks trained on it read those planes of today's observation (EncodingPlanes).
	planesV1 = 13
)

// EncodingPlanes is the number of planes a network of encoding enc reads, the first of today's
// (env.EarlierEncodings): encoding 1's 13, before the reach planes were appended.
func (g *Game) EncodingPlanes(enc int) (int, bool) {
	switch enc {
	case 1:
		return planesV1, true
	case g.info.Encoding:
		return numPlanes, true
	}
	return 0, false
}

// Observe writes the observation planes (see the plane constants) into dst.
func (s State) Observe(dst []float32) {
	dst = dst[:numPlanes*numSquares]
	clear(dst)
	for k := 1; k <= 3; k++ {
		plane := dst[(planeSingles+k-1)*numSquares:]
		for m := s.sizeMask(k); m != 0; m &= m - 1 {
			plane[lowest(m)] = 1
		}
	}
	if occ := s.occupied(); occ != 0 {
		fillRow(dst[planeNearRow*numSquares:], lowest(occ)/6)
		fillRow(dst[planeFarRow*numSquares:], topRow(occ))
	}
	if s.SettingUp() {
		for k := 1; k <= 3; k++ {
			fill(dst[(planeOwnToPlace+k-1)*numSquares:], float32(s.toPlace(k, 0))/2)
			fill(dst[(planeTheirToPlace+k-1)*numSquares:], float32(s.toPlace(k, 5))/2)
		}
	}
	fill(dst[planeMovesMade*numSquares:], float32(s.moves)/float32(s.moveCap))
	if s.advanced {
		fill(dst[planeAdvancedRule*numSquares:], 1)
	}
	if s.SettingUp() || s.result != env.Ongoing {
		return
	}
	var me, them sideReach
	s.reachOf(&me, false, dst[planeOwnEnds*numSquares:planeOwnEnds*numSquares+numSquares], false)
	t := s.turned()
	t.reachOf(&them, false, dst[planeTheirEnds*numSquares:planeTheirEnds*numSquares+numSquares], true)
	setMask(dst[planeOwnLands*numSquares:], me.landed)
	setMask(dst[planeOwnRow*numSquares:], me.row)
	setMask(dst[planeTheirLands*numSquares:], turn(them.landed))
	setMask(dst[planeTheirRow*numSquares:], turn(them.row))
	if me.goal {
		fill(dst[planeOwnGoal*numSquares:], 1)
	}
	if them.goal {
		fill(dst[planeTheirGoal*numSquares:], 1)
	}
}

// setMask writes 1 at the squares of m.
func setMask(dst []float32, m uint64) {
	for ; m != 0; m &= m - 1 {
		dst[lowest(m)] = 1
	}
}

func fill(dst []float32, v float32) {
	for i := range numSquares {
		dst[i] = v
	}
}

func fillRow(dst []float32, row int) {
	for i := range 6 {
		dst[row*6+i] = 1
	}
}

// absolute is the board as written (South's frame).
func (s *State) absolute() (lo, hi uint64) {
	if s.side == 1 {
		return turn(s.lo), turn(s.hi)
	}
	return s.lo, s.hi
}

// String draws the board as South sees it, row 6 at the top: each square's piece size, or '.'.
func (s State) String() string {
	var sb strings.Builder
	lo, hi := s.absolute()
	for r := 5; r >= 0; r-- {
		fmt.Fprintf(&sb, "%d ", r+1)
		for c := range 6 {
			sq := r*6 + c
			k := lo>>sq&1 | (hi>>sq&1)<<1
			ch := byte('.')
			if k != 0 {
				ch = byte('0' + k)
			}
			sb.WriteByte(' ')
			sb.WriteByte(ch)
		}
		sb.WriteByte('\n')
	}
	sb.WriteString("   a b c d e f\n")
	sb.WriteString(s.status())
	return sb.String()
}

func (s State) status() string {
	rule := "basic rule"
	if s.advanced {
		rule = "advanced rule"
	}
	counter := fmt.Sprintf("%d of %d moves made, %s", s.moves, s.moveCap, rule)
	switch {
	case s.result == env.Draw && s.moves >= s.moveCap:
		return "game over: draw by the move cap; " + counter
	case s.result == env.Draw:
		return "game over: draw, " + Names[s.side] + " has no legal move; " + counter
	case s.result != env.Ongoing:
		return "game over: " + Names[s.result.Winner()] + " wins; " + counter
	case s.SettingUp():
		placed := "pieces"
		if n := bits.OnesCount64(s.occupied()); n == 1 {
			placed = "piece"
		}
		return fmt.Sprintf("%s to place (%d %s placed); %s", Names[s.side],
			bits.OnesCount64(s.occupied()), placed, counter)
	}
	return Names[s.side] + " to move; " + counter
}

// CanWin tells whether the player to move at s can bring a piece into the goal now (a turn is
// one decision; the search's solver asks it at every leaf): the reachable ends of the pieces
// that may move, without listing the moves.
func (g *Game) CanWin(s State, buf []env.Action) (bool, []env.Action) { return s.canWin(), buf }

// CountLegal is len(s.Legal(nil)), counted without listing the actions (bulk perft counts its
// last ply with it): a piece's moves by a popcount of the squares it reaches, its replacements
// by a popcount of the drop squares for each square it lands on.
func (g *Game) CountLegal(s State) int { return s.countLegal() }

// RandomLegal is s.Legal(nil)[rng.IntN(n)] (env.RandomPicker: random playouts draw through
// it), n the number of legal actions, without listing them: the actions are counted as
// CountLegal counts them and only the one drawn is worked out.
func (g *Game) RandomLegal(s State, rng *rand.Rand) env.Action { return s.randomLegal(rng) }
