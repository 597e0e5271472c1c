package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/noema-mem/noema"
)

// NoteIndex is the note index (port [noema.NoteIndex]) over a DB: the
// reads of package notes (this file, merge.go) and the explicit reads it
// records (access.go).
type NoteIndex struct{ db *DB }

var _ noema.NoteIndex = (*NoteIndex)(nil)

// Notes returns the note index over db.
func (db *DB) Notes() *NoteIndex { return &NoteIndex{db: db} }

// ListNotes returns one page of the notes q selects, in its order, and the
// number of notes it selects over all pages.
func (ni *NoteIndex) ListNotes(ctx context.Context, q noema.NoteQuery) (total int, notes []noema.NoteSummary, err error) {
	where, args := []string{"1=1"}, []any{}
	if q.Folder != "" {
		where = append(where, "substr(n.path, 1, ?) = ?")
		args = append(args, len(q.Folder)+1, q.Folder+"/")
	}
	if q.Tag != "" {
		where = append(where, "EXISTS (SELECT 1 FROM json_each(n.tags) WHERE lower(value) = lower(?))")
		args = append(args, q.Tag)
	}
	if q.Since != nil {
		where = append(where, "MAX(n.modified_ns, COALESCE(a.accessed_ns, 0)) >= ?")
		args = append(args, q.Since.UnixNano())
	}
	order := "n.path"
	if q.ByActivity {
		order = "MAX(n.modified_ns, COALESCE(a.accessed_ns, 0)) DESC, n.path"
	}
	from := ` FROM notes n LEFT JOIN access a ON a.path = n.path WHERE ` + strings.Join(where, " AND ")
	if err := ni.db.rd().QueryRowContext(ctx, `SELECT COUNT(*)`+from, args...).Scan(&total); err != nil {
		return 0, nil, fmt.Errorf("count notes: %w", err)
	}
	notes, err = collect(ctx, ni.db.rd(), `SELECT n.path, n.title, n.tags, n.size, n.hash, n.modified_ns, COALESCE(a.accessed_ns, 0)`+
		from+` ORDER BY `+order+` LIMIT ? OFFSET ?`, append(args, q.Limit, q.Offset), func(rows *sql.Rows) (noema.NoteSummary, error) {
		var n noema.NoteSummary
		var tags string
		var mod, acc int64
		if err := rows.Scan(&n.Path, &n.Title, &tags, &n.Size, &n.Checksum, &mod, &acc); err != nil {
			return n, err
		}
		_ = json.Unmarshal([]byte(tags), &n.Tags)
		if n.Tags == nil {
			n.Tags = []string{}
		}
		n.URI = noema.NoteURI(n.Path)
		n.Modified = time.Unix(0, mod).UTC()
		if acc != 0 {
			n.Accessed = time.Unix(0, acc).UTC()
		}
		return n, nil
	})
	if err != nil {
		return 0, nil, fmt.Errorf("list notes: %w", err)
	}
	return total, notes, nil
}

