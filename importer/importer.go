package importer

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// MaxInputBytes bounds a file an import reads (memory-jsonl, mem0): a
// larger one is too_large, before anything is parsed. The memory server
// rewrites its whole file on every call and mem0 pages its exports, so
// real files stay far below it.
const MaxInputBytes = 64 << 20

// MaxFiles bounds the Markdown files of a basic-memory folder; each file is
// bounded by the vault's max_note_bytes.
const MaxFiles = 100_000

// Sources an import reads.
const (
	SourceMemoryJSONL = "memory-jsonl"
	SourceBasicMemory = "basic-memory"
	SourceMem0        = "mem0"
)

// Kinds of a report's items.
const (
	KindEntity      = "entity"
	KindObservation = "observation"
	KindRelation    = "relation"
	KindNote        = "note"
	KindMemory      = "memory"
	KindFile        = "file"
)

// Service imports into one vault and indexes what it wrote.
type Service struct {
	Vault *vault.Vault
	// Concepts tells which concepts the vault has, and their pages.
	Concepts noema.ConceptIndex
	// Sync indexes the files an import wrote.
	Sync noema.IndexSync
	Now  func() time.Time
	// MaxNoteBytes bounds each note a basic-memory import reads and each
	// page or note an import writes (0: no bound).
	MaxNoteBytes int64
}

// New returns a Service over v that reads concepts from idx and indexes
// with sync.
func New(v *vault.Vault, idx noema.ConceptIndex, sync noema.IndexSync, maxNoteBytes int64) *Service {
	return &Service{Vault: v, Concepts: idx, Sync: sync, Now: time.Now, MaxNoteBytes: maxNoteBytes}
}

// Options are an import's choices.
type Options struct {
	// DryRun plans the import and reports it without writing anything.
	DryRun bool
}

// Item is one thing an import created, skipped or could not map.
type Item struct {
	// Kind is entity, observation, relation, note, memory or file.
	Kind string `json:"kind"`
	// Name says which one: an entity's name, "From -[type]-> To", an
	// observation's text, a file's path.
	Name string `json:"name"`
	// Record is where the input holds it: "line 3", "coffee.md:12",
	// "memory 2 (id …)".
	Record string `json:"record"`
	// URI is the note or page it went to (or is in).
	URI string `json:"uri,omitempty"`
	// Reason says why it was skipped or could not be mapped.
	Reason string `json:"reason,omitempty"`
}

// Report is what an import did, or would do with DryRun.
type Report struct {
	Source string `json:"source"`
	DryRun bool   `json:"dry_run"`
	// Created, Skipped and CouldNotMap list the items; Counts sums them.
	Created     []Item `json:"created"`
	Skipped     []Item `json:"skipped"`
	CouldNotMap []Item `json:"could_not_map"`
	Counts      Counts `json:"counts"`
	// Files are the URIs of the files written (or that would be).
	Files []string `json:"files"`
	// Operation is the import's id in the operation log (undo_operation
	// reverts it); empty for a dry run or an import that wrote nothing.
	Operation string `json:"operation,omitempty"`
	Message   string `json:"message"`
}

// Counts sums a report's items.
type Counts struct {
	Created     int `json:"created"`
	Skipped     int `json:"skipped"`
	CouldNotMap int `json:"could_not_map"`
}

// inputError is the error of bad input: code, and a message that starts
// with the record it is about.
func inputError(code, record, format string, args ...any) *noema.Error {
	e := noema.Errorf(code, "%s: %s", record, fmt.Sprintf(format, args...))
	e.Details = map[string]any{"record": record}
	return e
}

// readBounded reads all of r, refusing with too_large an input above
// MaxInputBytes.
func readBounded(r io.Reader, what string) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxInputBytes+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", what, err)
	}
	if len(data) > MaxInputBytes {
		return nil, noema.Errorf(noema.ETOOLARGE, "%s is larger than %d MiB, the most an import reads; split it", what, MaxInputBytes>>20)
	}
	// A byte order mark (Windows editors write one) is not content.
	return bytes.TrimPrefix(data, []byte("\uFEFF")), nil
}

