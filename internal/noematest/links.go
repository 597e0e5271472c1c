package noematest

import (
	"slices"
	"strings"

	"github.com/noema-mem/noema/sqlite"
)

// LinkCounts is the links of a note's index record for the link targets
// (each a concept's name, once per link): counted by key (see Key) and
// target, sorted.
func LinkCounts(links ...string) []sqlite.LinkCount {
	counts := map[[2]string]int{}
	for _, l := range links {
		counts[[2]string{Key(l), l}]++
	}
	var out []sqlite.LinkCount
	for k, c := range counts {
		out = append(out, sqlite.LinkCount{Key: k[0], Target: k[1], Count: c})
	}
	slices.SortFunc(out, func(a, b sqlite.LinkCount) int { return strings.Compare(a.Key+a.Target, b.Key+b.Target) })
	return out
}
