package noematest

import (
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/noema-mem/noema/sqlite"
)

// NoteRecord is the index record of a note at path, titled by its file
// name, whose body is links (concept names, each a link; see LinkCounts),
// with the content hash and times given.
func NoteRecord(path, hash string, created, modified time.Time, links ...string) *sqlite.NoteRecord {
	r := &sqlite.NoteRecord{Path: path, Title: strings.TrimSuffix(filepath.Base(path), ".md"), Hash: hash,
		Created: created, Modified: modified, Body: strings.Join(links, " ")}
	r.Page.Label = r.Title
	r.Links = LinkCounts(links...)
	return r
}

// LinkCounts is the links of a note's index record for the link targets
// (each a concept's name, once per link): counted by key (see Key) and
// target, sorted.
func LinkCounts(links ...string) []sqlite.LinkCount {
	at := map[[2]string]int{}
	var out []sqlite.LinkCount
	for _, l := range links {
		k := [2]string{Key(l), l}
		if i, ok := at[k]; ok {
			out[i].Count++
			continue
		}
		at[k] = len(out)
		out = append(out, sqlite.LinkCount{Key: k[0], Target: k[1], Count: 1, Pos: len(out)})
	}
	slices.SortFunc(out, func(a, b sqlite.LinkCount) int { return strings.Compare(a.Key+a.Target, b.Key+b.Target) })
	return out
}
