package gyges

// benchPosition is the Rust engine's benchmark position (its first group is the mover's start
// row), written in our notation with south to move.
const benchPosition = "202110/000330/000000/000200/000100/030123 s"
