// Package storecopy makes one [noema.Store]'s note files exactly another's:
// what `noema vault push` (a folder onto PostgreSQL) and `noema vault pull`
// (PostgreSQL into a folder) run, and what works between any two stores.
//
// A copy is a plan and one changeset. [Prepare] compares the two stores
// file by file, by checksum, and plans the changes that make the target's
// files the source's: a creation for each file only the source has, a
// replacement for each file whose checksums differ, and — only when
// [Options.Delete] asks for it — a deletion for each file only the target
// has (without it such files are kept and counted). [Plan.Apply] applies
// every change in ONE [noema.ChangesetApplier.ApplyChangeset] on the
// target, each planned from the checksum the target had: all or nothing,
// and a file someone changes on the target between the plan and the apply
// aborts the whole copy with ECHECKSUM, having written nothing. A plan
// with no changes applies nothing, so copying twice is a no-op the second
// time.
//
//	plan, err := storecopy.Prepare(ctx, folder, db, storecopy.Options{})
//	…
//	if _, err := plan.Apply(ctx, db); err != nil { … }
//
// Content is copied byte for byte; modification times are not (each store
// records when it was written). The source is read file by file, not in one
// snapshot: files written to it during the copy may or may not be in it.
//
// # Memory
//
// A plan holds the full content of every file it creates or replaces, since
// the changeset that applies it does (files it leaves unchanged are read,
// checksummed and dropped). Copying a whole vault onto an empty store thus
// holds the vault's note bytes once in memory — 15 MB for 10,000 notes of
// 1.5 KB — plus what the target's ApplyChangeset needs on top: the folder
// store keeps the before-bytes of every file it replaces or deletes in its
// journal; PostgreSQL sends the rows within one transaction.
package storecopy

import (
	"context"
	"fmt"

	"github.com/noema-mem/noema"
)

// Source is what a copy reads from a store: its files and their content.
type Source interface {
	noema.FileLister
	noema.FileReader
}

// Target is a store a copy writes to.
type Target interface {
	Source
	noema.ChangesetApplier
}

// Options tune a copy.
type Options struct {
	// Delete deletes the target's files that the source does not have.
	// Without it they are kept (Plan.Kept), so a copy never removes a note
	// unless asked to.
	Delete bool
}

// Action is what a plan does to one path of the target.
type Action string

// Actions of a [Step].
const (
	// Create: the file is only on the source.
	Create Action = "create"
	// Replace: both have the file, with different content.
	Replace Action = "replace"
	// Delete: the file is only on the target, and Options.Delete is set.
	Delete Action = "delete"
	// Keep: the file is only on the target and is left there
	// (Options.Delete is not set). It is not a change.
	Keep Action = "keep"
)

// Step is one path a plan changes, or keeps.
type Step struct {
	Path   string `json:"path"`
	Action Action `json:"action"`
}

// Plan is what a copy does: counts by action and the steps in path order.
type Plan struct {
	Created   int `json:"created"`
	Replaced  int `json:"replaced"`
	Deleted   int `json:"deleted"`
	Unchanged int `json:"unchanged"`
	// Kept counts the target's files the source lacks that the copy
	// leaves in place (Options.Delete not set).
	Kept int `json:"kept"`
	// Steps lists every path created, replaced, deleted or kept, in path
	// order (byte-wise); unchanged files are only counted.
	Steps []Step `json:"steps"`

	changes noema.Changeset
}

// Changes returns how many files applying the plan changes.
func (p *Plan) Changes() int { return p.Created + p.Replaced + p.Deleted }

// Changeset returns the changeset that applies the plan: every change,
// each planned from the target's checksum. It shares the plan's content.
func (p *Plan) Changeset() *noema.Changeset { return &p.changes }

// FileWalker is a store that reads all its note files in one pass, as
// postgres.Store does (one query instead of one a file). A copy uses it
// where a store has it, instead of listing the files and reading each.
type FileWalker interface {
	// WalkFiles calls fn with every note file, in byte-wise path order,
	// and stops with fn's error. Each file has its checksum; its Data only
	// when withData.
	WalkFiles(ctx context.Context, withData bool, fn func(*noema.File) error) error
}

