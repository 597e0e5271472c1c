//go:build race

package app_test

// raceEnabled: the race detector slows the pure-Go SQLite tenfold, so
// TestLinksSurviveEdits runs fewer operations by default.
const raceEnabled = true
