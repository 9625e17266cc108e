package net

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io/fs"
	"math"
	"slices"
	"time"

	"github.com/zerogames/zero/env"
	"github.com/zerogames/zero/internal/atomicfile"
	"github.com/zerogames/zero/models"
)

// A checkpoint file is, in order (integers little-endian):
//
//	magic         8 bytes  "zeronet\n"
//	format        uint32   FormatVersion
//	header size   uint32   n
//	header        n bytes  JSON: a Header
//	tensors                float32 values of each tensor the header lists, in its order:
//	                       the parameters, then (if the header says so) the optimizer's
//	                       first and second moments of each trained parameter
//	checksum      uint32   CRC-32C (Castagnoli) of everything before it
//
// It is written to a temporary file in the same directory, synced, renamed over the target and
// the directory synced, so a crash leaves the old file or the new one, never a mix.
const (
	magic = "zeronet\n"
	// Magic is how every checkpoint file starts: a reader may refuse a file that does not
	// before it reads it whole.
	Magic = magic
	// FormatVersion is the version of the checkpoint format this package writes and reads.
	FormatVersion = 1
	// maxHeader bounds the header size a reader believes before reading it.
	maxHeader = 1 << 24
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Header is a checkpoint's description of itself.
type Header struct {
	Format int `json:"format"`
	// Game is the game and variant ("yinsh-blitz").
	Game string `json:"game"`
	// Rules is the revision of the game's rules the net learned under (env.Info.Rules), and
	// Encoding the version of the observation and action encodings it reads and writes
	// (env.Info.Encoding). Until the two were told apart, "rules" was one number for both;
	// a file without "encoding" has the encoding its "rules" says, and a file with neither
	// (older still) is version 1 of both, the version every game had then.
	Rules    int `json:"rules,omitempty"`
	Encoding int `json:"encoding,omitempty"`
	// Observation, NumActions, PolicyPlanes, OffGrid and PolicyLayout are the game's shape as
	// the net saw it; PolicyLayout is a CRC-32C of the map from actions to policy outputs.
	Observation  env.Shape `json:"observation"`
	NumActions   int       `json:"num_actions"`
	PolicyPlanes int       `json:"policy_planes,omitempty"`
	OffGrid      int       `json:"off_grid,omitempty"`
	PolicyLayout uint32    `json:"policy_layout"`
	// Net is the architecture.
	Net Config `json:"net"`
	// Step is the number of training steps behind the weights.
	Step int64 `json:"step"`
	// Created is when the file was written.
	Created time.Time `json:"created"`
	// Optimizer is the optimizer's configuration and OptimizerStep its step count, when the file
	// holds its state (for an exact resume).
	Optimizer     *OptimizerConfig `json:"optimizer,omitempty"`
	OptimizerStep int64            `json:"optimizer_step,omitempty"`
	// Tensors lists the tensors in the file, in order.
	Tensors []TensorInfo `json:"tensors"`
}

// TensorInfo names a tensor of a checkpoint and gives its shape.
type TensorInfo struct {
	Name  string `json:"name"`
	Shape []int  `json:"shape"`
}

func (t TensorInfo) size() int64 {
	n := int64(1)
	for _, d := range t.Shape {
		n *= int64(d)
	}
	return n
}

// Values is the number of float32 values the header's tensors hold.
func (h *Header) Values() int64 {
	var n int64
	for _, t := range h.Tensors {
		n += t.size()
	}
	return n
}

// maxValues bounds the values a checkpoint's header may describe (4 TiB of them), so that
// a corrupt shape cannot overflow the counts.
const maxValues = 1 << 40

// checkShapes checks that every dimension of the header's tensors is at least 1 and that
// their values can be counted.
func (h *Header) checkShapes() error {
	total := int64(0)
	for _, t := range h.Tensors {
		n := int64(1)
		for _, d := range t.Shape {
			if d < 1 || int64(d) > maxValues/n {
				return fmt.Errorf("corrupt header: tensor %s has shape %v", t.Name, t.Shape)
			}
			n *= int64(d)
		}
		if total += n; total > maxValues {
			return fmt.Errorf("corrupt header: its tensors hold %d values or more", total)
		}
	}
	return nil
}

// checkLayout checks that the header's tensors are those of its net's layout for its game's
// shape (and its optimizer's), so that a loader allocates what the file holds and no more.
func (h *Header) checkLayout() error {
	if err := h.Net.Validate(); err != nil {
		return fmt.Errorf("corrupt net config: %w", err)
	}
	if h.Optimizer != nil {
		if err := h.Optimizer.Validate(); err != nil {
			return fmt.Errorf("corrupt optimizer config: %w", err)
		}
	}
	spec := &Spec{Observation: h.Observation, NumActions: h.NumActions, PolicyPlanes: h.PolicyPlanes, OffGrid: h.OffGrid}
	params := layoutOf(spec, h.Net)
	want := make([]TensorInfo, 0, len(h.Tensors))
	for _, p := range params {
		want = append(want, TensorInfo{Name: p.Name, Shape: p.Shape})
	}
	if h.Optimizer != nil {
		want = append(want, optimizerTensors(&Weights{Params: params})...)
	}
	if !slices.EqualFunc(want, h.Tensors, func(a, b TensorInfo) bool { return a.Name == b.Name && slices.Equal(a.Shape, b.Shape) }) {
		return errors.New("corrupt header: the tensors are not those of its net config's layout")
	}
	return nil
}

// Checkpoint is what a checkpoint file holds.
type Checkpoint struct {
	Header  Header
	Weights *Weights
	// Optimizer is the optimizer's state, or nil if the file holds none.
	Optimizer *Optimizer
	// WidenedFrom is the encoding of the file when Load widened its network to today's (an
	// earlier encoding whose observation is the first planes of today's), else 0.
	WidenedFrom int
}

// layoutHash is a CRC-32C of the map from actions to policy outputs, so that a game that
// reorders its policy cells without changing their number is still told apart.
func (s *Spec) layoutHash() uint32 {
	buf := make([]byte, 4*len(s.output))
	for i, o := range s.output {
		binary.LittleEndian.PutUint32(buf[4*i:], uint32(o))
	}
	return crc32.Checksum(buf, castagnoli)
}

// optimizerTensors are the names of the optimizer's moment tensors, after the parameters.
func optimizerTensors(w *Weights) []TensorInfo {
	var ts []TensorInfo
	for _, which := range []string{"first", "second"} {
		for _, p := range w.Params {
			if p.Trained() {
				ts = append(ts, TensorInfo{Name: "optimizer." + which + "." + p.Name, Shape: p.Shape})
			}
		}
	}
	return ts
}

// CheckpointBytes is the size of a checkpoint of cfg's net for spec, with the optimizer's
// state if optimizer: what Save would write, within a few bytes of its header's numbers.
// Nothing of the net's size is allocated.
func CheckpointBytes(spec *Spec, cfg Config, optimizer bool) int64 {
	params := layoutOf(spec, cfg)
	h := Header{Format: FormatVersion, Game: spec.Game, Observation: spec.Observation, Net: cfg}
	for _, p := range params {
		h.Tensors = append(h.Tensors, TensorInfo{Name: p.Name, Shape: p.Shape})
	}
	if optimizer {
		h.Optimizer = &OptimizerConfig{}
		h.Tensors = append(h.Tensors, optimizerTensors(&Weights{Params: params})...)
	}
	hdr, _ := json.Marshal(&h) // of plain values: it marshals
	return int64(len(magic)+8+len(hdr)) + 4*h.Values() + 4
}

// Save writes the weights (and, if opt is not nil, the optimizer's state) to path atomically,
// recording step training steps and the creation time now.
func Save(path string, w *Weights, opt *Optimizer, step int64, now time.Time) error {
	s := w.Spec
	h := Header{
		Format: FormatVersion, Game: s.Game, Rules: s.Rules, Encoding: s.Encoding, Observation: s.Observation, NumActions: s.NumActions,
		PolicyPlanes: s.PolicyPlanes, OffGrid: s.OffGrid, PolicyLayout: s.layoutHash(),
		Net: w.Config, Step: step, Created: now.UTC(),
	}
	for _, p := range w.Params {
		h.Tensors = append(h.Tensors, TensorInfo{Name: p.Name, Shape: p.Shape})
	}
	if opt != nil {
		if err := opt.Fits(w); err != nil {
			return err
		}
		if err := opt.Config.Validate(); err != nil {
			return fmt.Errorf("net: saving an optimizer state: %w", err)
		}
		cfg := opt.Config
		h.Optimizer, h.OptimizerStep = &cfg, opt.Step
		h.Tensors = append(h.Tensors, optimizerTensors(w)...)
	}
	tensors := saveTensors(w, opt)
	for i, x := range tensors {
		if err := finiteTensor(h.Tensors[i].Name, x); err != nil {
			return fmt.Errorf("net: not saved: %w", err)
		}
	}
	hdr, err := json.Marshal(&h)
	if err != nil {
		return err
	}
	// What no reader would read is not written (models.ReadFile's limit).
	if size := int64(len(magic)+8+len(hdr)) + 4*h.Values() + 4; size > models.MaxBytes {
		return fmt.Errorf("net: not saved: %s would be %d bytes, more than the %d a checkpoint may hold (models.MaxBytes)", path, size, models.MaxBytes)
	}
	var buf bytes.Buffer
	buf.Grow(len(magic) + 8 + len(hdr) + 4*int(h.Values()) + 4)
	buf.WriteString(magic)
	binary.Write(&buf, binary.LittleEndian, uint32(FormatVersion))
	binary.Write(&buf, binary.LittleEndian, uint32(len(hdr)))
	buf.Write(hdr)
	for _, x := range tensors {
		writeFloats(&buf, x)
	}
	binary.Write(&buf, binary.LittleEndian, crc32.Checksum(buf.Bytes(), castagnoli))
	return atomicfile.WriteBytes(path, buf.Bytes())
}

// saveTensors are the tensors a checkpoint holds, in its order: the weights, then the
// optimizer's first and second moments (optimizerTensors names them).
func saveTensors(w *Weights, opt *Optimizer) [][]float32 {
	var ts [][]float32
	for _, p := range w.Params {
		ts = append(ts, p.Data)
	}
	if opt != nil {
		ts = append(ts, opt.First...)
		ts = append(ts, opt.Second...)
	}
	return ts
}

// finiteTensor says where tensor name holds a NaN or an infinity: a network that diverged,
// which neither a checkpoint keeps nor a player loads.
func finiteTensor(name string, x []float32) error {
	for i, v := range x {
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			return nonFinite(name, v, int64(i))
		}
	}
	return nil
}