// Prepare plans the copy of src's note files onto dst by comparing them:
// it reads every file of both (the target's only for its checksum) and
// keeps the content of those the plan writes. It writes nothing.
func Prepare(ctx context.Context, src, dst Source, opts Options) (*Plan, error) {
	// The target's files with their checksums, in path order.
	var have []*noema.File
	if err := eachFile(ctx, dst, false, func(f *noema.File) error {
		f.Data = nil
		have = append(have, f)
		return nil
	}); err != nil {
		return nil, fmt.Errorf("read the target's files: %w", err)
	}
	p := &Plan{Steps: []Step{}}
	// The source's files come in path order too: walk both side by side.
	j := 0
	err := eachFile(ctx, src, true, func(f *noema.File) error {
		for ; j < len(have) && have[j].Path < f.Path; j++ {
			p.targetOnly(have[j], opts)
		}
		before := noema.Absent
		if j < len(have) && have[j].Path == f.Path {
			before = have[j].Checksum
			j++
		}
		switch {
		case before == noema.Absent:
			p.add(Create, noema.FileChange{Path: f.Path, Before: before, After: f.Data})
		case before == f.Checksum:
			p.Unchanged++
		default:
			p.add(Replace, noema.FileChange{Path: f.Path, Before: before, After: f.Data})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read the source's files: %w", err)
	}
	for ; j < len(have); j++ {
		p.targetOnly(have[j], opts)
	}
	return p, nil
}

// targetOnly plans a file only the target has: deleted with opts.Delete,
// else kept.
func (p *Plan) targetOnly(f *noema.File, opts Options) {
	if opts.Delete {
		p.add(Delete, noema.FileChange{Path: f.Path, Before: f.Checksum, Delete: true})
		return
	}
	p.Kept++
	p.Steps = append(p.Steps, Step{Path: f.Path, Action: Keep})
}

// add records a change of the plan.
func (p *Plan) add(a Action, c noema.FileChange) {
	switch a {
	case Create:
		p.Created++
	case Replace:
		p.Replaced++
	case Delete:
		p.Deleted++
	}
	p.Steps = append(p.Steps, Step{Path: c.Path, Action: a})
	p.changes.Changes = append(p.changes.Changes, c)
}

// Apply applies the plan to the target it was planned against, in one
// changeset: every change or none. A file of the target that changed since
// the plan is ECHECKSUM naming it, and nothing is written. A plan without
// changes writes nothing. It returns the changes as the target's feed
// recorded them.
func (p *Plan) Apply(ctx context.Context, dst noema.ChangesetApplier) ([]noema.Change, error) {
	if p.Changes() == 0 {
		return nil, ctx.Err()
	}
	return dst.ApplyChangeset(ctx, &p.changes)
}

// Copy plans the copy of src onto dst and applies it: [Prepare], then
// [Plan.Apply].
func Copy(ctx context.Context, src Source, dst Target, opts Options) (*Plan, error) {
	p, err := Prepare(ctx, src, dst, opts)
	if err != nil {
		return nil, err
	}
	if _, err := p.Apply(ctx, dst); err != nil {
		return nil, err
	}
	return p, nil
}

// eachFile calls fn with every note file of s, in byte-wise path order,
// each with its checksum and, when withData, its content: through
// [FileWalker] where s has it, else by listing the files and reading each
// (a file removed between the two is skipped).
func eachFile(ctx context.Context, s Source, withData bool, fn func(*noema.File) error) error {
	last := ""
	inOrder := func(f *noema.File) error {
		if last != "" && f.Path <= last {
			return fmt.Errorf("the store gives %s after %s, out of path order", f.Path, last)
		}
		last = f.Path
		return fn(f)
	}
	if w, ok := s.(FileWalker); ok {
		return w.WalkFiles(ctx, withData, inOrder)
	}
	var paths []string
	if err := s.ListFiles(ctx, func(f noema.FileInfo) error {
		paths = append(paths, f.Path)
		return nil
	}); err != nil {
		return err
	}
	for _, path := range paths {
		f, err := s.ReadFile(ctx, path)
		if noema.ErrorCode(err) == noema.ENOTFOUND {
			continue
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", path, err)
		}
		if err := inOrder(f); err != nil {
			return err
		}
	}
	return nil
}