// checkName refuses, as invalid_argument naming record, a name that is
// not text noema can keep: invalid UTF-8, control characters, or a path
// that tries to leave where it is written ("../x", "/etc/x", "a/../../b").
func checkName(record, what, name string) error {
	switch {
	case !utf8.ValidString(name):
		return inputError(noema.EINVALID, record, "%s is not valid UTF-8", what)
	case strings.TrimSpace(name) == "":
		return inputError(noema.EINVALID, record, "%s is empty", what)
	case strings.ContainsFunc(name, unicode.IsControl):
		return inputError(noema.EINVALID, record, "%s %q contains a control character", what, name)
	case strings.HasPrefix(name, "/") || strings.HasPrefix(name, `\`) || slices.Contains(strings.FieldsFunc(name, func(r rune) bool { return r == '/' || r == '\\' }), ".."):
		return inputError(noema.EINVALID, record, "%s %q is a path that leaves its folder; rename it", what, name)
	}
	return nil
}

// labelProblem says why name cannot be a concept's label ("" when it
// can): the rules of create_concept.
func labelProblem(name string) string {
	name = strings.TrimSpace(name)
	switch {
	case strings.ContainsAny(name, "\n\r\x00[]|#"):
		return "a concept's name cannot hold [ ] | # or a line break"
	case utf8.RuneCountInString(name) > vault.MaxLinkLen:
		return fmt.Sprintf("a concept's name is at most %d characters", vault.MaxLinkLen)
	case vault.Key(name) == "":
		return "a concept's name needs a letter or digit"
	}
	return ""
}

// plan is an import being planned: the files it writes, each with the
// content it was planned from, and the report.
type plan struct {
	s      *Service
	report *Report
	files  map[string]*plannedFile
	order  []string
}

type plannedFile struct {
	old    []byte // the content on disk when read, nil when absent
	exists bool
	data   []byte // the planned content; nil until written
}

func (s *Service) newPlan(source string, opts Options) *plan {
	return &plan{s: s, report: &Report{Source: source, DryRun: opts.DryRun}, files: map[string]*plannedFile{}}
}

// read returns the content of rel as the plan has it (planned, else on
// disk) and whether there is a file.
func (p *plan) read(rel string) ([]byte, bool, error) {
	f, err := p.file(rel)
	if err != nil {
		return nil, false, err
	}
	if f.data != nil {
		return f.data, true, nil
	}
	return f.old, f.exists, nil
}

func (p *plan) file(rel string) (*plannedFile, error) {
	if f, ok := p.files[rel]; ok {
		return f, nil
	}
	data, _, err := p.s.Vault.ReadFile(rel)
	f := &plannedFile{}
	switch noema.ErrorCode(err) {
	case "":
		f.old, f.exists = data, true
	case noema.ENOTFOUND:
	default:
		return nil, err
	}
	p.files[rel] = f
	return f, nil
}

// write plans rel to hold data.
func (p *plan) write(rel string, data []byte) error {
	f, err := p.file(rel)
	if err != nil {
		return err
	}
	if f.data == nil {
		p.order = append(p.order, rel)
	}
	f.data = data
	return nil
}

func (p *plan) created(it Item)             { p.report.Created = append(p.report.Created, it) }
func (p *plan) skipped(it Item)             { p.report.Skipped = append(p.report.Skipped, it) }
func (p *plan) unmapped(it Item)            { p.report.CouldNotMap = append(p.report.CouldNotMap, it) }
func (p *plan) skip(it Item, reason string) { it.Reason = reason; p.skipped(it) }
func (p *plan) refuse(it Item, reason string) {
	it.Reason = reason
	p.unmapped(it)
}

// changeset is the plan's files that change, in plan order.
func (p *plan) changeset(op string) *noema.Changeset {
	cs := &noema.Changeset{Operation: op}
	for _, rel := range p.order {
		f := p.files[rel]
		switch {
		case !f.exists:
			cs.Create(rel, f.data)
		case string(f.old) != string(f.data):
			cs.Replace(rel, f.old, f.data)
		}
	}
	return cs
}

// run plans an import with build under the vault's write lock and, unless
// it is a dry run, applies it as one changeset named "import <source>" and
// indexes the files it wrote.
func (s *Service) run(ctx context.Context, source string, opts Options, build func(ctx context.Context, p *plan) error) (*Report, error) {
	return vault.LockedValue(ctx, s.Vault, func(w *vault.Writer) (*Report, error) {
		p := s.newPlan(source, opts)
		if err := build(ctx, p); err != nil {
			return nil, err
		}
		cs := p.changeset("import " + source)
		rep := p.report
		rep.Files = make([]string, 0, len(cs.Changes))
		for _, c := range cs.Changes {
			if s.MaxNoteBytes > 0 && int64(len(c.After)) > s.MaxNoteBytes {
				return nil, noema.Errorf(noema.ETOOLARGE, "the import would make %s %d bytes, above max_note_bytes %d; nothing was imported", c.Path, len(c.After), s.MaxNoteBytes)
			}
			rep.Files = append(rep.Files, noema.NoteURI(c.Path))
		}
		rep.finish()
		if opts.DryRun || len(cs.Changes) == 0 {
			return rep, nil
		}
		if err := w.Apply(ctx, cs); err != nil {
			return nil, fmt.Errorf("import %s: %w", source, err)
		}
		if ops, _, err := s.Vault.Operations(ctx, 0, 1); err == nil && len(ops) == 1 && ops[0].Tool == cs.Operation {
			rep.Operation = ops[0].ID
		}
		if err := s.Sync.SyncWritten(ctx, cs.Paths(), ""); err != nil {
			return nil, err
		}
		rep.finish()
		return rep, nil
	})
}

// finish counts the items and writes the message.
func (r *Report) finish() {
	r.Counts = Counts{Created: len(r.Created), Skipped: len(r.Skipped), CouldNotMap: len(r.CouldNotMap)}
	verb := "imported"
	if r.DryRun {
		verb = "would import"
	}
	r.Message = fmt.Sprintf("%s from %s: created %s; skipped %s; could not map %s; %d files",
		verb, r.Source, byKind(r.Created), byKind(r.Skipped), byKind(r.CouldNotMap), len(r.Files))
	if r.Operation != "" {
		r.Message += fmt.Sprintf(" (operation %s: noema undo %s reverts it)", r.Operation, r.Operation)
	}
}

// byKind sums items by kind: "3 entities, 12 observations", or "nothing".
func byKind(items []Item) string {
	if len(items) == 0 {
		return "nothing"
	}
	counts := map[string]int{}
	var kinds []string
	for _, it := range items {
		if counts[it.Kind] == 0 {
			kinds = append(kinds, it.Kind)
		}
		counts[it.Kind]++
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		parts[i] = fmt.Sprintf("%d %s", counts[k], plural(k, counts[k]))
	}
	return strings.Join(parts, ", ")
}

func plural(kind string, n int) string {
	switch {
	case n == 1:
		return kind
	case kind == KindEntity:
		return "entities"
	case kind == KindMemory:
		return "memories"
	}
	return kind + "s"
}