// NoteByTitle returns the path of the note titled title, else of a note
// whose title has the key keyOf(title) (keyOf is the vault's key function,
// which the index stores the results of), the first by path either way;
// "" when there is none. A title whose key is empty matches by exact title
// only.
func (ni *NoteIndex) NoteByTitle(ctx context.Context, title string, keyOf func(string) string) (string, error) {
	var path string
	err := ni.db.rd().QueryRowContext(ctx, `SELECT path FROM notes WHERE title = ? ORDER BY path LIMIT 1`, title).Scan(&path)
	if err == nil {
		return path, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("find note by title: %w", err)
	}
	key := keyOf(title)
	if key == "" {
		return "", nil
	}
	// note_names holds the keys of every note's title and aliases: the
	// candidates are the notes answering to the key, of which those whose
	// title (not only an alias) has it match.
	rows, err := ni.db.rd().QueryContext(ctx, `SELECT n.path, n.title FROM note_names nn JOIN notes n ON n.id = nn.note_id
		WHERE nn.key = ? ORDER BY n.path`, key)
	if err != nil {
		return "", fmt.Errorf("find note by title: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var p, t string
		if err := rows.Scan(&p, &t); err != nil {
			return "", fmt.Errorf("find note by title: %w", err)
		}
		if keyOf(t) == key {
			return p, nil
		}
	}
	if err := rows.Err(); err != nil {
		return "", fmt.Errorf("find note by title: %w", err)
	}
	return "", nil
}

// NotesNamed returns, in path order, the notes that answer to key the way
// links find notes: those whose title has the key (as noema resolves
// [[links]]) and those whose file name without .md has it (as Obsidian
// resolves them, in any folder). keyOf is vault.Key.
func (ni *NoteIndex) NotesNamed(ctx context.Context, key string, keyOf func(string) string) ([]string, error) {
	if key == "" {
		return nil, nil
	}
	var out []string
	err := eachRow(ctx, ni.db.rdKept(), `SELECT n.path, n.title FROM note_names nn JOIN notes n ON n.id = nn.note_id WHERE nn.key = ?`,
		[]any{key}, func(rows *sql.Rows) error {
			var p, t string
			if err := rows.Scan(&p, &t); err != nil {
				return err
			}
			if keyOf(t) == key {
				out = append(out, p)
			}
			return nil
		})
	if err != nil {
		return nil, fmt.Errorf("find notes named %q: %w", key, err)
	}
	// File names by their indexed key (NoteRecord.FileKey); while a row
	// has none (indexed before migration 0012 and not read since, or made
	// without one), every path is compared.
	var unkeyed bool
	if err := ni.db.rd().QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM notes WHERE file_key = '')`).Scan(&unkeyed); err != nil {
		return nil, fmt.Errorf("find notes named %q: %w", key, err)
	}
	query, args := `SELECT path FROM notes WHERE file_key = ?`, []any{key}
	if unkeyed {
		query, args = `SELECT path FROM notes`, nil
	}
	err = eachRow(ctx, ni.db.rd(), query, args, func(rows *sql.Rows) error {
		var p string
		if err := rows.Scan(&p); err != nil {
			return err
		}
		name := p[strings.LastIndexByte(p, '/')+1:]
		if keyOf(strings.TrimSuffix(name, ".md")) == key {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("find notes named %q: %w", key, err)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// DuplicateTitles returns the notes that share a title, up to keyOf
// (vault.Key): each group's paths in path order, the groups in the order of
// their first path. query runs a query: DB.Query, or Tx.Query inside a
// transaction.
func DuplicateTitles(query func(q string, args ...any) (*sql.Rows, error), keyOf func(string) string) ([][]string, error) {
	// note_names holds the keys of titles and aliases; only keys held by
	// two notes or more can be a shared title.
	rows, err := query(`SELECT nn.key, n.path, n.title FROM note_names nn JOIN notes n ON n.id = nn.note_id
		WHERE nn.key IN (SELECT key FROM note_names GROUP BY key HAVING COUNT(*) > 1) ORDER BY n.path`)
	if err != nil {
		return nil, fmt.Errorf("find duplicate titles: %w", err)
	}
	defer rows.Close()
	byKey := map[string][]string{}
	var order []string
	for rows.Next() {
		var key, path, title string
		if err := rows.Scan(&key, &path, &title); err != nil {
			return nil, fmt.Errorf("find duplicate titles: %w", err)
		}
		if keyOf(title) != key {
			continue // an alias, not the title
		}
		if _, ok := byKey[key]; !ok {
			order = append(order, key)
		}
		byKey[key] = append(byKey[key], path)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("find duplicate titles: %w", err)
	}
	var out [][]string
	for _, k := range order {
		if len(byKey[k]) > 1 {
			out = append(out, byKey[k])
		}
	}
	return out, nil
}

// Query runs a read query with ctx on the read pool.
func (db *DB) Query(ctx context.Context) func(q string, args ...any) (*sql.Rows, error) {
	return func(q string, args ...any) (*sql.Rows, error) { return db.rd().QueryContext(ctx, q, args...) }
}

// NotePathsUnder returns the paths of the indexed notes inside folder dir (a
// vault path, at any depth), in path order: what a folder's removal or
// rename took away. It reads the path index's range for "dir/", nothing
// else.
func (db *DB) NotePathsUnder(ctx context.Context, dir string) ([]string, error) {
	dir = strings.TrimSuffix(dir, "/")
	// "0" is the byte after "/": the range holds exactly the paths that
	// start with dir + "/".
	paths, err := collect(ctx, db.rd(), `SELECT path FROM notes WHERE path > ? AND path < ? ORDER BY path`,
		[]any{dir + "/", dir + "0"}, func(rows *sql.Rows) (string, error) {
			var p string
			err := rows.Scan(&p)
			return p, err
		})
	if err != nil {
		return nil, fmt.Errorf("notes under %s: %w", dir, err)
	}
	return paths, nil
}
