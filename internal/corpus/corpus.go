// Package corpus generates deterministic synthetic vaults: folders of
// realistic Markdown notes full of [[WikiLinks]], for benchmarks and
// end-to-end tests.
//
// The same [Options] always produce byte-identical files (and identical
// modification times): all randomness comes from a SplitMix64 generator
// seeded from [Options.Seed], and nothing depends on map iteration order, the
// clock or the Go release. Each note is drawn from its own stream, derived
// from the seed and the note's index.
//
// A generated vault exercises what the indexer must get right:
//
//   - concepts drawn from a Zipf-like distribution (skewed link degrees), with
//     1–3 word labels, a few with accents and a few in Japanese, Chinese or
//     Korean;
//   - links written as a spelling variant of their concept ([Options.VariantRate]:
//     another case, '_' or '-' for spaces, doubled spaces, decomposed accents,
//     full-width letters) that all normalize to the concept's key;
//   - [[T|shown]], [[T#Heading]] and [[T#Heading|shown]] forms;
//   - "fake links" inside fenced (``` and ~~~), indented and inline code,
//     which are not links and must not be counted ([Options.FakeLinkRate]);
//   - YAML front matter with title, tags, aliases, created/modified dates
//     (RFC 3339 or plain dates) and unknown keys such as `custom: {x: 1}`
//     ([Options.FrontMatterRate]);
//   - headings, paragraphs, bullet, numbered and task lists, quotes, tables and
//     plain code blocks, in nested folders, with some Unicode file names.
//
// The returned [Manifest] is the ground truth: per note its path, title and
// the real links in order of appearance, plus totals.
//
// Invariants a test may rely on: a note's title (its file name without .md)
// and its aliases never have the key of a concept, so no note is accidentally
// a concept page; titles are unique by key across the whole vault; every
// file's modification time equals the note's Modified time (the front-matter
// `modified` value when it is written).
package corpus

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"
	"time"
)

// Default values applied by [Generate] to zero fields of [Options].
const (
	DefaultLinksPerNote    = 8
	DefaultMinConcepts     = 50
	DefaultTargetBytes     = 1500
	DefaultFolders         = 6
	DefaultVariantRate     = 0.15
	DefaultFakeLinkRate    = 0.25
	DefaultFrontMatterRate = 0.7
)

// BaseTime returns the fixed origin of every generated date: notes are
// created within about two years after it.
func BaseTime() time.Time { return time.Date(2023, time.January, 2, 9, 0, 0, 0, time.UTC) }

// Options configure [Generate]. A zero count or rate means "use the default";
// a negative rate or LinksPerNote means none.
type Options struct {
	// Seed selects the vault; the same options give byte-identical output.
	Seed uint64 `json:"seed"`
	// Notes is the number of notes to write (required, positive).
	Notes int `json:"notes"`
	// LinksPerNote is the exact number of real links in every note
	// (default 8; negative for none).
	LinksPerNote int `json:"links_per_note"`
	// Concepts is the vocabulary size (default Notes/4, at least 50).
	Concepts int `json:"concepts"`
	// TargetBytes is the approximate size of each file (default 1500).
	// A note is never cut short of its links, so tiny targets are exceeded.
	TargetBytes int `json:"target_bytes"`
	// Folders is the number of folders, the vault root included (default 6).
	// Folders are nested up to three levels.
	Folders int `json:"folders"`
	// VariantRate is the share of links written as a spelling variant of
	// their concept's label (default 0.15).
	VariantRate float64 `json:"variant_rate"`
	// FakeLinkRate is the share of notes that contain code (fenced, indented
	// or inline) with [[...]] inside, which are not links (default 0.25).
	FakeLinkRate float64 `json:"fake_link_rate"`
	// FrontMatterRate is the share of notes with YAML front matter (default 0.7).
	FrontMatterRate float64 `json:"front_matter_rate"`
}

// Manifest describes a generated vault.
type Manifest struct {
	// Options are the effective options, defaults applied.
	Options Options `json:"options"`
	// Folders lists the folders notes were placed in ("" is the root).
	Folders []string `json:"folders"`
	// Concepts is the vocabulary, most popular rank first.
	Concepts []Concept `json:"concepts"`
	// Notes are in generation order.
	Notes []Note `json:"notes"`
	// Totals sums the notes.
	Totals Totals `json:"totals"`
}

// Concept is one label of the vocabulary.
type Concept struct {
	// Label is the canonical spelling.
	Label string `json:"label"`
	// Links is the number of real links to the concept, in any spelling.
	Links int `json:"links"`
}

// Note describes one generated file.
type Note struct {
	// Path is relative to the vault, with forward slashes, ending in ".md".
	Path string `json:"path"`
	// Title is the file name without ".md"; the front-matter title, when
	// written, is the same.
	Title string `json:"title"`
	// Aliases are the front-matter aliases, if any.
	Aliases []string `json:"aliases,omitempty"`
	// Tags are the front-matter tags, if any.
	Tags []string `json:"tags,omitempty"`
	// FrontMatter reports whether the file starts with YAML front matter.
	FrontMatter bool `json:"front_matter"`
	// Created and Modified are the note's dates; the file's mtime is Modified.
	Created  time.Time `json:"created"`
	Modified time.Time `json:"modified"`
	// Links are the real links in order of appearance.
	Links []Link `json:"links"`
	// FakeLinks is the number of [[...]] written inside code.
	FakeLinks int `json:"fake_links"`
	// Bytes is the file size.
	Bytes int `json:"bytes"`
}

