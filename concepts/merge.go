package concepts

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/indexer"
	"github.com/noema-mem/noema/vault"
)

// DefaultMinSimilarity is merge_concepts' similarity floor when none is given.
const DefaultMinSimilarity = 0.7

// MergeInput merges duplicate concepts into one.
type MergeInput struct {
	Sources []string `json:"sources" jsonschema:"the duplicates to merge away: ids, labels or aliases" cli:"arg=SOURCE"`
	Target  string   `json:"target" jsonschema:"the concept that survives: id, label or alias" cli:"name=into"`
	// DryRun defaults to true: nothing changes unless asked.
	DryRun        *bool   `json:"dry_run,omitempty" jsonschema:"show every change and make none (default true); false applies the merge" default:"true" cli:"invert=apply"`
	MinSimilarity float64 `json:"min_similarity,omitempty" jsonschema:"refuse a source whose embedding similarity to the target is below this (default 0.7), unless force" default:"0.7" minimum:"0" maximum:"1"`
	Force         bool    `json:"force,omitempty" jsonschema:"merge even below min_similarity (default false)" default:"false"`
}

// ConceptName is a concept by id and label.
type ConceptName struct {
	ID    string `json:"id"`
	Label string `json:"label"`
}

// FileChange is one changed line of a file.
type FileChange struct {
	URI string `json:"uri"`
	vault.LineChange
}

// SourceSimilarity is a source's embedding similarity to the target.
type SourceSimilarity struct {
	ConceptName
	Similarity float64 `json:"similarity"`
}

// MergeResult is what a merge changed, or would change.
type MergeResult struct {
	DryRun  bool          `json:"dry_run"`
	Target  ConceptName   `json:"target"`
	Sources []ConceptName `json:"sources"`
	// Changes are the lines whose links or relations change.
	Changes        []FileChange `json:"changes"`
	AliasesAdded   []string     `json:"aliases_added"`
	RelationsMoved int          `json:"relations_moved"`
	PagesDeleted   []string     `json:"pages_deleted"`
	// Similarities are the sources' embedding similarities to the
	// target, by Embedder.
	Similarities []SourceSimilarity `json:"similarities"`
	Embedder     string             `json:"embedder,omitempty"`
	// Message says what happened in a sentence ("already merged", …).
	Message string `json:"message"`
}

// Similarity returns the embedding similarity of two concepts and the
// name of the embedder that measured it.
type Similarity func(ctx context.Context, a, b *noema.Concept) (float64, string, error)

// Merge merges the source concepts into the target:
//
//   - every link to a source, under any of its names, in every note
//     (outside code) becomes a link to the target, the text reading the
//     same: [[src|shown]] → [[Target|shown]], [[src#H]] → [[Target#H]], a
//     bare [[src]] → [[Target|src]], embeds included;
//   - each source's label and aliases become aliases of the target, so old
//     spellings keep resolving and the duplicate cannot come back;
//   - relations move to the target: those a source's page declares move
//     to the target's page, those pointing at a source point at the
//     target; duplicates collapse, and a relation between the two becomes
//     none;
//   - metadata merges key by key (a different value stops everything with
//     metadata_conflict, naming the key);
//   - source pages go (a page that is an ordinary note only loses its
//     concept keys).
//
// It refuses a source whose embedding similarity to the target is below
// MinSimilarity unless Force. With DryRun (the default) it only reports.
// All files change through one changeset: all or none, across crashes.
// Merging again after success is a no-op that says so.
func (s *Service) Merge(ctx context.Context, in MergeInput) (*MergeResult, error) {
	return vault.LockedValue(ctx, s.Vault, func(ctx context.Context) (*MergeResult, error) { return s.merge(ctx, in) })
}

