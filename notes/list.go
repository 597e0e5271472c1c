package notes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/vault"
)

// ListInput selects notes.
type ListInput struct {
	Folder string `json:"folder,omitempty" jsonschema:"only notes under this vault folder"`
	Tag    string `json:"tag,omitempty" jsonschema:"only notes with this tag"`
	Offset int    `json:"offset,omitempty" jsonschema:"paging offset (default 0)" default:"0"`
	Limit  int    `json:"limit,omitempty" jsonschema:"page size (default 50, max 500)" default:"50"`
}

// NoteSummary is one note in a listing.
type NoteSummary struct {
	URI      string    `json:"uri"`
	Path     string    `json:"path"`
	Title    string    `json:"title"`
	Tags     []string  `json:"tags"`
	Size     int64     `json:"size"`
	Checksum string    `json:"checksum"`
	Modified time.Time `json:"modified"`
	Accessed time.Time `json:"accessed,omitzero"`
}

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
		return nil, noema.Errorf(noema.EINVALID, "offset must be >= 0")
	}
	where, args, err := s.filter(in.Folder, in.Tag)
	if err != nil {
		return nil, err
	}
	return s.page(ctx, where, args, "n.path", in.Offset, limit)
}

// RecentInput selects recently active notes.
type RecentInput struct {
	Since string `json:"since,omitempty" jsonschema:"RFC 3339 time, date (2006-01-02) or duration like 24h or 7d; default: all"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many (default 20, max 500)" default:"20"`
}

// Recent lists notes by their latest activity (modification or explicit
// read), newest first.
func (s *Service) Recent(ctx context.Context, in RecentInput) (*ListResult, error) {
	limit := ClampLimit(in.Limit, 20, MaxLimit)
	where, args := "1=1", []any{}
	if strings.TrimSpace(in.Since) != "" {
		t, err := ParseSince(in.Since, s.Now())
		if err != nil {
			return nil, err
		}
		where = "MAX(n.modified_ns, COALESCE(a.accessed_ns, 0)) >= ?"
		args = append(args, t.UnixNano())
	}
	return s.page(ctx, where, args, "MAX(n.modified_ns, COALESCE(a.accessed_ns, 0)) DESC, n.path", 0, limit)
}

// ParseSince parses an RFC 3339 time, a date, or a duration back from now
// ("90m", "24h", "7d").
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	if strings.HasSuffix(s, "d") {
		var days float64
		if _, err := fmt.Sscanf(s, "%gd", &days); err == nil && days >= 0 {
			return now.Add(-time.Duration(days * 24 * float64(time.Hour))), nil
		}
	}
	if d, err := time.ParseDuration(s); err == nil && d >= 0 {
		return now.Add(-d), nil
	}
	return time.Time{}, noema.Errorf(noema.EINVALID, "since %q is not a time, date or duration (e.g. 2026-01-02, 24h, 7d)", s)
}

func (s *Service) filter(folder, tag string) (string, []any, error) {
	where, args := []string{"1=1"}, []any{}
	if f := strings.Trim(strings.TrimSpace(folder), "/"); f != "" {
		rel, err := s.Vault.Rel(f)
		if err != nil {
			return "", nil, err
		}
		where = append(where, "substr(n.path, 1, ?) = ?")
		args = append(args, len(rel)+1, rel+"/")
	}
	if t := strings.TrimPrefix(strings.TrimSpace(tag), "#"); t != "" {
		where = append(where, "EXISTS (SELECT 1 FROM json_each(n.tags) WHERE lower(value) = lower(?))")
		args = append(args, t)
	}
	return strings.Join(where, " AND "), args, nil
}

func (s *Service) page(ctx context.Context, where string, args []any, order string, offset, limit int) (*ListResult, error) {
	res := &ListResult{Notes: []NoteSummary{}, Offset: offset, Limit: limit}
	from := ` FROM notes n LEFT JOIN access a ON a.path = n.path WHERE ` + where
	if err := s.DB.Read().QueryRowContext(ctx, `SELECT COUNT(*)`+from, args...).Scan(&res.Total); err != nil {
		return nil, fmt.Errorf("count notes: %w", err)
	}
	rows, err := s.DB.Read().QueryContext(ctx, `SELECT n.path, n.title, n.tags, n.size, n.hash, n.modified_ns, COALESCE(a.accessed_ns, 0)`+
		from+` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, limit, offset)...)
	if err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var n NoteSummary
		var tags string
		var mod, acc int64
		if err := rows.Scan(&n.Path, &n.Title, &tags, &n.Size, &n.Checksum, &mod, &acc); err != nil {
			return nil, fmt.Errorf("scan note: %w", err)
		}
		_ = json.Unmarshal([]byte(tags), &n.Tags)
		n.Tags = nonNil(n.Tags)
		n.URI = vault.PathToURI(n.Path)
		n.Modified = time.Unix(0, mod).UTC()
		if acc != 0 {
			n.Accessed = time.Unix(0, acc).UTC()
		}
		res.Notes = append(res.Notes, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	res.HasMore = offset+len(res.Notes) < res.Total
	return res, nil
}
