package concepts

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// A person's "not a duplicate": a concept's metadata key
// [noema.DistinctFromKey] names concepts it is not a duplicate of (the web
// view's review writes it; update_concept's metadata can too). Such a pair
// is do_not_merge with the reason marked_distinct in analyze_duplicates
// whatever its spelling says, and merge_concepts does not take it as a
// duplicate (it needs force). A mark on either concept counts; a name
// matches any name of the other concept (its label or an alias), by its
// vault key, so a mark survives the other concept being renamed with its
// old label kept as an alias.

// markedDistinctReason is the do_not_merge reason of a marked pair.
const markedDistinctReason = "marked_distinct: marked as not a duplicate (" + noema.DistinctFromKey + " in a concept's metadata)"

// distinctNames returns the names a distinct_from value holds: a name or
// a list of names.
func distinctNames(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []string:
		return v
	case []any:
		var names []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				names = append(names, s)
			}
		}
		return names
	}
	return nil
}

// distinctKeys returns the vault keys of the names a distinct_from value
// holds (nil when it holds none).
func distinctKeys(v any) map[string]bool {
	var keys map[string]bool
	for _, n := range distinctNames(v) {
		if k := vault.Key(n); k != "" {
			if keys == nil {
				keys = map[string]bool{}
			}
			keys[k] = true
		}
	}
	return keys
}

// markedDistinct reports whether a person marked a and b as two things.
func markedDistinct(a, b *dupConcept) bool {
	return namesMarked(a.distinct, b) || namesMarked(b.distinct, a)
}

// namesMarked reports whether any name of c is among keys.
func namesMarked(keys map[string]bool, c *dupConcept) bool {
	return keysHoldName(keys, c.label) || slices.ContainsFunc(c.names, func(n nameInfo) bool { return keys[n.key] })
}

// keysHoldName reports whether keys holds the key of one of names.
func keysHoldName(keys map[string]bool, names ...string) bool {
	return len(keys) > 0 && slices.ContainsFunc(names, func(n string) bool { return keys[vault.Key(n)] })
}

// loadDistinctMarks gives the concepts of the index their marks (an index
// without marks leaves them unmarked); con finds a concept by id (nil: not
// among those judged).
func loadDistinctMarks(ctx context.Context, idx noema.ConceptIndex, con func(id string) *dupConcept) error {
	di, ok := idx.(noema.DistinctMarkIndex)
	if !ok {
		return nil
	}
	return di.DistinctMarks(ctx, func(id, value string) {
		c := con(id)
		if c == nil {
			return
		}
		var v any
		if json.Unmarshal([]byte(value), &v) == nil {
			c.distinct = distinctKeys(v)
		}
	})
}

// markedSources returns the labels of the sources a person marked as not
// duplicates of target (a mark on either side).
func markedSources(target *noema.Concept, sources []*noema.Concept) []string {
	var out []string
	for _, c := range sources {
		if conceptMarks(target, c) || conceptMarks(c, target) {
			out = append(out, fmt.Sprintf("%q", c.Label))
		}
	}
	return out
}

// conceptMarks reports whether a's distinct_from names any name of b.
func conceptMarks(a, b *noema.Concept) bool {
	return keysHoldName(distinctKeys(a.Metadata[noema.DistinctFromKey]), append([]string{b.Label}, b.Aliases...)...)
}

// addDistinct returns meta with names added to its distinct_from list (a
// name already there by its key is not added twice; a single name stored
// as a string becomes a list).
func addDistinct(meta map[string]any, names []string) map[string]any {
	out := maps.Clone(meta)
	if out == nil {
		out = map[string]any{}
	}
	var list []any
	seen := map[string]bool{}
	for _, n := range append(distinctNames(out[noema.DistinctFromKey]), names...) {
		n = strings.TrimSpace(n)
		if k := vault.Key(n); k != "" && !seen[k] {
			seen[k] = true
			list = append(list, n)
		}
	}
	out[noema.DistinctFromKey] = list
	return out
}