func (s *Service) merge(ctx context.Context, in MergeInput) (*MergeResult, error) {
	dryRun := in.DryRun == nil || *in.DryRun
	if strings.TrimSpace(in.Target) == "" {
		return nil, noema.Errorf(noema.EINVALID, "target is required").WithParam("target")
	}
	if len(in.Sources) == 0 {
		return nil, noema.Errorf(noema.EINVALID, "sources must name at least one concept").WithParam("sources")
	}
	target, err := s.Get(ctx, in.Target)
	if err != nil {
		return nil, err
	}
	res := &MergeResult{DryRun: dryRun, Target: ConceptName{target.ID, target.Label}, Sources: []ConceptName{},
		Changes: []FileChange{}, AliasesAdded: []string{}, PagesDeleted: []string{}, Similarities: []SourceSimilarity{}}
	var sources []*noema.Concept
	var merged []string
	for _, ref := range in.Sources {
		c, err := s.Get(ctx, ref)
		if err != nil {
			return nil, err
		}
		if c.ID == target.ID {
			merged = append(merged, ref) // one of the target's names already
			continue
		}
		if !slices.ContainsFunc(sources, func(x *noema.Concept) bool { return x.ID == c.ID }) {
			sources = append(sources, c)
			res.Sources = append(res.Sources, ConceptName{c.ID, c.Label})
		}
	}
	if len(sources) == 0 {
		res.Message = fmt.Sprintf("nothing to merge: %s already name %q", strings.Join(quoted(merged), ", "), target.Label)
		return res, nil
	}

	// Refuse what does not look like the same thing.
	min := in.MinSimilarity
	if min == 0 && !in.Force {
		min = DefaultMinSimilarity
	}
	if s.Similarity != nil {
		var low []string
		for _, c := range sources {
			sim, embedder, err := s.Similarity(ctx, c, target)
			if err != nil {
				return nil, fmt.Errorf("similarity of %q to %q: %w", c.Label, target.Label, err)
			}
			res.Embedder = embedder
			res.Similarities = append(res.Similarities, SourceSimilarity{ConceptName{c.ID, c.Label}, sim})
			if sim < min {
				low = append(low, fmt.Sprintf("%q (%.3f)", c.Label, sim))
			}
		}
		if len(low) > 0 && !in.Force {
			return nil, &noema.Error{Code: noema.EINVALID, Param: "force",
				Message: fmt.Sprintf("%s: similarity to %q below %.2f with the embedder %s; pass force=true if they are the same concept",
					strings.Join(low, ", "), target.Label, min, res.Embedder),
				Details: map[string]any{"similarities": res.Similarities, "embedder": res.Embedder}}
		}
	}

	// The target's page, with every name, the metadata and the relations.
	p := pageState{id: target.ID, label: target.Label, aliases: slices.Clone(target.Aliases), description: target.Description, metadata: target.Metadata}
	keys := map[string]bool{}        // the sources' keys: links to rewrite
	refs := []string{}               // the sources as relation targets
	sourcePages := map[string]bool{} // pages of sources, by path
	for _, c := range sources {
		for _, name := range append([]string{c.Label}, c.Aliases...) {
			keys[vault.Key(name)] = true
			if !slices.ContainsFunc(p.aliases, func(a string) bool { return vault.Key(a) == vault.Key(name) }) && vault.Key(name) != target.Key {
				p.aliases = append(p.aliases, name)
				res.AliasesAdded = append(res.AliasesAdded, name)
			}
		}
		refs = append(refs, "concept:"+c.Key)
		for _, a := range c.Aliases {
			refs = append(refs, "concept:"+vault.Key(a))
		}
		if p.metadata, err = MergeMetadata(p.metadata, c.Metadata, nil, false); err != nil {
			return nil, err
		}
		if p.description == "" {
			p.description = c.Description
		}
		if c.Page != "" {
			sourcePages[strings.TrimPrefix(c.Page, noema.URIScheme)+".md"] = true
		}
	}
	targetRef := "concept:" + target.Key
	isSourceRef := func(to string) bool { return slices.Contains(refs, vault.RelationRef(to)) }

	ed := newEdits(s.Vault)
	// Links in notes.
	var linking []string
	for _, c := range sources {
		paths, err := s.DB.NotesLinking(ctx, c.ID)
		if err != nil {
			return nil, err
		}
		linking = append(linking, paths...)
	}
	slices.Sort(linking)
	for _, rel := range slices.Compact(linking) {
		content, n, err := ed.currentNote(rel)
		if err != nil {
			return nil, err
		}
		out, changes := vault.RewriteLinks(content, n.Links, func(l noema.Link) (string, bool) {
			if !keys[l.Key] {
				return "", false
			}
			return retarget(content, l, target.Label), true
		})
		ed.set(rel, out, changes)
	}

	// Relations declared by other files that point at a source.
	declaring, err := s.DB.FilesRelatingTo(ctx, refs)
	if err != nil {
		return nil, err
	}
	targetPage := strings.TrimPrefix(target.Page, noema.URIScheme)
	if targetPage != "" {
		targetPage += ".md"
	}
	for _, rel := range declaring {
		if sourcePages[rel] || rel == targetPage {
			continue // moved or dropped with the pages below
		}
		err := ed.editFrontMatter(rel, func(fm *vault.FrontMatter) error {
			rels, err := fm.Relations()
			if err != nil {
				return err
			}
			for _, r := range rels {
				if !isSourceRef(r.To) {
					continue
				}
				fm.RemoveRelation(r.Type, vault.RelationRef(r.To))
				if !hasRelation(fm, r.Type, targetRef) {
					if err := fm.AddRelation(r.Type, vault.LinkTo(target.Label), "", r.Weight, r.Metadata); err != nil {
						return err
					}
				}
				res.RelationsMoved++
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}

	// The sources' own relations move to the target's page.
	var moved []vault.RawRelation
	for rel := range sourcePages {
		content, err := ed.current(rel)
		if err != nil {
			return nil, err
		}
		fmSrc, _, _, _ := vault.SplitFrontMatter(content)
		fm, err := vault.ParseFrontMatter(fmSrc)
		if err != nil {
			return nil, err
		}
		rels, err := fm.Relations()
		if err != nil {
			return nil, err
		}
		moved = append(moved, rels...)
	}
	slices.SortStableFunc(moved, func(a, b vault.RawRelation) int { return strings.Compare(a.Type+a.To, b.Type+b.To) })
	pageEdit := func(fm *vault.FrontMatter) error {
		rels, err := fm.Relations()
		if err != nil {
			return err
		}
		// The target's own relations to a source become none (a concept
		// does not relate to itself by merging).
		for _, r := range rels {
			if isSourceRef(r.To) {
				fm.RemoveRelation(r.Type, vault.RelationRef(r.To))
			}
		}
		for _, r := range moved {
			ref := vault.RelationRef(r.To)
			if isSourceRef(r.To) || ref == targetRef || hasRelation(fm, r.Type, ref) {
				continue
			}
			link := vault.LinkTo(r.To)
			if p, ok := strings.CutPrefix(ref, "note:"); ok {
				link = vault.LinkTo(p)
			}
			if err := fm.AddRelation(r.Type, link, "", r.Weight, r.Metadata); err != nil {
				return err
			}
			res.RelationsMoved++
		}
		return nil
	}
	if targetPage == "" {
		rel, existing, err := s.newPagePath(target.Label, target.ID)
		if err != nil {
			return nil, err
		}
		if existing {
			targetPage = rel
		} else {
			content, err := s.renderPage(nil, p, pageEdit)
			if err != nil {
				return nil, err
			}
			ed.create(rel, content)
		}
	}
	if targetPage != "" {
		old, err := ed.current(targetPage)
		if err != nil {
			return nil, err
		}
		content, err := s.renderPage(old, p, pageEdit)
		if err != nil {
			return nil, err
		}
		ed.set(targetPage, content, nil)
	}

	// Source pages go; a page that is an ordinary note keeps its text.
	for rel := range sourcePages {
		if strings.HasPrefix(rel, indexer.ConceptsDir) {
			ed.remove(rel)
			res.PagesDeleted = append(res.PagesDeleted, vault.PathToURI(rel))
			continue
		}
		err := ed.editFrontMatter(rel, func(fm *vault.FrontMatter) error {
			fm.Delete("concept")
			fm.Delete("id")
			rels, err := fm.Relations()
			if err != nil {
				return err
			}
			for _, r := range rels {
				fm.RemoveRelation(r.Type, vault.RelationRef(r.To))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.Sort(res.PagesDeleted)
	res.Changes = ed.lineChanges()
	names := make([]string, len(sources))
	for i, c := range sources {
		names[i] = fmt.Sprintf("%q", c.Label)
	}
	verb := "would merge"
	if !dryRun {
		verb = "merged"
	}
	res.Message = fmt.Sprintf("%s %s into %q: %d lines of links and relations, %d aliases added, %d relations moved, %d pages deleted",
		verb, strings.Join(names, ", "), target.Label, len(res.Changes), len(res.AliasesAdded), res.RelationsMoved, len(res.PagesDeleted))
	if dryRun {
		return res, nil
	}
	if err := s.apply(ctx, ed); err != nil {
		return nil, err
	}
	return res, nil
}

// apply writes a plan as one changeset (all files or none, across crashes)
// and indexes what changed. The caller holds the vault's write lock.
func (s *Service) apply(ctx context.Context, ed *edits) error {
	if err := s.Vault.Apply(ctx, ed.changeset()); err != nil {
		return err
	}
	if paths := ed.paths(); len(paths) > 0 {
		if _, err := s.Indexer.SyncPaths(ctx, paths, ""); err != nil {
			return err
		}
	}
	return nil
}

// retarget is the new target text of link l (in content) to label: the
// text of the link reads the same.
func retarget(content []byte, l noema.Link, label string) string {
	if l.Display != "" || l.Heading != "" || l.Embed {
		return label // [[src|shown]], [[src#H]], ![[src]]
	}
	inner := string(content[l.Offset+2 : l.End-2])
	if strings.TrimSpace(inner) == label {
		return label
	}
	return label + "|" + strings.TrimSpace(inner)
}

// hasRelation reports whether fm declares a relation of type typ to ref.
func hasRelation(fm *vault.FrontMatter, typ, ref string) bool {
	rels, _ := fm.Relations()
	return slices.ContainsFunc(rels, func(r vault.RawRelation) bool { return r.Type == typ && vault.RelationRef(r.To) == ref })
}

func quoted(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = fmt.Sprintf("%q", s)
	}
	return out
}
