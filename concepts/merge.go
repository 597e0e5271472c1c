package concepts

import (
	"context"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// DefaultMinSimilarity is merge_concepts' similarity floor when none is given.
const DefaultMinSimilarity = 0.7

// MergeInput merges duplicate concepts into one.
type MergeInput struct {
	Sources []string `json:"sources" jsonschema:"the duplicates to merge away: ids, labels or aliases" cli:"arg=SOURCE"`
	Target  string   `json:"target" jsonschema:"the concept that survives: id, label or alias" cli:"name=into"`
	// DryRun defaults to true: nothing changes unless asked.
	DryRun        *bool   `json:"dry_run,omitempty" jsonschema:"show every change and make none (default true); false applies the merge" default:"true" cli:"invert=apply" negated:"apply the merge (without it, a dry run: every change shown, none made)"`
	MinSimilarity float64 `json:"min_similarity,omitempty" jsonschema:"refuse a source whose embedding similarity to the target is below this (default 0.7), unless force" default:"0.7" minimum:"0" maximum:"1"`
	Force         bool    `json:"force,omitempty" jsonschema:"merge even below min_similarity or when a concept is marked as not a duplicate of another (distinct_from; default false)" default:"false"`
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
	// Duplicate is whether analyze_duplicates' rule calls the source and
	// the target one concept (a merge verdict, directly or through
	// another source): such a source is merged whatever its similarity.
	Duplicate bool `json:"duplicate"`
}

// InboundChange is a note whose inbound links a merge changes: a source's
// page loses the links to the source, the target's page gains them.
type InboundChange struct {
	URI string `json:"uri"`
	// Role is source_page, target_page or new_target_page (created by the
	// merge).
	Role   string `json:"role"`
	Before int    `json:"before"`
	After  int    `json:"after"`
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
	// InboundLinks lists every note that gains or loses inbound links.
	InboundLinks []InboundChange `json:"inbound_links"`
	// NeedsForce is set on a dry run of a merge that force=true must
	// allow (a source below min_similarity that analyze_duplicates does
	// not call a duplicate); Warnings say why.
	NeedsForce bool     `json:"needs_force"`
	Warnings   []string `json:"warnings"`
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
	return vault.LockedValue(ctx, s.Vault, func(w *vault.Writer) (*MergeResult, error) { return s.merge(ctx, w, in) })
}

func (s *Service) merge(ctx context.Context, w *vault.Writer, in MergeInput) (*MergeResult, error) {
	dryRun := in.DryRun == nil || *in.DryRun
	m, err := s.resolveMerge(ctx, in, dryRun)
	if err != nil {
		return nil, err
	}
	if len(m.sources) == 0 {
		return m.res, nil
	}
	if err := m.checkTargetPage(); err != nil {
		return nil, err
	}
	if err := s.gateSimilarity(ctx, m, in, dryRun); err != nil {
		return nil, err
	}
	if err := s.planNames(m); err != nil {
		return nil, err
	}
	if err := s.planLinks(ctx, m); err != nil {
		return nil, err
	}
	if err := s.planInboundRelations(ctx, m); err != nil {
		return nil, err
	}
	pageEdit, err := m.targetRelations()
	if err != nil {
		return nil, err
	}
	total := m.inboundLinks()
	if err := s.planTargetPage(m, total, pageEdit); err != nil {
		return nil, err
	}
	if err := m.planSourcePages(); err != nil {
		return nil, err
	}
	m.summarise(dryRun)
	if dryRun {
		return m.res, nil
	}
	if err := s.apply(ctx, w, m.ed, "merge_concepts"); err != nil {
		return nil, err
	}
	return m.res, nil
}

// mergePlan is a merge being planned: the concepts it joins, the edits it
// makes and what every step learns for the later ones.
type mergePlan struct {
	target  *noema.Concept
	sources []*noema.Concept
	res     *MergeResult
	ed      *edits

	page        pageState         // the target's page, with every name, the metadata and the relations
	targetPage  string            // the target's page path, "" for none (yet)
	targetRef   string            // the target as a relation target
	keys        map[string]bool   // the sources' keys: links to rewrite
	keySource   map[string]string // link key -> source id
	refs        []string          // the sources as relation targets
	sourcePages map[string]bool   // pages of sources, by path
	moved       map[string]int    // links moved, by source id
}

// resolveMerge checks the input and resolves the target and the distinct
// sources. With no source left to merge, the plan's result says why.
func (s *Service) resolveMerge(ctx context.Context, in MergeInput, dryRun bool) (*mergePlan, error) {
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
	m := &mergePlan{target: target, res: &MergeResult{DryRun: dryRun, Target: ConceptName{target.ID, target.Label}, Sources: []ConceptName{},
		Changes: []FileChange{}, AliasesAdded: []string{}, PagesDeleted: []string{}, Similarities: []SourceSimilarity{},
		InboundLinks: []InboundChange{}, Warnings: []string{}}}
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
		if !slices.ContainsFunc(m.sources, func(x *noema.Concept) bool { return x.ID == c.ID }) {
			m.sources = append(m.sources, c)
			m.res.Sources = append(m.res.Sources, ConceptName{c.ID, c.Label})
		}
	}
	if len(m.sources) == 0 {
		m.res.Message = fmt.Sprintf("nothing to merge: %s already name %q", strings.Join(quoted(merged), ", "), target.Label)
	}
	return m, nil
}

