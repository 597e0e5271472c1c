package app_test

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/vault"
)

var (
	linkOps  = flag.Int("link-ops", 0, "operations TestLinksSurviveEdits runs (0: $NOEMA_LINK_OPS, else 60, 15 with -race)")
	linkSeed = flag.Uint64("link-seed", 1, "the seed of TestLinksSurviveEdits")
)

// TestLinksSurviveEdits is the property of docs/obsidian.md ("Moves and
// renames"): on a vault of a few hundred notes, a seeded random sequence of
// writes, moves, renames, concept renames, merges and concept deletions
// with unlink, run through the real services on a real vault and SQLite
// index, never makes a link that resolved stop resolving — neither as
// Obsidian resolves it (by file name or path, case-insensitively, aliases
// not used) nor as noema does (a path to a note, else a concept key whose
// concept has a page). Links a deletion unlinks are gone by design; every
// other link of every note is followed, in order, from one operation to
// the next. -link-ops and -link-seed (or $NOEMA_LINK_OPS) change the run.
func TestLinksSurviveEdits(t *testing.T) {
	// A few dozen operations keep the default go test within seconds (each
	// one writes and fsyncs files and the index); CI runs 1,000 with
	// NOEMA_LINK_OPS (see .ci/run).
	ops := *linkOps
	if ops == 0 {
		ops = 60
		if raceEnabled {
			ops = 15
		}
		if s := os.Getenv("NOEMA_LINK_OPS"); s != "" {
			n, err := strconv.Atoi(s)
			if err != nil || n < 1 {
				t.Fatalf("NOEMA_LINK_OPS=%q: want a positive number of operations", s)
			}
			ops = n
		}
	}
	ctx := context.Background()
	p := &linkProperty{t: t, ctx: ctx, rng: rand.New(rand.NewPCG(*linkSeed, 19))}
	p.a = noematest.AppWith(t, p.vault(300))
	before := p.scan()
	counts := map[string]int{}
	for i := range ops {
		o := p.step()
		after := p.scan()
		if err := p.compare(before, after, o); err != nil {
			t.Fatalf("seed %d, operation %d (%s): %v", *linkSeed, i+1, o.desc, err)
		}
		counts[o.kind]++
		if o.refused {
			counts[o.kind+" refused"]++
		}
		before = after
	}
	resolved := 0
	for _, n := range before {
		for _, l := range n.links {
			if l.obsidian && l.noema {
				resolved++
			}
		}
	}
	t.Logf("seed %d: %d operations %v; %d notes, %d links resolving both ways at the end", *linkSeed, ops, counts, len(before), resolved)
}

// linkProperty runs TestLinksSurviveEdits.
type linkProperty struct {
	t      *testing.T
	ctx    context.Context
	rng    *rand.Rand
	a      *app.App
	nextID int
	names  map[string]bool // keys of every title given out
	cache  map[string]cachedNote
}

var folders = []string{"", "project", "database", "stdlib", "archive/old", "ml/notes"}

var words = strings.Fields(`amber basalt cedar delta ember falcon garnet harbor iris juniper kestrel lumen
	marble nectar onyx pylon quartz raven sable tundra umber vortex willow xenon yarrow zephyr anchor beacon
	cobalt dune estuary fjord glacier heron indigo jetty kelp lagoon meadow nimbus orchid prairie quill reef`)

// title returns a title no note has had yet.
func (p *linkProperty) title() string {
	for {
		n := 2 + p.rng.IntN(2)
		ws := make([]string, n)
		for i := range ws {
			w := words[p.rng.IntN(len(words))]
			ws[i] = strings.ToUpper(w[:1]) + w[1:]
		}
		t := strings.Join(ws, " ")
		if !p.names[vault.Key(t)] {
			p.names[vault.Key(t)] = true
			return t
		}
	}
}

// marker is the text that identifies a note across moves and renames.
func (p *linkProperty) marker() string {
	p.nextID++
	return fmt.Sprintf("nid:n%d", p.nextID)
}

var markerRE = regexp.MustCompile(`nid:n[0-9]+`)

