//go:build !race

package fuzzy

// raceShort: see race_test.go.
const raceShort = false
