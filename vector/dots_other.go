//go:build !amd64 || purego

package vector

// dots sets out[i] to the dot product of q with row i of rows (rows holds
// len(out) rows of len(q) values each).
func dots(q, rows, out []float32) { dotsGo(q, rows, out) }

// quantizable is false without the amd64 kernel: the int8 pass would cost
// more than it saves in Go.
func quantizable(int) bool { return false }

// dot1 is [Dot].
func dot1(q, row []float32) float32 { return Dot(q, row) }

// dotsI8 is dotsI8Go.
func dotsI8(q []int16, rows []int8, out []int32) { dotsI8Go(q, rows, out) }