// vault returns the files of a vault of n notes in the shapes noema and
// Obsidian meet: notes as write_note writes them, notes without front
// matter, slug-named notes of older noema versions, concept pages; each
// links others by title, by path, with shown text, headings and embeds.
func (p *linkProperty) vault(n int) map[string]string {
	p.names = map[string]bool{}
	type planned struct{ rel, title string }
	var all []planned
	for range n {
		title := p.title()
		folder := folders[p.rng.IntN(len(folders))]
		if folder != "" {
			folder += "/"
		}
		stem := title
		switch r := p.rng.IntN(10); {
		case r < 1:
			stem = vault.Slug(title) // an older noema's name
		case r < 2:
			folder = "concepts/"
		}
		all = append(all, planned{folder + stem + ".md", title})
	}
	files := map[string]string{}
	for i, pl := range all {
		var b strings.Builder
		stem := strings.TrimSuffix(path.Base(pl.rel), ".md")
		switch {
		case strings.HasPrefix(pl.rel, "concepts/"):
			fmt.Fprintf(&b, "---\ntitle: %s\nconcept: %s\n---\n", pl.title, pl.title)
		case stem == pl.title && i%4 == 0:
			// no front matter: the title is the file name
		default:
			fmt.Fprintf(&b, "---\ntitle: %s\n---\n", pl.title)
		}
		fmt.Fprintf(&b, "%s\n\n", p.marker())
		for range 2 + p.rng.IntN(5) {
			o := all[p.rng.IntN(len(all))]
			b.WriteString(p.link(o.rel, o.title))
			b.WriteString(" and ")
		}
		b.WriteString("[[" + p.title() + "]] (a concept without a page).\n")
		files[pl.rel] = b.String()
	}
	return files
}

// link returns a link to the note at rel titled title, in one of the forms
// people write.
func (p *linkProperty) link(rel, title string) string {
	noExt := strings.TrimSuffix(rel, ".md")
	switch p.rng.IntN(8) {
	case 0:
		return "[[" + noExt + "]]"
	case 1:
		return "[[" + rel + "|the note]]"
	case 2:
		return "[[" + title + "|shown]]"
	case 3:
		return "[[" + title + "#Part]]"
	case 4:
		return "![[" + title + "]]"
	case 5:
		return "[[" + strings.ToLower(title) + "]]"
	case 6:
		return "[[" + path.Base(noExt) + "]]"
	default:
		return "[[" + title + "]]"
	}
}

// op is one operation as run.
type op struct {
	kind, desc string
	refused    bool
	// unlinked are the keys whose links a deletion turned into text.
	unlinked map[string]bool
	// dropsPages allows pages under concepts/ to go (merge, delete).
	dropsPages bool
}

