package search

import (
	"context"
	"sort"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/vault"
)

// conceptCandidates answers a `[[X]]` query: the notes f admits that link
// the concept X names (by its label or an alias) or are its page, freshest
// first (by decay's reference time: the later of modification and last
// read), then by path. found is false when no concept has X's key.
func (s *Service) conceptCandidates(ctx context.Context, name string, f noema.SearchFilter) (cands []*candidate, found bool, err error) {
	key := vault.Key(name)
	if key == "" {
		return nil, false, nil
	}
	c, ok, err := s.DB.SearchConcept(ctx, key)
	if err != nil || !ok {
		return nil, false, err
	}
	notes, err := s.DB.SearchConceptNotes(ctx, c.ID, f)
	if err != nil {
		return nil, false, err
	}
	sort.Slice(notes, func(i, j int) bool {
		ri := decay.Reference(notes[i].Modified, notes[i].Accessed)
		rj := decay.Reference(notes[j].Modified, notes[j].Accessed)
		if !ri.Equal(rj) {
			return ri.After(rj)
		}
		return notes[i].Path < notes[j].Path
	})
	keys := map[string]bool{}
	for _, k := range c.Keys {
		keys[k] = true
	}
	for i, n := range notes {
		// order keeps freshest first among equal scores.
		cands = append(cands, &candidate{id: n.ID, note: n, base: 1, linkKeys: keys, order: i + 1})
	}
	return cands, true, nil
}
