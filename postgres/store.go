package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/noema-mem/noema"
)

// NotifyChannel is the channel every committed change of any vault is
// announced on; the payload is the vault's name, a tab and its new
// sequence number.
const NotifyChannel = "noema_changes"

// Absent is the before-checksum of a file a change creates: it must not
// exist (or exist only as a tombstone).
const Absent = "absent"

// Store is one vault's note files of record in the database.
type Store struct {
	db    *DB
	vault string
	now   func() time.Time
}

// Vault returns the store of the vault named name, creating its row when
// the database has none. Names are what `--vault NAME=…` calls a vault.
func (db *DB) Vault(ctx context.Context, name string) (*Store, error) {
	if strings.TrimSpace(name) == "" || strings.ContainsAny(name, "\t\n\x00") {
		return nil, noema.Errorf(noema.EINVALID, "invalid vault name %q", name)
	}
	if _, err := db.pool.Exec(ctx, `INSERT INTO noema_vaults (vault) VALUES ($1) ON CONFLICT DO NOTHING`, name); err != nil {
		return nil, connectError(err)
	}
	return &Store{db: db, vault: name, now: time.Now}, nil
}

// File is one note file of record.
type File struct {
	Path     string
	Data     []byte
	Checksum string
	// Version counts the writes of this path, from 1.
	Version  int64
	Modified time.Time
	// Seq is the vault sequence number of the file's last change.
	Seq int64
}

// Change is one file of an all-or-nothing change (see [Store.Apply]).
type Change struct {
	Path string
	// Before is the checksum of the content the change was planned from,
	// or [Absent] for a file to create.
	Before string
	// After is the new content; ignored when Delete is set.
	After  []byte
	Delete bool
}

// Event is one entry of the change feed: the state of Path after the
// change numbered Seq.
type Event struct {
	Seq      int64
	Path     string
	Checksum string // "" once deleted
	Deleted  bool
	Modified time.Time
}

// Read returns the file at path; a missing or deleted file is
// noema.ENOTFOUND.
func (s *Store) Read(ctx context.Context, path string) (*File, error) {
	f := &File{Path: path}
	err := s.db.pool.QueryRow(ctx, `SELECT data, checksum, version, modified, seq FROM noema_files
		WHERE vault = $1 AND path = $2 AND data IS NOT NULL`, s.vault, path).
		Scan(&f.Data, &f.Checksum, &f.Version, &f.Modified, &f.Seq)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, noema.Errorf(noema.ENOTFOUND, "no note at %s", path)
	}
	if err != nil {
		return nil, connectError(err)
	}
	return f, nil
}