// nonFinite is the error of the value v, not finite, at index i of tensor name.
func nonFinite(name string, v float32, i int64) error {
	return fmt.Errorf("tensor %s holds %v at index %d (the network diverged)", name, v, i)
}

func writeFloats(buf *bytes.Buffer, x []float32) {
	var b [4]byte
	for _, v := range x {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		buf.Write(b[:])
	}
}

// Inspect reads and checks a checkpoint file as far as it can without its game: magic, format,
// header, size, checksum, and every value finite (a file that holds a NaN or an infinity is
// refused, as Load refuses it). It returns the header and the file's size. read reads the file
// (Reader: the caller chooses whether shipped models are found).
func Inspect(read Reader, path string) (Header, int64, error) {
	data, err := read(path)
	if err != nil {
		return Header{}, 0, err
	}
	h, body, err := parse(data)
	if err == nil {
		err = finiteBody(&h, body)
	}
	if err != nil {
		return Header{}, 0, fmt.Errorf("%s: %w", path, err)
	}
	return h, int64(len(data)), nil
}

// finiteBody says where the tensors' bytes (parse's, in the header's order) hold a NaN or an
// infinity, in decode's words.
func finiteBody(h *Header, body []byte) error {
	for _, t := range h.Tensors {
		for i := range t.size() {
			v := math.Float32frombits(binary.LittleEndian.Uint32(body[4*i:]))
			if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
				return nonFinite(t.Name, v, i)
			}
		}
		body = body[4*t.size():]
	}
	return nil
}

