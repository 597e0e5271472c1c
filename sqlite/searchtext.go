package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"sort"

	"github.com/noema-mem/noema/search"
)

// SearchText returns the best q.Limit notes matching q.Match or q.Bonus
// that q.Filter admits: the notes matching q.All (every term) first, then
// by bm25() with q.Weights (title, body, cjk), then by path.
//
// FTS5 computes bm25() for every note an expression matches, with no top-k
// pruning, so the cost is in how many notes each query walks and what it
// checks on each. Three things keep that down, each exact:
//
//   - bm25() is a sum over the phrases of the MATCH expression, so a
//     note's score under "q.Match OR q.Bonus" is its bm25 under q.Match
//     plus its bm25 under q.Bonus. The bonus (an exact phrase, a NEAR group)
//     is queried apart, walking only the notes where its terms meet instead
//     of checking positions on every note that holds one term: as
//     "(q.Bonus) AND (q.Match)", which scores the sum, and "(q.Bonus) NOT
//     (q.Match)", the bonus alone. A note the bonus does not touch keeps
//     its q.Match score, so it cannot overtake the notes it finds.
//   - Whether a note holds every term is one FTS5 AND query (an
//     intersection of doclists), looked up per note, not a subquery per
//     term.
//   - The ranking runs on the FTS table alone; only the kept rows are
//     joined to their notes.
func (db *DB) SearchText(ctx context.Context, q search.TextQuery) ([]search.TextHit, error) {
	if (q.Match == "" && q.Bonus == "") || q.Limit <= 0 {
		return nil, nil
	}
	t := &textSearch{db: db, q: q, byID: map[int64]*textRank{}}
	if !q.Filter.IsZero() {
		where, args := searchWhere(q.Filter)
		t.filter, t.fargs = " AND rowid IN (SELECT n.id FROM notes n WHERE "+where+")", args
	}
	if err := t.terms(ctx); err != nil {
		return nil, fmt.Errorf("search text: %w", err)
	}
	if err := t.bonus(ctx); err != nil {
		return nil, fmt.Errorf("search text bonus: %w", err)
	}
	return t.hits(ctx)
}

// textSearch is one SearchText call.
type textSearch struct {
	db     *DB
	q      search.TextQuery
	filter string // SQL condition on rowid, "" for none
	fargs  []any
	byID   map[int64]*textRank
	list   []*textRank
}

// textRank is a note found, with its score and tier.
type textRank struct {
	id    int64
	score float64
	every bool
}

// keep adds a note found.
func (t *textSearch) keep(id int64, score float64, every bool) {
	r := &textRank{id: id, score: score, every: every}
	t.byID[id] = r
	t.list = append(t.list, r)
}

// rank runs one ranking query over the notes matching expr: rowid, bm25
// and whether the note holds every term (matches q.All; with one term,
// every note does); tail orders and limits.
func (t *textSearch) rank(ctx context.Context, expr, tail string, tailArgs []any, add func(id int64, score float64, every bool)) error {
	args := []any{t.q.Weights[0], t.q.Weights[1], t.q.Weights[2]}
	every := "1"
	if t.q.All != "" {
		every = "(rowid IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?))"
		args = append(args, t.q.All)
	}
	args = append(args, expr)
	args = append(args, t.fargs...)
	args = append(args, tailArgs...)
	return eachRow(ctx, t.db.rd(), `SELECT rowid, bm25(notes_fts, ?, ?, ?) AS score, `+every+` AS every FROM notes_fts
		WHERE notes_fts MATCH ?`+t.filter+tail, args, func(r *sql.Rows) error {
		var id int64
		var score float64
		var all bool
		if err := r.Scan(&id, &score, &all); err != nil {
			return err
		}
		add(id, score, all)
		return nil
	})
}

// terms ranks the notes matching q.Match: by tier, then score. (Finding
// the tier apart, by the AND of the terms, and ranking by score alone was
// tried: no faster at 100,000 notes, the tier's notes beyond the cut
// needing a third query as often as not.)
func (t *textSearch) terms(ctx context.Context) error {
	if t.q.Match == "" {
		return nil
	}
	return t.rank(ctx, t.q.Match, ` ORDER BY every DESC, score, rowid LIMIT ?`, []any{t.q.Limit}, t.keep)
}

// bonus adds the phrase and proximity bonus: a note with both the bonus
// and a term scores bm25 over the phrases of both, the sum searched for
// (the bonus AND the terms); one with the bonus and no term scores the
// bonus alone.
func (t *textSearch) bonus(ctx context.Context) error {
	q := t.q
	if q.Bonus == "" {
		return nil
	}
	total := func(id int64, score float64, every bool) {
		if r, ok := t.byID[id]; ok {
			r.score = score
			return
		}
		t.keep(id, score, every)
	}
	exprs := []string{q.Bonus}
	if q.Match != "" {
		exprs = []string{"(" + q.Bonus + ") AND (" + q.Match + ")", "(" + q.Bonus + ") NOT (" + q.Match + ")"}
	}
	for _, e := range exprs {
		if err := t.rank(ctx, e, "", nil, total); err != nil {
			return err
		}
	}
	return nil
}

// hits joins the kept notes to their rows and returns the best q.Limit.
func (t *textSearch) hits(ctx context.Context) ([]search.TextHit, error) {
	ids := make([]int64, len(t.list))
	for i, r := range t.list {
		ids[i] = r.id
	}
	notes, err := t.db.SearchNotes(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := make([]search.TextHit, 0, len(t.list))
	for _, r := range t.list {
		if n, ok := notes[r.id]; ok {
			out = append(out, search.TextHit{ID: r.id, All: r.every, BM25: r.score, Note: n})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.All != b.All {
			return a.All
		}
		if a.BM25 != b.BM25 {
			return a.BM25 < b.BM25
		}
		return a.Note.Path < b.Note.Path
	})
	return out[:min(len(out), t.q.Limit)], nil
}
