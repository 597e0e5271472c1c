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
	"strings"

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

// Prepare plans the copy of src's note files onto dst by comparing them:
// it reads every file of both (the target's only for its checksum) and
// keeps the content of those the plan writes. It writes nothing.
func Prepare(ctx context.Context, src, dst Source, opts Options) (*Plan, error) {
	srcPaths, err := listPaths(ctx, src)
	if err != nil {
		return nil, fmt.Errorf("list the source's files: %w", err)
	}
	dstPaths, err := listPaths(ctx, dst)
	if err != nil {
		return nil, fmt.Errorf("list the target's files: %w", err)
	}
	p := &Plan{Steps: []Step{}}
	// Both lists are in byte-wise path order: walk them side by side.
	i, j := 0, 0
	for i < len(srcPaths) || j < len(dstPaths) {
		var path string
		inSrc, inDst := false, false
		switch {
		case j == len(dstPaths) || (i < len(srcPaths) && srcPaths[i] < dstPaths[j]):
			path, inSrc = srcPaths[i], true
			i++
		case i == len(srcPaths) || dstPaths[j] < srcPaths[i]:
			path, inDst = dstPaths[j], true
			j++
		default:
			path, inSrc, inDst = srcPaths[i], true, true
			i, j = i+1, j+1
		}
		if err := p.plan(ctx, src, dst, path, inSrc, inDst, opts); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// plan adds path's step to p: inSrc and inDst say which stores listed it.
func (p *Plan) plan(ctx context.Context, src, dst Source, path string, inSrc, inDst bool, opts Options) error {
	var data []byte
	if inSrc {
		f, err := read(ctx, src, path)
		if err != nil {
			return fmt.Errorf("read the source's %s: %w", path, err)
		}
		if f != nil {
			data = f.Data
		}
		inSrc = f != nil // removed since it was listed: as if never there
	}
	before := noema.Absent
	if inDst {
		f, err := read(ctx, dst, path)
		if err != nil {
			return fmt.Errorf("read the target's %s: %w", path, err)
		}
		if f != nil {
			before = f.Checksum
		}
	}
	switch {
	case inSrc && before == noema.Absent:
		p.add(Create, noema.FileChange{Path: path, Before: before, After: data})
	case inSrc && before == noema.Checksum(data):
		p.Unchanged++
	case inSrc:
		p.add(Replace, noema.FileChange{Path: path, Before: before, After: data})
	case before == noema.Absent:
		// On neither side any more.
	case opts.Delete:
		p.add(Delete, noema.FileChange{Path: path, Before: before, Delete: true})
	default:
		p.Kept++
		p.Steps = append(p.Steps, Step{Path: path, Action: Keep})
	}
	return nil
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

// listPaths returns the paths of s's note files, in byte-wise order.
func listPaths(ctx context.Context, s noema.FileLister) ([]string, error) {
	var paths []string
	err := s.ListFiles(ctx, func(f noema.FileInfo) error {
		if n := len(paths); n > 0 && strings.Compare(paths[n-1], f.Path) >= 0 {
			return fmt.Errorf("the store lists %s after %s, out of order", f.Path, paths[n-1])
		}
		paths = append(paths, f.Path)
		return nil
	})
	return paths, err
}

// read reads path from s: nil, without an error, when it is not there
// (removed since it was listed).
func read(ctx context.Context, s noema.FileReader, path string) (*noema.File, error) {
	f, err := s.ReadFile(ctx, path)
	if noema.ErrorCode(err) == noema.ENOTFOUND {
		return nil, nil
	}
	return f, err
}
