package notes

import (
	"context"
	"strings"

	"github.com/noema-mem/noema"
)

// ListInput selects notes.
type ListInput struct {
	Folder string `json:"folder,omitempty" jsonschema:"only notes under this vault folder"`
	Tag    string `json:"tag,omitempty" jsonschema:"only notes with this tag"`
	Offset int    `json:"offset,omitempty" jsonschema:"paging offset (default 0)" default:"0" minimum:"0"`
	Limit  int    `json:"limit,omitempty" jsonschema:"page size (default 50, max 500)" default:"50" minimum:"0" maximum:"500"`
}

// NoteSummary is one note in a listing.
type NoteSummary = noema.NoteSummary

// ListResult is one page of notes.
type ListResult struct {
	Notes   []NoteSummary `json:"notes"`
	Total   int           `json:"total"`
	Offset  int           `json:"offset"`
	Limit   int           `json:"limit"`
	HasMore bool          `json:"has_more"`
}

// ClampLimit applies the default and the maximum to a page size.
func ClampLimit(limit, def, maxLimit int) int {
	if limit <= 0 {
		return def
	}
	return min(limit, maxLimit)
}

// List returns notes by path, filtered by folder and tag.
func (s *Service) List(ctx context.Context, in ListInput) (*ListResult, error) {
	limit := ClampLimit(in.Limit, DefaultLimit, MaxLimit)
	if in.Offset < 0 {
		return nil, noema.Errorf(noema.EINVALID, "offset must be >= 0").WithParam("offset")
	}
	q, err := s.filter(in.Folder, in.Tag)
	if err != nil {
		return nil, err
	}
	q.Offset, q.Limit = in.Offset, limit
	return s.page(ctx, q)
}

// RecentInput selects recently active notes.
type RecentInput struct {
	Since string `json:"since,omitempty" jsonschema:"RFC 3339 time, date (2006-01-02) or duration like 24h or 7d; default: all"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many (default 20, max 500)" default:"20" minimum:"0" maximum:"500"`
}

// Recent lists notes by their latest activity (modification or explicit
// read), newest first.
func (s *Service) Recent(ctx context.Context, in RecentInput) (*ListResult, error) {
	limit := ClampLimit(in.Limit, DefaultRecentLimit, MaxLimit)
	q := noema.NoteQuery{ByActivity: true, Limit: limit}
	if strings.TrimSpace(in.Since) != "" {
		t, err := noema.ParseSince(in.Since, s.Now())
		if err != nil {
			return nil, err
		}
		q.Since = &t
	}
	return s.page(ctx, q)
}

func (s *Service) filter(folder, tag string) (noema.NoteQuery, error) {
	var q noema.NoteQuery
	if f := strings.Trim(strings.TrimSpace(folder), "/"); f != "" {
		rel, err := s.Vault.Rel(f)
		if err != nil {
			return q, err
		}
		q.Folder = rel
	}
	q.Tag = strings.TrimPrefix(strings.TrimSpace(tag), "#")
	return q, nil
}

func (s *Service) page(ctx context.Context, q noema.NoteQuery) (*ListResult, error) {
	total, notes, err := s.DB.ListNotes(ctx, q)
	if err != nil {
		return nil, err
	}
	res := &ListResult{Notes: notes, Total: total, Offset: q.Offset, Limit: q.Limit}
	res.HasMore = q.Offset+len(res.Notes) < res.Total
	return res, nil
}
