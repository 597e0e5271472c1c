package concepts

import (
	"cmp"
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// Thresholds of the near-duplicate check on writes.
const (
	// NearSpelling is the find_concepts score from which an existing
	// concept is reported as a near-duplicate of a new one.
	NearSpelling = 85
	// NearMeaning is the embedding similarity from which it is.
	NearMeaning = 0.85
	// maxNear is how many near-duplicates a new concept lists.
	maxNear = 3
)

// Meaning returns up to k existing concepts closest in meaning to text with
// their similarity; nil when no embedder is ready.
type Meaning func(ctx context.Context, text string, k int) ([]noema.NearDuplicate, error)

// LinkedBy returns the ids of the concepts the note at path links now; an
// empty set when there is no such note.
func (s *Service) LinkedBy(ctx context.Context, path string) (map[string]bool, error) {
	ids := map[string]bool{}
	if path == "" {
		return ids, nil
	}
	linked, err := s.DB.NoteConcepts(ctx, path)
	if err != nil {
		return nil, err
	}
	for _, c := range linked {
		ids[c.ID] = true
	}
	return ids, nil
}

// Feedback reports the concepts the note at path links after a write, given
// those it linked before (LinkedBy). For each concept the write created it
// lists up to three existing concepts that may mean the same: a
// find_concepts score of at least NearSpelling, or, when meaning is not
// nil, an embedding similarity of at least NearMeaning; and a warning naming
// them. It never fails a write that already happened: what it cannot check
// becomes a warning.
func (s *Service) Feedback(ctx context.Context, path string, before map[string]bool, meaning Meaning) ([]noema.LinkedConcept, []string) {
	linked, err := s.DB.NoteConcepts(ctx, path)
	if err != nil {
		return []noema.LinkedConcept{}, []string{"could not list the note's concepts: " + noema.ErrorMessage(err)}
	}
	out := make([]noema.LinkedConcept, 0, len(linked))
	var warnings []string
	superseded := s.supersededNames(path)
	for _, c := range linked {
		lc := noema.LinkedConcept{ID: c.ID, Label: c.Label, New: !before[c.ID] && !c.HasPage && c.Notes == 1}
		if lc.New {
			near, warn := s.nearDuplicates(ctx, c.ID, c.Label, meaning, superseded)
			lc.NearDuplicates = near
			if warn != "" {
				warnings = append(warnings, warn)
			}
			if len(near) > 0 {
				names := make([]string, len(near))
				for i, n := range near {
					names[i] = fmt.Sprintf("%q", n.Label)
				}
				warnings = append(warnings, fmt.Sprintf("new concept %q is close to existing %s: if it is the same, link the existing spelling (or add an alias with update_concept)",
					c.Label, strings.Join(names, ", ")))
			}
		}
		out = append(out, lc)
	}
	return out, append(warnings, s.ignoredLinks(path)...)
}

// ignoredLinks warns about the links of the note at path that the
// concepts.ignore list keeps from becoming concepts.
func (s *Service) ignoredLinks(path string) []string {
	if s.Ignore == nil || path == "" {
		return nil
	}
	n, _, _, err := s.Vault.ReadNote(path)
	if err != nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, l := range n.Links {
		if p, ok := s.Ignore.Match(l.Target); ok && !seen[l.Target] {
			seen[l.Target] = true
			out = append(out, fmt.Sprintf("[[%s]] matches concepts.ignore pattern %q: the link stays in the text but is not a concept", l.Target, p))
		}
	}
	return out
}

// supersededNames returns the keys of the names of the notes the note at
// rel supersedes (front matter `supersedes`: their titles, or the names
// they are given by): a concept named so is the superseded note's, and the
// write that replaces it is expected to be close to it (docs/time.md).
func (s *Service) supersededNames(rel string) map[string]bool {
	if rel == "" {
		return nil
	}
	n, _, _, err := s.Vault.ReadNote(rel)
	if err != nil {
		return nil
	}
	var keys map[string]bool
	for _, t := range n.FrontMatter.Supersedes() {
		if keys == nil {
			keys = map[string]bool{}
		}
		ref := vault.RelationRef(t)
		if p, ok := strings.CutPrefix(ref, "note:"); ok {
			if old, _, _, err := s.Vault.ReadNote(p); err == nil {
				keys[vault.Key(old.Title)] = true
			}
			keys[vault.Key(strings.TrimSuffix(path.Base(p), ".md"))] = true
			continue
		}
		keys[strings.TrimPrefix(ref, "concept:")] = true
	}
	return keys
}

// nearDuplicates finds existing concepts close to a new one (id, label),
// leaving out those whose label has a key in skip (the names of the notes
// the write supersedes).
func (s *Service) nearDuplicates(ctx context.Context, id, label string, meaning Meaning, skip map[string]bool) ([]noema.NearDuplicate, string) {
	var near []noema.NearDuplicate
	index := map[string]int{}
	add := func(n noema.NearDuplicate) {
		if n.ID == id || skip[vault.Key(n.Label)] {
			return
		}
		if i, ok := index[n.ID]; ok {
			near[i].Spelling = max(near[i].Spelling, n.Spelling)
			near[i].Meaning = max(near[i].Meaning, n.Meaning)
			return
		}
		index[n.ID] = len(near)
		near = append(near, n)
	}
	found, err := s.Find(ctx, FindInput{Query: label, Limit: maxNear + 1, MinScore: NearSpelling})
	if err != nil {
		return nil, fmt.Sprintf("could not check %q for near-duplicates: %s", label, noema.ErrorMessage(err))
	}
	for _, c := range found.Candidates {
		add(noema.NearDuplicate{ID: c.ID, Label: c.Label, Spelling: c.Score})
	}
	var warn string
	if meaning != nil {
		similar, err := meaning(ctx, label, maxNear+1)
		if err != nil {
			warn = fmt.Sprintf("could not check %q for near-duplicates in meaning: %s", label, noema.ErrorMessage(err))
		}
		for _, n := range similar {
			if n.Meaning >= NearMeaning {
				add(n)
			}
		}
	}
	// Strongest first: spelling and meaning on one 0-1 scale.
	strength := func(n noema.NearDuplicate) float64 { return max(n.Spelling/100, n.Meaning) }
	slices.SortStableFunc(near, func(a, b noema.NearDuplicate) int { return cmp.Compare(strength(b), strength(a)) })
	if len(near) > maxNear {
		near = near[:maxNear]
	}
	return near, warn
}
