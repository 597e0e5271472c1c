package graph

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