// Targets returns the raw Target text of the note's real links, in order.
func (n *Note) Targets() []string {
	out := make([]string, len(n.Links))
	for i, l := range n.Links {
		out[i] = l.Target
	}
	return out
}

// Link is one real link as written.
type Link struct {
	// Target is the text before any '#' or '|', exactly as written.
	Target string `json:"target"`
	// Heading is the part after '#', if any.
	Heading string `json:"heading,omitempty"`
	// Display is the part after '|', if any.
	Display string `json:"display,omitempty"`
	// Label is the canonical label of the concept Target spells.
	Label string `json:"label"`
}

// Totals sums a vault.
type Totals struct {
	Notes int `json:"notes"`
	// Links counts real links; VariantLinks those among them whose Target
	// differs from the concept's label.
	Links        int `json:"links"`
	VariantLinks int `json:"variant_links"`
	// FakeLinks counts [[...]] written inside code.
	FakeLinks int `json:"fake_links"`
	// Concepts counts the concepts linked at least once.
	Concepts int   `json:"concepts"`
	Bytes    int64 `json:"bytes"`
}

// withDefaults validates o and returns it with defaults applied.
func (o Options) withDefaults() (Options, error) {
	if o.Notes <= 0 {
		return o, fmt.Errorf("notes must be positive, got %d", o.Notes)
	}
	switch {
	case o.LinksPerNote == 0:
		o.LinksPerNote = DefaultLinksPerNote
	case o.LinksPerNote < 0:
		o.LinksPerNote = 0
	}
	if o.Concepts < 0 || o.TargetBytes < 0 || o.Folders < 0 {
		return o, errors.New("concepts, target bytes and folders must not be negative")
	}
	if o.Concepts == 0 {
		o.Concepts = max(o.Notes/4, DefaultMinConcepts)
	}
	if o.TargetBytes == 0 {
		o.TargetBytes = DefaultTargetBytes
	}
	if o.Folders == 0 {
		o.Folders = DefaultFolders
	}
	for _, r := range []struct {
		p   *float64
		def float64
	}{
		{&o.VariantRate, DefaultVariantRate},
		{&o.FakeLinkRate, DefaultFakeLinkRate},
		{&o.FrontMatterRate, DefaultFrontMatterRate},
	} {
		switch {
		case *r.p == 0:
			*r.p = r.def
		case *r.p < 0:
			*r.p = 0
		case *r.p > 1:
			return o, fmt.Errorf("rates must be at most 1, got %v", *r.p)
		}
	}
	return o, nil
}

// Generate writes a vault described by opts into dir, which must be empty or
// not exist yet, and returns its manifest. It stops early with ctx's error
// when ctx is done, leaving a partial vault behind.
func Generate(ctx context.Context, dir string, opts Options) (*Manifest, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("corpus options: %w", err)
	}
	if err := prepareDir(dir); err != nil {
		return nil, err
	}
	voc, err := newVocabulary(opts.Seed, opts.Concepts)
	if err != nil {
		return nil, err
	}
	m := &Manifest{Options: opts, Folders: folders(opts.Folders)}
	plans := planNotes(opts, voc, m.Folders)

	for _, f := range m.Folders {
		if f == "" {
			continue
		}
		if err := os.MkdirAll(filepath.Join(dir, filepath.FromSlash(f)), 0o755); err != nil {
			return nil, fmt.Errorf("create folder: %w", err)
		}
	}

	counts := make([]int, len(voc.labels))
	m.Notes = make([]Note, 0, opts.Notes)
	var buf []byte
	for i := range plans {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		g := &noteGen{opts: &opts, voc: voc, plan: &plans[i], r: newRNG(opts.Seed, streamNote, uint64(i)), buf: buf[:0]}
		note := g.generate()
		buf = g.buf
		name := filepath.Join(dir, filepath.FromSlash(note.Path))
		if err := os.WriteFile(name, g.buf, 0o644); err != nil {
			return nil, fmt.Errorf("write note: %w", err)
		}
		if err := os.Chtimes(name, note.Modified, note.Modified); err != nil {
			return nil, fmt.Errorf("set note time: %w", err)
		}
		for _, l := range g.linkIdx {
			counts[l]++
		}
		m.Totals.Links += len(note.Links)
		for _, l := range note.Links {
			if l.Target != l.Label {
				m.Totals.VariantLinks++
			}
		}
		m.Totals.FakeLinks += note.FakeLinks
		m.Totals.Bytes += int64(note.Bytes)
		m.Notes = append(m.Notes, note)
	}
	m.Totals.Notes = len(m.Notes)
	m.Concepts = make([]Concept, len(voc.labels))
	for i, l := range voc.labels {
		m.Concepts[i] = Concept{Label: l, Links: counts[i]}
		if counts[i] > 0 {
			m.Totals.Concepts++
		}
	}
	return m, nil
}

// prepareDir creates dir or checks that it is empty.
func prepareDir(dir string) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("create vault: %w", err)
		}
		return nil
	case err != nil:
		return fmt.Errorf("read vault: %w", err)
	case len(entries) > 0:
		return fmt.Errorf("vault %s is not empty", dir)
	}
	return nil
}

// folders returns n folder paths, the root first.
func folders(n int) []string {
	out := make([]string, 0, n)
	for i := range n {
		if i < len(folderNames) {
			out = append(out, folderNames[i])
		} else {
			out = append(out, path.Join("misc", fmt.Sprintf("box%02d", i-len(folderNames)+1)))
		}
	}
	return slices.Clip(out)
}
