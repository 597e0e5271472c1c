package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/sqlite"
)

// TestNotesToChunkFollowsWrites runs a seeded random sequence of note
// writes and deletions, chunks stored for some of the notes returned (as
// a refresh interrupted half way leaves them), and chunks stored under
// another embedder, and checks after every step that NotesToChunk, which
// after its first call reads only what the graph log names, returns
// exactly the notes a scan of every note finds.
func TestNotesToChunkFollowsWrites(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	r := rand.New(rand.NewPCG(7, 11))
	scan := func(model string) []int64 {
		var ids []int64
		noematest.EachRow(t, db.Read(), `SELECT n.id FROM notes n LEFT JOIN note_chunk_state st ON st.note_id = n.id
			WHERE st.chunked_hash IS NULL OR st.chunked_hash != n.hash OR st.model != '`+model+`' ORDER BY n.id`, func(rows *sql.Rows) error {
			var id int64
			err := rows.Scan(&id)
			ids = append(ids, id)
			return err
		})
		return ids
	}
	todo := func(model string) ([]int64, map[int64]string) {
		var ids []int64
		hashes := map[int64]string{}
		if err := db.Semantic().NotesToChunk(ctx, model, func(id int64, _, hash string) {
			ids = append(ids, id)
			hashes[id] = hash
		}); err != nil {
			t.Fatal(err)
		}
		return ids, hashes
	}
	chunkSome := func(model string, ids []int64, hashes map[int64]string, keep func() bool) {
		var ns []noema.ChunkedNote
		for _, id := range ids {
			if keep() {
				ns = append(ns, noema.ChunkedNote{ID: id, Hash: hashes[id], Chunks: []noema.StoredChunk{{Start: 0, End: 1, TextHash: fmt.Sprint("t", id)}}})
			}
		}
		if err := db.Semantic().PutChunks(ctx, model, ns); err != nil {
			t.Fatal(err)
		}
	}
	for step := range 120 {
		switch op := r.IntN(6); {
		case op < 3:
			var recs []*sqlite.NoteRecord
			for range 1 + r.IntN(4) {
				rec := note(fmt.Sprintf("n%02d.md", r.IntN(25)), 1+r.IntN(28), "Topic")
				rec.Hash = fmt.Sprint("h", r.IntN(3))
				recs = append(recs, rec)
			}
			put(t, db, recs...)
		case op < 4:
			remove(t, db, fmt.Sprintf("n%02d.md", r.IntN(25)))
		case op < 5: // another embedder's chunks for some notes
			ids, hashes := todo("other")
			chunkSome("other", ids, hashes, func() bool { return r.IntN(3) == 0 })
		}
		ids, hashes := todo("m")
		if want := scan("m"); !slices.Equal(ids, want) {
			t.Fatalf("step %d: NotesToChunk = %v, a scan finds %v", step, ids, want)
		}
		chunkSome("m", ids, hashes, func() bool { return r.IntN(4) != 0 }) // some left over
	}
}
