package dnnl

// Shape is a network's architecture as zd_new takes it (zd_shape in zdnnl.h): the game's
// observation and actions, the tower and heads (net.Config), and how to build it.
type Shape struct {
	Planes, Height, Width int // the observation
	Channels, Blocks      int // the residual tower
	PolicyChannels        int
	PolicyPlanes          int // spatial policy head: planes over the grid; 0: a dense head
	OffGrid               int // spatial heads: actions off the grid
	Actions               int // the game's action space (the dense head's outputs)
	ValueChannels         int
	ValueHidden           int
	GlobalPool            bool // the value head reads each plane's mean and max
	BF16                  bool // activations and weights in bfloat16 (outputs stay float32)
	Winograd              bool // 3×3 convolutions by Winograd's algorithm where oneDNN has it
	Chunk                 int  // the most positions run through the net at once
}