// step runs one random operation.
func (p *linkProperty) step() op {
	notesNow := p.notePaths()
	pick := func() string { return notesNow[p.rng.IntN(len(notesNow))] }
	uri := func(rel string) string { return noema.NoteURI(rel) }
	var o op
	var err error
	switch r := p.rng.IntN(100); {
	case r < 15:
		o.kind = "write"
		title := p.title()
		if p.rng.IntN(5) == 0 { // a title a note already has: conflict
			n, _, _, rerr := p.a.Vault.ReadNote(pick())
			if rerr == nil {
				title = n.Title
			}
		}
		var body strings.Builder
		body.WriteString(p.marker() + "\n")
		for range 1 + p.rng.IntN(4) {
			rel := pick()
			n, _, _, rerr := p.a.Vault.ReadNote(rel)
			if rerr == nil {
				body.WriteString(p.link(rel, n.Title) + " ")
			}
		}
		folder := folders[p.rng.IntN(len(folders))]
		o.desc = fmt.Sprintf("write %q in %q", title, folder)
		_, err = p.a.Notes.Write(p.ctx, notes.WriteInput{Title: title, Folder: folder, Content: body.String()})
	case r < 55:
		// A move keeps the file name; a rename gives a new one, at times
		// a name another note has (a conflict), at times in another folder.
		src := pick()
		o.kind = "move"
		dir, name := folders[p.rng.IntN(len(folders))], path.Base(src)
		if r >= 35 {
			o.kind, dir, name = "rename", path.Dir(src), p.title()+".md"
			if p.rng.IntN(6) == 0 {
				name = path.Base(pick())
			}
			if p.rng.IntN(3) == 0 {
				dir = folders[p.rng.IntN(len(folders))]
			}
		}
		dst := path.Join(dir, name)
		o.desc = fmt.Sprintf("%s %s to %s", o.kind, src, dst)
		if dst == src {
			return o
		}
		_, err = p.a.Notes.Move(p.ctx, uri(src), dst)
	case r < 70:
		o.kind = "concept rename"
		c := p.concept()
		label := p.title()
		o.desc = fmt.Sprintf("concept update %q --label %q", c.Label, label)
		_, err = p.a.Concepts.Update(p.ctx, concepts.UpdateInput{Concept: c.ID, Label: label})
	case r < 90:
		o.kind, o.dropsPages = "merge", true
		src, dst := p.concept(), p.concept()
		o.desc = fmt.Sprintf("concept merge %q --into %q", src.Label, dst.Label)
		if src.ID == dst.ID {
			return o
		}
		apply := false
		_, err = p.a.Concepts.Merge(p.ctx, concepts.MergeInput{Sources: []string{src.ID}, Target: dst.ID, DryRun: &apply, Force: true})
	default:
		o.kind, o.dropsPages = "delete", true
		c := p.concept()
		o.desc = fmt.Sprintf("concept delete %q --unlink --cascade-relations", c.Label)
		o.unlinked = map[string]bool{c.Key: true}
		for _, a := range c.Aliases {
			o.unlinked[vault.Key(a)] = true
		}
		_, err = p.a.Concepts.Delete(p.ctx, concepts.DeleteInput{Concept: c.ID, Unlink: true, CascadeRelations: true})
	}
	if err != nil {
		// conflict: a name taken; a merge may also refuse (invalid_argument)
		// one that would orphan a note.
		if code := noema.ErrorCode(err); code != noema.ECONFLICT && (o.kind != "merge" || code != noema.EINVALID) {
			p.t.Fatalf("%s: %v", o.desc, err)
		}
		o.refused, o.unlinked = true, nil
	}
	return o
}