// checkTargetPage refuses a merge that would point a note's links at no
// note: a note that is a source's page keeps the source's links only if
// the target's page is a note too, never an empty or concept page made for
// a name without a note.
func (m *mergePlan) checkTargetPage() error {
	m.targetPage = pagePath(m.target.Page)
	if isNotePage(m.targetPage) {
		return nil
	}
	target := m.target
	for _, c := range m.sources {
		if p := pagePath(c.Page); isNotePage(p) {
			return &noema.Error{Code: noema.EINVALID, Param: "target",
				Message: fmt.Sprintf("%q has the note %s as its page and %q has no note: merging would point the note's links at %s; merge %q into %q instead",
					c.Label, c.Page, target.Label, pageOrNone(target.Page), target.Label, c.Label),
				Details: map[string]any{"target": c.ID, "source": target.ID}}
		}
	}
	return nil
}

// gateSimilarity refuses what does not look like the same thing: a source
// a person marked as not a duplicate of the target (distinct.go), and a
// source below min_similarity unless analyze_duplicates' rule calls it a
// duplicate (one rule for both); force takes both. A dry run previews the merge
// and says it needs force.
func (s *Service) gateSimilarity(ctx context.Context, m *mergePlan, in MergeInput, dryRun bool) error {
	res, target := m.res, m.target
	floor := in.MinSimilarity
	if floor == 0 && !in.Force {
		floor = DefaultMinSimilarity
	}
	sims := map[[2]string]*float64{}
	simOf := func(a, b *noema.Concept) (*float64, error) {
		if s.Similarity == nil {
			return nil, nil
		}
		k := [2]string{min(a.ID, b.ID), max(a.ID, b.ID)}
		if v, ok := sims[k]; ok {
			return v, nil
		}
		sim, embedder, err := s.Similarity(ctx, a, b)
		if err != nil {
			return nil, fmt.Errorf("similarity of %q to %q: %w", a.Label, b.Label, err)
		}
		res.Embedder = embedder
		sims[k] = &sim
		return &sim, nil
	}
	if marked := markedSources(target, m.sources); len(marked) > 0 && !in.Force {
		e := &noema.Error{Code: noema.EINVALID, Param: "force",
			Message: fmt.Sprintf("%s marked as not a duplicate of %q (%s in a concept's metadata); pass force=true if they are the same concept after all",
				strings.Join(marked, ", "), target.Label, noema.DistinctFromKey)}
		if !dryRun {
			return e
		}
		res.NeedsForce = true
		res.Warnings = append(res.Warnings, "needs force=true: "+e.Message)
	}
	judged, err := s.judgedDuplicates(ctx, target, m.sources, simOf)
	if err != nil {
		return err
	}
	var low []string
	for _, c := range m.sources {
		sim, err := simOf(c, target)
		if err != nil {
			return err
		}
		if sim == nil {
			continue
		}
		res.Similarities = append(res.Similarities, SourceSimilarity{ConceptName{c.ID, c.Label}, *sim, judged[c.ID]})
		if *sim < floor && !judged[c.ID] {
			low = append(low, fmt.Sprintf("%q (%.3f)", c.Label, *sim))
		}
	}
	if len(low) == 0 || in.Force {
		return nil
	}
	e := &noema.Error{Code: noema.EINVALID, Param: "force",
		Message: fmt.Sprintf("%s: similarity to %q below %.2f with the embedder %s, and analyze_duplicates does not call them one concept; pass force=true if they are the same concept",
			strings.Join(low, ", "), target.Label, floor, res.Embedder),
		Details: map[string]any{"similarities": res.Similarities, "embedder": res.Embedder}}
	if !dryRun {
		return e
	}
	res.NeedsForce = true
	res.Warnings = append(res.Warnings, "needs force=true: "+e.Message)
	return nil
}