// List calls fn, in path order, for every live file (without its data).
func (s *Store) List(ctx context.Context, fn func(File) error) error {
	rows, err := s.db.pool.Query(ctx, `SELECT path, checksum, version, modified, seq FROM noema_files
		WHERE vault = $1 AND data IS NOT NULL ORDER BY path`, s.vault)
	if err != nil {
		return connectError(err)
	}
	defer rows.Close()
	for rows.Next() {
		var f File
		if err := rows.Scan(&f.Path, &f.Checksum, &f.Version, &f.Modified, &f.Seq); err != nil {
			return connectError(err)
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return connectError(rows.Err())
}

// Apply makes every change or none, in one transaction: each file must
// still have its Before checksum (or be absent for [Absent]), else nothing
// is written and the error is noema.ECHECKSUM naming the file and its
// current checksum. The changes get consecutive sequence numbers; Apply
// returns the last. Writers of one vault are serialised on the vault's row,
// so sequence numbers are handed out in commit order and a reader of the
// feed never sees a later number before an earlier one commits.
func (s *Store) Apply(ctx context.Context, changes []Change) (int64, error) {
	if len(changes) == 0 {
		return s.Seq(ctx)
	}
	seen := make(map[string]bool, len(changes))
	for _, c := range changes {
		if seen[c.Path] {
			return 0, noema.Errorf(noema.EINVALID, "a changeset names %s twice", c.Path)
		}
		seen[c.Path] = true
	}
	var last int64
	err := pgx.BeginFunc(ctx, s.db.pool, func(tx pgx.Tx) error {
		var base int64
		if err := tx.QueryRow(ctx, `UPDATE noema_vaults SET seq = seq + $2 WHERE vault = $1 RETURNING seq - $2`,
			s.vault, len(changes)).Scan(&base); err != nil {
			return err
		}
		if err := s.checkBefore(ctx, tx, changes); err != nil {
			return err
		}
		now := s.now().UTC()
		for i, c := range changes {
			seq := base + int64(i) + 1
			var data []byte
			sum := ""
			if !c.Delete {
				data = c.After
				if data == nil {
					data = []byte{}
				}
				sum = checksum(data)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO noema_files (vault, path, data, checksum, version, modified, seq)
				VALUES ($1, $2, $3, $4, 1, $5, $6)
				ON CONFLICT (vault, path) DO UPDATE SET data = EXCLUDED.data, checksum = EXCLUDED.checksum,
					version = noema_files.version + 1, modified = EXCLUDED.modified, seq = EXCLUDED.seq`,
				s.vault, c.Path, data, sum, now, seq); err != nil {
				return fmt.Errorf("write %s: %w", c.Path, err)
			}
			last = seq
		}
		_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, NotifyChannel, fmt.Sprintf("%s\t%d", s.vault, last))
		return err
	})
	if err != nil {
		var coded *noema.Error
		if errors.As(err, &coded) {
			return 0, err
		}
		return 0, connectError(err)
	}
	return last, nil
}

// checkBefore locks the rows of changes and compares their checksums with
// the plan, in path order so that two changesets never deadlock.
func (s *Store) checkBefore(ctx context.Context, tx pgx.Tx, changes []Change) error {
	paths := make([]string, len(changes))
	for i, c := range changes {
		paths[i] = c.Path
	}
	slices.Sort(paths)
	current := make(map[string]string, len(paths))
	rows, err := tx.Query(ctx, `SELECT path, checksum FROM noema_files WHERE vault = $1 AND path = ANY($2)
		ORDER BY path FOR UPDATE`, s.vault, paths)
	if err != nil {
		return err
	}
	for rows.Next() {
		var p, sum string
		if err := rows.Scan(&p, &sum); err != nil {
			rows.Close()
			return err
		}
		current[p] = sum
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range changes {
		have := current[c.Path]
		if have == "" {
			have = Absent
		}
		if have != c.Before {
			return &noema.Error{Code: noema.ECHECKSUM,
				Message: noema.URIScheme + strings.TrimSuffix(c.Path, ".md") + " changed since the change was planned; nothing was written; read it again and retry",
				Details: map[string]any{"path": c.Path, "checksum": have}}
		}
	}
	return nil
}

// Seq returns the vault's last sequence number.
func (s *Store) Seq(ctx context.Context) (int64, error) {
	var seq int64
	err := s.db.pool.QueryRow(ctx, `SELECT seq FROM noema_vaults WHERE vault = $1`, s.vault).Scan(&seq)
	return seq, connectError(err)
}

// Changes returns up to limit events after sequence number since, in order:
// the state each changed path has now (a path changed twice since appears
// once, at its last number). Following the feed from 0 gives every live
// file and every deletion.
func (s *Store) Changes(ctx context.Context, since int64, limit int) ([]Event, error) {
	rows, err := s.db.pool.Query(ctx, `SELECT seq, path, checksum, modified FROM noema_files
		WHERE vault = $1 AND seq > $2 ORDER BY seq LIMIT $3`, s.vault, since, limit)
	if err != nil {
		return nil, connectError(err)
	}
	defer rows.Close()
	var out []Event
	for rows.Next() {
		var e Event
		if err := rows.Scan(&e.Seq, &e.Path, &e.Checksum, &e.Modified); err != nil {
			return nil, connectError(err)
		}
		e.Deleted = e.Checksum == ""
		out = append(out, e)
	}
	return out, connectError(rows.Err())
}

// checksum is the checksum of a note's bytes, in the vault's form
// ("sha256:" and 64 hex digits).
func checksum(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