// notePaths lists the notes of the vault, in path order.
func (p *linkProperty) notePaths() []string {
	var out []string
	err := p.a.Vault.Walk(p.ctx, func(rel string, _ fs.FileInfo) error {
		out = append(out, rel)
		return nil
	})
	if err != nil {
		p.t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// concept returns a random concept of the index, with its aliases.
func (p *linkProperty) concept() *noema.Concept {
	var ids []string
	noematest.EachRow(p.t, p.a.DB.Read(), `SELECT id FROM concepts ORDER BY id`, func(rows *sql.Rows) error {
		var id string
		ids = append(ids, id)
		return rows.Scan(&ids[len(ids)-1])
	})
	c, err := p.a.Concepts.Get(p.ctx, ids[p.rng.IntN(len(ids))])
	if err != nil {
		p.t.Fatal(err)
	}
	return c
}

// linkState is one link of a note as both sides resolve it.
type linkState struct {
	text            string // the link as written
	key             string // noema's key, path links resolved
	obsidian, noema bool
}

// noteLinks is a note's links in order.
type noteLinks struct {
	path  string
	links []linkState
}

// cachedNote is a parsed file, kept while the file is unchanged.
type cachedNote struct {
	size, mtime int64
	id          string
	raw         []noema.Link // as written
	resolved    []noema.Link // path links resolved
}

// scan resolves every link of every note carrying a marker, by marker.
func (p *linkProperty) scan() map[string]noteLinks {
	if p.cache == nil {
		p.cache = map[string]cachedNote{}
	}
	paths := p.notePaths()
	byPath := map[string]bool{}
	byName := map[string]bool{}
	for _, rel := range paths {
		lower := strings.ToLower(strings.TrimSuffix(rel, ".md"))
		byPath[lower] = true
		byName[path.Base(lower)] = true
	}
	pages := map[string]bool{} // concept keys whose concept has a page
	noematest.EachRow(p.t, p.a.DB.Read(), `SELECT k.key FROM concept_keys k JOIN concepts c ON c.id = k.concept_id
		WHERE c.page_note_id IS NOT NULL`, func(rows *sql.Rows) error {
		var k string
		err := rows.Scan(&k)
		pages[k] = true
		return err
	})
	obsidian := func(target string) bool {
		t := strings.ToLower(target)
		if !strings.Contains(t, "/") {
			return byName[t]
		}
		if byPath[t] {
			return true
		}
		for q := range byPath { // Obsidian also finds a path by its end
			if strings.HasSuffix(q, "/"+t) {
				return true
			}
		}
		return false
	}
	out := map[string]noteLinks{}
	for _, rel := range paths {
		c := p.parsed(rel)
		if c.id == "" {
			continue
		}
		if prev, ok := out[c.id]; ok {
			p.t.Fatalf("marker %s in both %s and %s", c.id, prev.path, rel)
		}
		n := noteLinks{path: rel}
		for i, l := range c.raw {
			r := c.resolved[i]
			n.links = append(n.links, linkState{text: l.Target, key: r.Key, obsidian: obsidian(l.Target), noema: r.Path != "" || pages[r.Key]})
		}
		out[c.id] = n
	}
	return out
}

// parsed returns the file at rel parsed, from the cache while unchanged.
func (p *linkProperty) parsed(rel string) cachedNote {
	abs := filepath.Join(p.a.Vault.Root, filepath.FromSlash(rel))
	info, err := os.Stat(abs)
	if err != nil {
		p.t.Fatal(err)
	}
	if c, ok := p.cache[rel]; ok && c.size == info.Size() && c.mtime == info.ModTime().UnixNano() {
		// Path links resolve against the files of now.
		c.resolved = slices.Clone(c.raw)
		p.a.Vault.ResolvePathLinks(&vault.Note{Links: c.resolved})
		return c
	}
	content, err := os.ReadFile(abs)
	if err != nil {
		p.t.Fatal(err)
	}
	n, err := vault.Parse(rel, content)
	if err != nil {
		p.t.Fatalf("%s no longer parses: %v", rel, err)
	}
	c := cachedNote{size: info.Size(), mtime: info.ModTime().UnixNano(), id: markerRE.FindString(string(n.Body)), raw: n.Links}
	c.resolved = slices.Clone(c.raw)
	p.a.Vault.ResolvePathLinks(&vault.Note{Links: c.resolved})
	p.cache[rel] = c
	return c
}

// compare checks that no link that resolved before o stops resolving.
func (p *linkProperty) compare(before, after map[string]noteLinks, o op) error {
	for id, b := range before {
		a, ok := after[id]
		if !ok {
			if o.dropsPages && strings.HasPrefix(b.path, "concepts/") {
				continue
			}
			return fmt.Errorf("note %s (%s) is gone", b.path, id)
		}
		kept := slices.DeleteFunc(slices.Clone(b.links), func(l linkState) bool { return o.unlinked[l.key] })
		if len(kept) != len(a.links) {
			return fmt.Errorf("%s: %d links before, %d after (%d unlinked by design):\nbefore %v\nafter  %v",
				a.path, len(b.links), len(a.links), len(b.links)-len(kept), kept, a.links)
		}
		for i, l := range kept {
			now := a.links[i]
			if l.obsidian && !now.obsidian {
				return fmt.Errorf("%s: link %d [[%s]] resolved in Obsidian, now [[%s]] does not (was %s)", a.path, i+1, l.text, now.text, b.path)
			}
			if l.noema && !now.noema {
				return fmt.Errorf("%s: link %d [[%s]] resolved in noema, now [[%s]] (key %q) does not", a.path, i+1, l.text, now.text, now.key)
			}
		}
	}
	return nil
}