// planNames gathers the sources' names, metadata, relation refs and pages
// into the plan, and their names into the target's aliases.
func (s *Service) planNames(m *mergePlan) error {
	target := m.target
	m.ed = newEdits(s.Vault)
	m.page = pageState{id: target.ID, label: target.Label, aliases: slices.Clone(target.Aliases), description: target.Description, metadata: target.Metadata}
	m.keys, m.keySource, m.refs, m.sourcePages = map[string]bool{}, map[string]string{}, []string{}, map[string]bool{}
	p := &m.page
	for _, c := range m.sources {
		// A note taken as the source's page by its title keeps its own
		// aliases: they are the note's, not the concept's.
		own, err := s.ownAliases(m.ed, c)
		if err != nil {
			return err
		}
		for _, name := range append([]string{c.Label}, c.Aliases...) {
			m.keys[vault.Key(name)] = true
			m.keySource[vault.Key(name)] = c.ID
			if name != c.Label && !own {
				continue
			}
			if !slices.ContainsFunc(p.aliases, func(a string) bool { return vault.Key(a) == vault.Key(name) }) && vault.Key(name) != target.Key {
				p.aliases = append(p.aliases, name)
				m.res.AliasesAdded = append(m.res.AliasesAdded, name)
			}
		}
		m.refs = append(m.refs, "concept:"+c.Key)
		for _, a := range c.Aliases {
			m.refs = append(m.refs, "concept:"+vault.Key(a))
		}
		if p.metadata, err = MergeMetadata(p.metadata, c.Metadata, nil, false); err != nil {
			return err
		}
		if p.description == "" {
			p.description = c.Description
		}
		if c.Page != "" {
			m.sourcePages[strings.TrimPrefix(c.Page, noema.URIScheme)+".md"] = true
		}
	}
	m.targetRef = "concept:" + target.Key
	return nil
}

// isSourceRef reports whether a relation's to names a source.
func (m *mergePlan) isSourceRef(to string) bool {
	return slices.Contains(m.refs, vault.RelationRef(to))
}

// planLinks retargets every link to a source, in every note linking one,
// at the target, counting the links moved by source.
func (s *Service) planLinks(ctx context.Context, m *mergePlan) error {
	var linking []string
	for _, c := range m.sources {
		paths, err := s.DB.NotesLinking(ctx, c.ID)
		if err != nil {
			return err
		}
		linking = append(linking, paths...)
	}
	slices.Sort(linking)
	m.moved = map[string]int{}
	name := linkName(m.target)
	for _, rel := range slices.Compact(linking) {
		content, n, err := m.ed.currentNote(rel)
		if err != nil {
			return err
		}
		out, changes := vault.RewriteLinks(content, n.Links, func(l noema.Link) (string, bool) {
			if !m.keys[l.Key] || (l.Path != "" && !(m.sourcePages[l.Path] && strings.HasPrefix(l.Path, noema.ConceptsDir))) {
				return "", false // a link to a note that stays ([[folder/Note]]) keeps opening it
			}
			m.moved[m.keySource[l.Key]]++
			return vault.Retarget(content, l, name), true
		})
		m.ed.set(rel, out, changes)
	}
	return nil
}