// parse checks data as a checkpoint and returns its header and the tensors' bytes.
func parse(data []byte) (Header, []byte, error) {
	var h Header
	const fixed = len(magic) + 8
	if len(data) < len(magic) || string(data[:len(magic)]) != magic {
		if len(data) < len(magic) && bytes.HasPrefix([]byte(magic), data) {
			return h, nil, fmt.Errorf("truncated: %d bytes", len(data))
		}
		return h, nil, errors.New("not a zero network checkpoint (bad magic)")
	}
	if len(data) < fixed {
		return h, nil, fmt.Errorf("truncated: %d bytes", len(data))
	}
	if v := binary.LittleEndian.Uint32(data[len(magic):]); v != FormatVersion {
		return h, nil, fmt.Errorf("format version %d, this program reads %d", v, FormatVersion)
	}
	n := int(binary.LittleEndian.Uint32(data[len(magic)+4:]))
	if n > maxHeader {
		return h, nil, fmt.Errorf("corrupt: header size %d", n)
	}
	if len(data) < fixed+n+4 {
		return h, nil, fmt.Errorf("truncated: %d bytes, the header alone needs %d", len(data), fixed+n+4)
	}
	sum := binary.LittleEndian.Uint32(data[len(data)-4:])
	sumOK := crc32.Checksum(data[:len(data)-4], castagnoli) == sum
	// Strict: a field this program does not know would be silently dropped, and the file meant
	// something else than what it would load.
	dec := json.NewDecoder(bytes.NewReader(data[fixed : fixed+n]))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		if !sumOK {
			return h, nil, errors.New("corrupt: checksum mismatch (the header does not parse)")
		}
		return h, nil, fmt.Errorf("corrupt header: %w", err)
	}
	if rest := bytes.TrimSpace(data[fixed+int(dec.InputOffset()) : fixed+n]); len(rest) > 0 {
		return h, nil, fmt.Errorf("corrupt header: %d bytes after its JSON", len(rest))
	}
	if err := h.checkShapes(); err != nil {
		if !sumOK {
			return h, nil, errors.New("corrupt: checksum mismatch")
		}
		return h, nil, err
	}
	want := int64(fixed+n) + 4*h.Values() + 4
	switch {
	case int64(len(data)) < want:
		return h, nil, fmt.Errorf("truncated: %d bytes, the header says %d", len(data), want)
	case int64(len(data)) > want:
		return h, nil, fmt.Errorf("corrupt: %d bytes, the header says %d", len(data), want)
	case !sumOK:
		return h, nil, errors.New("corrupt: checksum mismatch")
	}
	if err := h.checkLayout(); err != nil {
		return h, nil, err
	}
	return h, data[fixed+n : len(data)-4], nil
}

