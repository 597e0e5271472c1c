package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
)

// EachEmbedding calls fn with the cached vector of model of each of
// hashes that has one, once a hash, in no particular order. vec is
// decoded into a buffer reused for the next row: fn must copy what it
// keeps. Unlike Embeddings it never holds the vectors together, so a
// caller building its own index of a million of them (the concept
// vectors, issue 21) holds them once, in its own form.
func (s *SemanticIndex) EachEmbedding(ctx context.Context, model string, hashes []string, fn func(hash string, vec []float32) error) error {
	var buf []float32
	row := func(rows *sql.Rows, want func(string) bool) error {
		var h string
		var b sql.RawBytes
		if err := rows.Scan(&h, &b); err != nil {
			return err
		}
		if want != nil && !want(h) {
			return nil
		}
		n := len(b) / 4
		if cap(buf) < n {
			buf = make([]float32, n)
		}
		buf = buf[:n]
		for i := range buf {
			buf[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
		}
		return fn(h, buf)
	}
	var stored int
	if len(hashes) > 2000 {
		if err := s.db.rd().QueryRowContext(ctx, `SELECT COUNT(*) FROM embeddings WHERE model = ?`, model).Scan(&stored); err != nil {
			return fmt.Errorf("count embeddings: %w", err)
		}
	}
	if len(hashes) > 2000 && 2*len(hashes) >= stored {
		// Most of the model's vectors are wanted: one sequential scan,
		// with the wanted hashes sorted for lookup (a map of a million
		// strings would cost more than the scan's rows).
		sorted := slices.Clone(hashes)
		slices.Sort(sorted)
		sorted = slices.Compact(sorted)
		want := func(h string) bool { _, ok := slices.BinarySearch(sorted, h); return ok }
		err := eachRow(ctx, s.db.rd(), `SELECT text_hash, vec FROM embeddings WHERE model = ?`, []any{model}, func(rows *sql.Rows) error {
			return row(rows, want)
		})
		if err != nil {
			return fmt.Errorf("load embeddings: %w", err)
		}
		return nil
	}
	seen := map[string]bool{}
	const part = 500
	for i := 0; i < len(hashes); i += part {
		var args []any
		args = append(args, model)
		for _, h := range hashes[i:min(i+part, len(hashes))] {
			if !seen[h] {
				seen[h] = true
				args = append(args, h)
			}
		}
		if len(args) == 1 {
			continue
		}
		err := eachRow(ctx, s.db.rd(), `SELECT text_hash, vec FROM embeddings WHERE model = ? AND text_hash IN (`+
			placeholders(len(args)-1)+`)`, args, func(rows *sql.Rows) error { return row(rows, nil) })
		if err != nil {
			return fmt.Errorf("load embeddings: %w", err)
		}
	}
	return nil
}

// embeddedAmongByScan is EmbeddedAmong for a look-up of most of model's
// cached hashes (a server's first refresh asks for every concept's: a
// million, 2,000 queries of 500): one scan of the (model, text_hash)
// index instead. ok is false when the look-up is too small for it.
func (s *SemanticIndex) embeddedAmongByScan(ctx context.Context, model string, hashes []string) (out map[string]bool, ok bool, err error) {
	if len(hashes) <= 2000 {
		return nil, false, nil
	}
	var stored int
	if err := s.db.rd().QueryRowContext(ctx, `SELECT COUNT(*) FROM embeddings WHERE model = ?`, model).Scan(&stored); err != nil {
		return nil, false, fmt.Errorf("count embeddings: %w", err)
	}
	if 2*len(hashes) < stored {
		return nil, false, nil
	}
	sorted := slices.Clone(hashes)
	slices.Sort(sorted)
	out = map[string]bool{}
	err = eachRow(ctx, s.db.rd(), `SELECT text_hash FROM embeddings WHERE model = ?`, []any{model}, func(rows *sql.Rows) error {
		var h string
		if err := rows.Scan(&h); err != nil {
			return err
		}
		if _, found := slices.BinarySearch(sorted, h); found {
			out[h] = true
		}
		return nil
	})
	if err != nil {
		return nil, false, fmt.Errorf("look up cached embeddings: %w", err)
	}
	return out, true, nil
}
