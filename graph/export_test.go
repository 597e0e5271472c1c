package graph

import "time"

// SetRankGap sets the pacing of background rank computations (tests).
func SetRankGap(a *Analyzer, gap func(took time.Duration) time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.rankGap = gap
}

// RankedEdges is the number of edge entries the Analyzer's ranked
// version holds (tests: it keeps the nodes, not the edges).
func RankedEdges(a *Analyzer) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.ranked == nil {
		return -1
	}
	return len(a.ranked.g.Adj) + len(a.ranked.g.W)
}
