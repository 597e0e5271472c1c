package vector

// dotsGo is dots in Go: one [Dot] a row.
func dotsGo(q, rows, out []float32) {
	dim := len(q)
	for i := range out {
		out[i] = Dot(q, rows[i*dim:(i+1)*dim])
	}
}

// dotsI8Go sets out[i] to the dot product of q with int8 row i of rows.
func dotsI8Go(q []int16, rows []int8, out []int32) {
	dim := len(q)
	for i := range out {
		var s int32
		for j, c := range rows[i*dim : (i+1)*dim] {
			s += int32(c) * int32(q[j])
		}
		out[i] = s
	}
}
