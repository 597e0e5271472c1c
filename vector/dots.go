package vector

// dotsGo is dots in Go: one [Dot] a row.
func dotsGo(q, rows, out []float32) {
	dim := len(q)
	for i := range out {
		out[i] = Dot(q, rows[i*dim:(i+1)*dim])
	}
}
