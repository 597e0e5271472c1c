//go:build race

package search_test

// raceStride is how many of the exactness tests' seeded queries stand for
// one under the race detector: those tests compare two SQL formulations of
// one ranking in a single goroutine, the race detector multiplies the SQLite
// driver's cost about fortyfold, and their full runs would take most of the
// package's ten minutes. .ci/run runs them in full without it.
const raceStride = 4
