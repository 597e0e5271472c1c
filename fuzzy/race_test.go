//go:build race

package fuzzy

// raceShort makes the pruning-exactness tests check their short sizes under
// the race detector, which makes them about ten times slower; .ci/run runs
// them in full without it.
const raceShort = true