// planInboundRelations points the relations other files declare to a
// source at the target.
func (s *Service) planInboundRelations(ctx context.Context, m *mergePlan) error {
	declaring, err := s.DB.FilesRelatingTo(ctx, m.refs)
	if err != nil {
		return err
	}
	for _, rel := range declaring {
		if m.sourcePages[rel] || rel == m.targetPage {
			continue // moved or dropped with the pages below
		}
		err := m.ed.editFrontMatter(rel, func(fm *vault.FrontMatter) error {
			rels, err := fm.Relations()
			if err != nil {
				return err
			}
			for _, r := range rels {
				if !m.isSourceRef(r.To) {
					continue
				}
				fm.RemoveRelation(r.Type, vault.RelationRef(r.To))
				if !hasRelation(fm, r.Type, m.targetRef) {
					if err := fm.AddRelation(r.Type, vault.LinkTo(m.target.Label), "", r.Weight, r.Metadata); err != nil {
						return err
					}
				}
				m.res.RelationsMoved++
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// targetRelations reads the relations the sources' pages declare and
// returns the edit that moves them to the target's page.
func (m *mergePlan) targetRelations() (func(fm *vault.FrontMatter) error, error) {
	var movedRels []vault.RawRelation
	for rel := range m.sourcePages {
		fm, err := m.ed.frontMatter(rel)
		if err != nil {
			return nil, err
		}
		rels, err := fm.Relations()
		if err != nil {
			return nil, err
		}
		movedRels = append(movedRels, rels...)
	}
	slices.SortStableFunc(movedRels, func(a, b vault.RawRelation) int { return strings.Compare(a.Type+a.To, b.Type+b.To) })
	return func(fm *vault.FrontMatter) error {
		rels, err := fm.Relations()
		if err != nil {
			return err
		}
		// The target's own relations to a source become none (a concept
		// does not relate to itself by merging).
		for _, r := range rels {
			if m.isSourceRef(r.To) {
				fm.RemoveRelation(r.Type, vault.RelationRef(r.To))
			}
		}
		for _, r := range movedRels {
			ref := vault.RelationRef(r.To)
			if m.isSourceRef(r.To) || ref == m.targetRef || hasRelation(fm, r.Type, ref) {
				continue
			}
			link := vault.LinkTo(r.To)
			if p, ok := strings.CutPrefix(ref, "note:"); ok {
				link = vault.LinkTo(p)
			}
			if err := fm.AddRelation(r.Type, link, "", r.Weight, r.Metadata); err != nil {
				return err
			}
			m.res.RelationsMoved++
		}
		return nil
	}, nil
}

// inboundLinks reports the inbound links the sources' pages lose and
// returns how many links move to the target.
func (m *mergePlan) inboundLinks() (total int) {
	for _, c := range m.sources {
		total += m.moved[c.ID]
		if rel := pagePath(c.Page); rel != "" {
			after := max(0, c.Mentions-m.moved[c.ID])
			m.res.InboundLinks = append(m.res.InboundLinks, InboundChange{URI: c.Page, Role: "source_page", Before: c.Mentions, After: after})
			if after == 0 && isNotePage(rel) {
				m.res.Warnings = append(m.res.Warnings, fmt.Sprintf("%s keeps its text, but no link reaches it after the merge (its links go to %q)", c.Page, m.target.Label))
			}
		}
	}
	return total
}

// planTargetPage writes the target's page with its names, metadata and
// relations (pageEdit), creating one when it has none, and reports the
// inbound links it gains.
func (s *Service) planTargetPage(m *mergePlan, total int, pageEdit func(fm *vault.FrontMatter) error) error {
	target := m.target
	targetRole := "target_page"
	if m.targetPage == "" {
		rel, existing, err := s.newPagePath(target.Label, target.ID)
		if err != nil {
			return err
		}
		if existing {
			m.targetPage = rel
		} else {
			content, err := s.renderPage(nil, m.page, pageEdit)
			if err != nil {
				return err
			}
			m.ed.create(rel, content)
			targetRole = "new_target_page"
			m.res.InboundLinks = append(m.res.InboundLinks, InboundChange{URI: noema.NoteURI(rel), Role: targetRole, Before: 0, After: target.Mentions + total})
		}
	}
	if targetRole == "target_page" && total > 0 {
		m.res.InboundLinks = append(m.res.InboundLinks, InboundChange{URI: noema.NoteURI(m.targetPage), Role: targetRole, Before: target.Mentions, After: target.Mentions + total})
	}
	if m.targetPage == "" {
		return nil
	}
	old, err := m.ed.current(m.targetPage)
	if err != nil {
		return err
	}
	content, err := s.renderPage(old, m.page, pageEdit)
	if err != nil {
		return err
	}
	m.ed.set(m.targetPage, content, nil)
	return nil
}

// planSourcePages removes the sources' pages; a page that is an ordinary
// note keeps its text and loses only its concept keys and relations.
func (m *mergePlan) planSourcePages() error {
	for rel := range m.sourcePages {
		if strings.HasPrefix(rel, noema.ConceptsDir) {
			m.ed.remove(rel)
			m.res.PagesDeleted = append(m.res.PagesDeleted, noema.NoteURI(rel))
			continue
		}
		err := m.ed.editFrontMatter(rel, func(fm *vault.FrontMatter) error {
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
			return err
		}
	}
	slices.Sort(m.res.PagesDeleted)
	return nil
}

// summarise fills in the changed lines and the one-sentence message.
func (m *mergePlan) summarise(dryRun bool) {
	res := m.res
	res.Changes = m.ed.lineChanges()
	names := make([]string, len(m.sources))
	for i, c := range m.sources {
		names[i] = fmt.Sprintf("%q", c.Label)
	}
	verb := "would merge"
	if !dryRun {
		verb = "merged"
	}
	res.Message = fmt.Sprintf("%s %s into %q: %d lines of links and relations, %d aliases added, %d relations moved, %d pages deleted, %d notes gain or lose inbound links",
		verb, strings.Join(names, ", "), m.target.Label, len(res.Changes), len(res.AliasesAdded), res.RelationsMoved, len(res.PagesDeleted), len(res.InboundLinks))
	if res.NeedsForce {
		res.Message += " (needs force=true)"
	}
}

// apply writes a plan as one changeset (all files or none, across crashes),
// recorded in the vault's operation log as op (a tool's name), and indexes
// what changed, under the vault's write lock w.
func (s *Service) apply(ctx context.Context, w *vault.Writer, ed *edits, op string) error {
	cs := ed.changeset()
	cs.Operation = op
	if err := w.Apply(ctx, cs); err != nil {
		return err
	}
	if paths := ed.paths(); len(paths) > 0 {
		return s.Sync.SyncWritten(ctx, paths, "")
	}
	return nil
}

// frontMatter is the parsed front matter of the file at rel as the plan
// has it.
func (ed *edits) frontMatter(rel string) (*vault.FrontMatter, error) {
	content, err := ed.current(rel)
	if err != nil {
		return nil, err
	}
	fmSrc, _, _, _ := vault.SplitFrontMatter(content)
	return vault.ParseFrontMatter(fmSrc)
}

// pagePath is the vault path of a page URI, "" for none.
func pagePath(uri string) string {
	if uri == "" {
		return ""
	}
	return strings.TrimPrefix(uri, noema.URIScheme) + ".md"
}

// isNotePage reports whether a page path is a note of the vault rather
// than a concept page under concepts/ ("" is neither).
func isNotePage(rel string) bool {
	return rel != "" && !strings.HasPrefix(rel, noema.ConceptsDir)
}

func pageOrNone(uri string) string {
	if uri == "" {
		return "a new page under " + noema.ConceptsDir
	}
	return uri
}

// ownAliases reports whether c's aliases are the concept's: it has no
// page, or its page declares it (under concepts/ or with a concept: key).
// A note taken as the page by its title has aliases of its own.
func (s *Service) ownAliases(ed *edits, c *noema.Concept) (bool, error) {
	rel := pagePath(c.Page)
	if rel == "" || strings.HasPrefix(rel, noema.ConceptsDir) {
		return true, nil
	}
	fm, err := ed.frontMatter(rel)
	if err != nil {
		return false, err
	}
	return fm.Concept() != "", nil
}

// linkName is the name links to c are written with: its label, or the
// file name of its page when that differs from the label only as concept
// keys do ("connection-pool.md" of "Connection Pool"), so that Obsidian,
// which resolves links by file name, opens the page too.
func linkName(c *noema.Concept) string {
	stem := path.Base(strings.TrimPrefix(c.Page, noema.URIScheme))
	if c.Page != "" && !strings.EqualFold(stem, c.Label) && vault.Key(stem) == c.Key {
		return stem
	}
	return c.Label
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