// A Reader reads a checkpoint file's bytes: models.ReadDisk, the file on the disk only (a
// run's own checkpoints), or models.ReadFile, which also finds the models shipped in the binary
// under models/NAME (player specs, zero net info, an init checkpoint). Which is the caller's
// choice: net's loaders take one.
type Reader func(path string) ([]byte, error)

// Load reads a checkpoint for the game spec, its bytes by read. It refuses a file that is
// truncated, corrupt, of another format, of another game or encoding, or of another shape, with
// an error that says which.
func Load(read Reader, path string, spec *Spec) (*Checkpoint, error) {
	return load(read, path, spec, false)
}

// LoadTransfer reads a checkpoint to start spec's network from, as Load does, except that it
// may be of another game whose network has the same shape: another variant of the same
// board (yinsh-blitz weights for yinsh, whose observations and policy outputs are the same),
// or of another version of the game's rules.
func LoadTransfer(read Reader, path string, spec *Spec) (*Checkpoint, error) {
	return load(read, path, spec, true)
}

func load(read Reader, path string, spec *Spec, anyGame bool) (*Checkpoint, error) {
	data, err := read(path)
	if err != nil {
		return nil, pathFirst(path, err)
	}
	c, err := decode(data, spec, anyGame)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// decode reads a checkpoint for spec; anyGame accepts one of another game of the same shape.
func decode(data []byte, spec *Spec, anyGame bool) (*Checkpoint, error) {
	h, body, err := parse(data)
	if err != nil {
		return nil, err
	}
	if h.Game != spec.Game && !anyGame {
		return nil, fmt.Errorf("wrong game: the checkpoint is for %q, not %q", h.Game, spec.Game)
	}
	h.Normalize()
	// A net of another encoding would read observations and policy outputs that mean something
	// else; as a start for training (anyGame) its weights are still of use. A net of another
	// revision of the rules reads the same encoding: it plays. A net of an earlier encoding
	// whose observation is the first planes of today's (env.EarlierEncodings) is widened to
	// today's: the planes appended since get zero weights, so it computes what it did.
	enc := max(spec.Encoding, 1)
	base := spec
	planes, widen := 0, false
	if h.Encoding != enc && h.Game == spec.Game {
		planes, widen = spec.earlierPlanes(h.Encoding)
		if widen {
			if h.Observation.Planes != planes {
				return nil, fmt.Errorf("wrong shape: the checkpoint of encoding %d has %d observation planes; %s's encoding %d reads %d", h.Encoding, h.Observation.Planes, h.Game, h.Encoding, planes)
			}
			b := *spec
			b.Observation.Planes, b.Encoding = planes, h.Encoding
			base = &b
		}
	}
	if h.Encoding != enc && !anyGame && !widen {
		return nil, fmt.Errorf("wrong encoding: the checkpoint reads version %d of %s's observation and actions, this program writes version %d", h.Encoding, h.Game, enc)
	}
	saved := &Spec{Observation: h.Observation, NumActions: h.NumActions, PolicyPlanes: h.PolicyPlanes, OffGrid: h.OffGrid}
	if err := base.sameShape(saved); err != nil {
		return nil, fmt.Errorf("wrong shape: the checkpoint has %w", err)
	}
	if h.PolicyLayout != spec.layoutHash() {
		return nil, errors.New("wrong shape: the game maps its actions to other policy outputs than the checkpoint's")
	}
	// parse checked the net and optimizer configs, and the tensors against their layout for
	// the saved shape, which sameShape found equal to spec's: w's tensors are the file's.
	w, err := NewWeights(base, h.Net, nil)
	if err != nil {
		return nil, err
	}
	var opt *Optimizer
	if h.Optimizer != nil {
		opt = NewOptimizer(w)
		opt.Config, opt.Step = *h.Optimizer, h.OptimizerStep
	}
	dst := make([][]float32, 0, len(h.Tensors))
	for _, p := range w.Params {
		dst = append(dst, p.Data)
	}
	if opt != nil {
		dst = append(dst, opt.First...)
		dst = append(dst, opt.Second...)
	}
	for k, x := range dst {
		for i := range x {
			x[i] = math.Float32frombits(binary.LittleEndian.Uint32(body))
			body = body[4:]
		}
		if err := finiteTensor(h.Tensors[k].Name, x); err != nil {
			return nil, err
		}
	}
	c := &Checkpoint{Header: h, Weights: w, Optimizer: opt}
	if widen {
		if err := c.widen(spec); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// widen makes c's network, of an earlier encoding whose observation is the first planes of
// spec's, a network of spec's encoding that computes the same: the stem's weights over the
// planes appended since are zero (so are the optimizer's moments there). The header then says
// the new encoding and shape, and WidenedFrom the encoding of the file.
func (c *Checkpoint) widen(spec *Spec) error {
	w, err := NewWeights(spec, c.Weights.Config, nil)
	if err != nil {
		return err
	}
	old := c.Weights
	if len(w.Params) != len(old.Params) {
		return fmt.Errorf("net: widening: %d tensors, the file has %d", len(w.Params), len(old.Params))
	}
	from, to := old.Spec.Observation.Planes, spec.Observation.Planes
	// copyParam copies src into dst, which has the same shape or, for a tensor over the
	// observation's planes (its second dimension), more planes.
	copyParam := func(name string, dst, src []float32, dshape, sshape []int) error {
		if len(dst) == len(src) {
			copy(dst, src)
			return nil
		}
		if len(dshape) != 4 || len(sshape) != 4 || dshape[0] != sshape[0] || dshape[1] != to || sshape[1] != from || dshape[2] != sshape[2] || dshape[3] != sshape[3] {
			return fmt.Errorf("net: widening: tensor %s of shape %v cannot become %v", name, sshape, dshape)
		}
		k := dshape[2] * dshape[3]
		for o := range dshape[0] {
			copy(dst[o*to*k:o*to*k+from*k], src[o*from*k:(o+1)*from*k])
		}
		return nil
	}
	for i, p := range w.Params {
		q := old.Params[i]
		if p.Name != q.Name {
			return fmt.Errorf("net: widening: tensor %d is %s, the file's %s", i, p.Name, q.Name)
		}
		if err := copyParam(p.Name, p.Data, q.Data, p.Shape, q.Shape); err != nil {
			return err
		}
	}
	if c.Optimizer != nil {
		opt := NewOptimizer(w)
		opt.Config, opt.Step = c.Optimizer.Config, c.Optimizer.Step
		k := 0
		for i, p := range w.Params {
			if !p.Trained() {
				continue
			}
			q := old.Params[i]
			if err := copyParam(p.Name, opt.First[k], c.Optimizer.First[k], p.Shape, q.Shape); err != nil {
				return err
			}
			if len(opt.Second) > 0 && len(c.Optimizer.Second) > 0 {
				if err := copyParam(p.Name, opt.Second[k], c.Optimizer.Second[k], p.Shape, q.Shape); err != nil {
					return err
				}
			}
			k++
		}
		c.Optimizer = opt
	}
	c.WidenedFrom = c.Header.Encoding
	c.Weights = w
	c.Header.Encoding, c.Header.Observation = spec.Encoding, spec.Observation
	return nil
}

// LoadEngine loads the checkpoint at path for spec (see Load) and returns an inference engine
// running its network: what a player of the checkpoint needs.
func LoadEngine(read Reader, path string, spec *Spec) (*Engine, error) {
	c, err := Load(read, path, spec)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %w", err) // Load's errors start with the path
	}
	return NewEngine(NewModel(c.Weights)), nil
}

// pathFirst words a file error as PATH: REASON, as the loader's own errors are: an error of
// the operating system about path ("stat PATH: no such file or directory") loses its
// operation's name.
func pathFirst(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == path {
		return fmt.Errorf("%s: %w", path, pe.Err)
	}
	return err
}

// Normalize fills in the versions a file from an earlier build does not record: before the
// encoding was recorded apart, "rules" numbered both; before that, every game was version 1.
func (h *Header) Normalize() {
	h.Rules = max(h.Rules, 1)
	if h.Encoding == 0 {
		h.Encoding = h.Rules
	}
}
