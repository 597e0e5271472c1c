//go:build !race

package search_test

// raceStride: every seeded query is checked without the race detector
// (see race_test.go).
const raceStride = 1
