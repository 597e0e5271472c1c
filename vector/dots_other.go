//go:build !amd64 || purego

package vector

// dots sets out[i] to the dot product of q with row i of rows (rows holds
// len(out) rows of len(q) values each).
func dots(q, rows, out []float32) { dotsGo(q, rows, out) }
