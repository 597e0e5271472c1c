package sqlite

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/noema-mem/noema"
)

// SearchText returns the best q.Limit notes matching q.Match or q.Bonus
// that q.Filter admits: the notes matching q.All (every term) first, then
// by bm25() with q.Weights (title, body, cjk), then by path.
//
// FTS5 computes bm25() for every note an expression matches, with no top-k
// pruning, so the cost is in how many notes each query walks and what it
// checks on each. These keep that down, each exact:
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
//   - With q.Together (rare terms) the bonus is not queried over the
//     notes holding some term: "q.Match OR q.Bonus" is ranked at once, or,
//     when the bonus holds every term (q.BonusHoldsAll), q.Match is ranked
//     with the every-term flag and the bonus scored on that tier only,
//     when there is one (two rare words seldom meet).
//   - With q.EveryFirst the notes holding every term are ranked alone
//     first; when they fill q.Limit, the notes holding some terms (most of
//     the index for two common words) are never scored. With
//     q.BonusHoldsAll the bonus notes hold every term: one query finds
//     them, with no tier lookup.
//   - The ranking runs on the FTS table alone; only the kept rows are
//     joined to their notes. Where one query ranks (q.Together, or no
//     bonus), that join is part of the same statement (the ranking is
//     materialised with its LIMIT, then joined): a rare word costs one
//     statement, as in plain FTS5.
func (s *SearchIndex) SearchText(ctx context.Context, q noema.TextQuery) ([]noema.TextHit, error) {
	if (q.Match == "" && q.Bonus == "") || q.Limit <= 0 {
		return nil, nil
	}
	if q.Versions != nil {
		*q.Versions = noema.IndexVersions{}
	}
	t := &textSearch{idx: s, q: q, byID: map[int64]*textRank{}}
	if !q.Filter.IsZero() {
		where, args := searchWhere(q.Filter)
		t.filter, t.fargs = " AND rowid IN (SELECT n.id FROM notes n WHERE "+where+")", args
	}
	if len(q.Terms) >= 2 && len(q.Terms) <= 64 && (q.Bonus == "" || q.BonusHoldsAll) {
		if err := t.perTerm(ctx); err != nil {
			return nil, fmt.Errorf("search text: %w", err)
		}
		return t.hits(ctx)
	}
	if q.Together && q.Match != "" && q.Bonus != "" {
		if err := t.together(ctx); err != nil {
			return nil, fmt.Errorf("search text: %w", err)
		}
		return t.hits(ctx)
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
	idx    *SearchIndex
	q      noema.TextQuery
	filter string // SQL condition on rowid, "" for none
	fargs  []any
	byID   map[int64]*textRank
	list   []*textRank
}

// textRank is a note found, with its score and tier, and its row when the
// ranking joined it (joined).
type textRank struct {
	id     int64
	score  float64
	every  bool
	joined bool
	note   noema.SearchNote
	// body is the note's body when the ranking read it (hasBody).
	body    string
	hasBody bool
	// holds and inBody are, ranked per term (TextQuery.Terms: termsRead),
	// the terms the note holds, and those its body holds, a bit each; a
	// row of that ranking is the note under one term (term), which
	// mergeTerms adds up.
	holds, inBody uint64
	termsRead     bool
	term          int
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
	every, everyArgs := t.everySQL()
	return t.rankAs(ctx, expr, every, everyArgs, tail, tailArgs, add)
}

// together ranks "q.Match OR q.Bonus" (q.Match without a bonus) as one
// expression, joined to the notes' rows (TextQuery.Together). When the
// bonus holds every term (BonusHoldsAll) it is ranked apart first
// (togetherApart).
func (t *textSearch) together(ctx context.Context) error {
	every, everyArgs := t.everySQL()
	if t.q.BonusHoldsAll && t.q.Bonus != "" && t.q.All != "" && t.q.Match != "" {
		done, err := t.togetherApart(ctx, every, everyArgs)
		if done || err != nil {
			return err
		}
		t.byID, t.list = map[int64]*textRank{}, nil
	}
	expr := t.q.Match
	if t.q.Bonus != "" {
		expr = "(" + t.q.Match + ") OR " + t.q.Bonus
	}
	return t.rankJoined(ctx, expr, every, everyArgs, t.q.Limit, t.q.Few)
}

// togetherApart is Together's ranking with a bonus that holds every term,
// without the bonus in the ranking statement: the bonus's phrases (an
// exact phrase and a NEAR group, each term looked up again in every
// segment and each phrase's notes counted for its IDF) made two rare
// words' statement at 100,000 notes, where they find 200-400 notes,
// 1.6-2 times as slow (docs/search.md, Speed round 10).
//
// q.Match is ranked with its every-term flag, joined, as Together's
// statement ranks. The bonus adds to the score of the notes it matches
// only, and those hold every term: they are the every-term tier, ranked
// first, and the notes below it are ranked and cut exactly as with the
// bonus. When no note holds every term that is the answer (two rare words
// seldom meet). Else, when the whole tier is among the notes ranked (fewer
// than q.Limit) and among the best q.Bodies (whose bodies the statement
// read), "q.All OR q.Bonus" scores the tier's notes over the same phrases
// as "q.Match OR q.Bonus" (q.All's terms are q.Match's, in the same order;
// perTerm relies on the same): their scores with the bonus, reordering
// them within the tier only. Otherwise done is false, and Together's one
// statement ranks.
func (t *textSearch) togetherApart(ctx context.Context, every string, everyArgs []any) (done bool, err error) {
	if err := t.rankJoined(ctx, t.q.Match, every, everyArgs, t.q.Limit, t.q.Few); err != nil {
		return false, err
	}
	tier := 0
	for _, r := range t.list {
		if r.every {
			tier++
		}
	}
	if tier == 0 {
		return true, nil
	}
	if tier >= t.q.Limit || (t.q.Bodies > 0 && tier > t.q.Bodies) {
		return false, nil
	}
	err = t.scoreTier(ctx)
	return err == nil, err
}

// perTerm ranks each of q.Terms on its own, in one statement (a UNION ALL
// of one ranking a term, each row carrying its term), with no order or
// limit, and adds up in Go what each note scores under each term. bm25()
// is a sum over the expression's phrases in their order, and a phrase a
// note does not hold adds exactly 0 to it: so each note's sum, taken in
// the terms' order (mergeTerms), is its score under q.Match, which is
// their OR, bit for bit. The rows tell which terms each note holds: the
// notes found under every term are the every-term tier (no lookup of
// q.All), and a second bm25() of each row, weighing the body columns
// only, tells which terms the body holds (TextHit.BodyTerms: the passage
// lift needs no body for a note whose body holds one). The bonus
// (BonusHoldsAll) adds to the tier only: scoreTier, when there is one.
//
// On two rare words at 100,000 notes (~170 notes each) the statement took
// 365 µs where Together's, with its every-term lookup and its sort,
// took 514 (docs/search.md, Speed round 12).
func (t *textSearch) perTerm(ctx context.Context) error {
	q := t.q
	branches := make([]string, len(q.Terms))
	var args []any
	for i, term := range q.Terms {
		branches[i] = `SELECT rowid, bm25(notes_fts, ?, ?, ?) AS score, ` + strconv.Itoa(i) + ` AS every, bm25(notes_fts, 0, 1, 1) AS inbody FROM notes_fts
		WHERE notes_fts MATCH ?` + t.filter
		args = append(args, q.Weights[0], q.Weights[1], q.Weights[2], term)
		args = append(args, t.fargs...)
	}
	rq := rankedSQL{sql: strings.Join(branches, `
		UNION ALL `), terms: len(q.Terms), limit: q.Limit, tierMoves: q.Bonus != ""}
	if err := t.rankVersioned(ctx, rq, "r.every", "NULL", "", args); err != nil || q.Bonus == "" {
		return err
	}
	for _, r := range t.list {
		if r.every {
			return t.scoreTier(ctx)
		}
	}
	return nil
}

// mergeTerms makes one rank a note of a per-term ranking's rows (one a
// term the note holds): its score the sum of its scores in the terms'
// order (the rows sorted by term first), as FTS5 sums a note's phrases,
// its terms and its body's a bit each, of the every-term tier when it
// holds all n; and how many are.
func mergeTerms(rows []*textRank, n int) (merged []*textRank, tier int) {
	slices.SortFunc(rows, func(a, b *textRank) int { return cmp.Compare(a.term, b.term) })
	byID := make(map[int64]*textRank, len(rows))
	out := rows[:0:0]
	for _, r := range rows {
		if first, ok := byID[r.id]; ok {
			first.score += r.score
			first.holds |= r.holds
			first.inBody |= r.inBody
			continue
		}
		byID[r.id] = r
		out = append(out, r)
	}
	all := uint64(1)<<n - 1
	for _, r := range out {
		if r.every = r.holds == all; r.every {
			tier++
		}
	}
	return out, tier
}

// scoreTier scores the notes holding every term over the phrases of
// "q.Match OR q.Bonus" — as "q.All OR q.Bonus", whose phrases are the same
// in the same order, so each score is the one Together's expression gives
// — and marks them of the every-term tier: the notes found already get
// their score and tier, the others (written since they were ranked) are
// added.
func (t *textSearch) scoreTier(ctx context.Context) error {
	expr := "(" + t.q.All + ")"
	if t.q.Bonus != "" {
		expr += " OR " + t.q.Bonus
	}
	return t.rankAs(ctx, expr, "1", nil, "", nil, func(id int64, score float64, _ bool) {
		if r, ok := t.byID[id]; ok {
			r.score, r.every = score, true
			return
		}
		t.keep(id, score, true)
	})
}

// rankJoined ranks the notes matching expr (by tier — the SQL every, with
// its arguments — then score, limit of them) and joins them to their rows
// in the same statement.
//
// With q.Versions it reads the index's text version and the concept
// registry's there too (a statement apart took as long as the join); and
// when the DB keeps the notes' rows in memory (KeepNoteRows), the graph
// log's position instead of joining the rows: those kept, brought up to
// that position when they are behind, are the rows the join would read.
//
// With q.Bodies, the best q.Bodies notes' bodies come along: every note's
// when limit is at most q.Bodies, else those numbered up to q.Bodies in
// the ranking's order by row_number() (which costs a sort). Bodies are
// read from the FTS5 table's content table by rowid (a B-tree seek;
// through the virtual table it took twice as long), joined as the version
// is (a LEFT JOIN, not a scalar subquery per row: a tenth less for two
// rare words' statement at 10,000 notes).
//
// few says the notes found are expected to be at most limit
// (TextQuery.Few): the statement reading the versions may then read them
// unsorted (rankVersioned, rankedSQL).
//
// Limits are written into the SQL: a LIMIT bound as a parameter makes
// SQLite prepare the statement a second time at its first step.
func (t *textSearch) rankJoined(ctx context.Context, expr, every string, everyArgs []any, limit int, few bool) error {
	args := t.rankArgs(expr, everyArgs, nil)
	ranked, body, bodyOn := t.rankSQL(every, rankOrder+strconv.Itoa(limit)), "NULL", ""
	switch b := t.q.Bodies; {
	case b <= 0:
	case limit <= b:
		body, bodyOn = "b.c1", `
		LEFT JOIN notes_fts_content b ON b.id = r.rowid`
	default:
		// The key is NULL past the best b: SQLite then skips the seek
		// (with "AND r.rn <= b" in the ON clause it seeks first, for
		// every ranked note, and tests rn after).
		ranked = `SELECT rowid, score, every, row_number() OVER (ORDER BY every DESC, score, rowid) AS rn FROM (` + ranked + `)`
		body, bodyOn = "b.c1", `
		LEFT JOIN notes_fts_content b ON b.id = CASE WHEN r.rn <= `+strconv.Itoa(b)+` THEN r.rowid END`
	}
	if t.q.Versions == nil {
		return t.rankJoinedRows(ctx, ranked, body, bodyOn, args)
	}
	sorted := rankedSQL{sql: ranked}
	if few && (t.q.Bodies <= 0 || limit <= t.q.Bodies) {
		sorted.unsorted, sorted.limit = t.rankSQL(every, ""), limit
	}
	return t.rankVersioned(ctx, sorted, every, body, bodyOn, args)
}

// tierFirst compares two notes' tiers for slices.SortFunc: the note
// holding every term first.
func tierFirst(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// rankedSQL is the SQL of a ranking with its order and limit, and, when
// unsorted is not "", the same ranking without them: the notes it finds
// are then sorted and cut to limit in Go (rankVersioned).
//
// terms, when not 0, says sql is a per-term ranking of that many terms
// (perTerm): its every column is the row's term, its inbody column the
// row's bm25 over the body columns, and a note's rows are merged
// (mergeTerms) before the notes are sorted and cut to limit in Go —
// unless tierMoves (a bonus will add to the every-term tier's scores) and
// the tier is more than limit: the cut keeps the whole tier, ranked first,
// and the order of the notes below it, which a bonus does not touch.
type rankedSQL struct {
	sql, unsorted string
	limit         int
	terms         int
	tierMoves     bool
}

// cut sorts ranks as the ranking's ORDER BY does (tier, score, rowid) and
// keeps the first limit.
func cut(ranks []*textRank, limit int) []*textRank {
	if len(ranks) <= limit {
		return ranks
	}
	slices.SortFunc(ranks, func(a, b *textRank) int {
		return cmp.Or(tierFirst(a.every, b.every), cmp.Compare(a.score, b.score), cmp.Compare(a.id, b.id))
	})
	return ranks[:limit]
}

// rankJoinedRows runs rankJoined's statement without the versions: the
// ranked notes joined to their rows.
func (t *textSearch) rankJoinedRows(ctx context.Context, ranked, body, bodyOn string, args []any) error {
	return eachRow(ctx, t.idx.db.rdKept(), `SELECT r.rowid, r.score, r.every, `+body+`, `+searchNoteColumns+` FROM (`+ranked+`) r
		JOIN notes n ON n.id = r.rowid LEFT JOIN access a ON a.path = n.path`+bodyOn, args, func(r *sql.Rows) error {
		var id int64
		var score float64
		var all bool
		var n noema.SearchNote
		var mod, acc int64
		var b sql.NullString
		if err := r.Scan(&id, &score, &all, &b, &n.ID, &n.Path, &n.Title, &mod, &acc); err != nil {
			return err
		}
		n.Modified, n.Accessed = noteTimes(mod, acc)
		rk := &textRank{id: id, score: score, every: all, joined: true, note: n, body: b.String, hasBody: b.Valid}
		t.byID[id] = rk
		t.list = append(t.list, rk)
		return nil
	})
}

// rankVersioned runs rankJoined's statement reading the versions: the
// text version and the concept registry's (and, with the note rows kept
// in memory, the graph log's position) in a row of their own ahead of the
// ranked notes' (a UNION ALL, its first column NULL, the versions one
// text column), not as columns of every row; and the ranked rows carry
// only what varies — the tier column not when every is a constant, the
// body not when none is read.
// Each column of each row is a call into SQLite and a conversion in Go:
// two rare words' statement (30-40 notes) took a sixth more with the
// versions and the tier on every row (docs/search.md, Speed round 9).
//
// With the note rows kept in memory, a ranking it may read unsorted
// (ranked.unsorted) is read so and sorted in Go: at 100,000 notes, a
// rare word's ~200 notes cost a sixth less than through SQLite's sorter
// (docs/search.md, Speed round 11). Where SQL joins the rows, it keeps
// its order and limit, which come before the join.
func (t *textSearch) rankVersioned(ctx context.Context, rq rankedSQL, every, body, bodyOn string, args []any) (err error) {
	versions := t.q.Versions
	// With the versions, the note rows kept in memory (searchrows.go)
	// stand for the join when they are of the log position the statement
	// reads beside them.
	var kept *noteRows
	if versions != nil {
		if kept, err = t.idx.db.keptNoteRows(ctx); err != nil {
			return err
		}
	}
	seqSQL := "0"
	if kept != nil {
		seqSQL = "COALESCE((SELECT MAX(seq) FROM graph_log), 0)"
	}
	cols := []string{"r.rowid", "r.score"}
	constEvery, everyCol := every == "0" || every == "1", -1
	if !constEvery {
		everyCol = len(cols)
		cols = append(cols, "r.every")
	}
	bodyCol := -1
	if body != "NULL" {
		bodyCol = len(cols)
		cols = append(cols, body)
	}
	inBodyCol := -1
	if rq.terms > 0 {
		inBodyCol = len(cols)
		cols = append(cols, "r.inbody")
	}
	ranked, limit := rq.sql, 0
	switch {
	case rq.terms > 0:
		limit = rq.limit
	case rq.unsorted != "" && kept != nil:
		ranked, limit = rq.unsorted, rq.limit
	}
	noteCol, from := -1, `(`+ranked+`) r`
	if kept == nil {
		noteCol = len(cols)
		cols = append(cols, "n.path", "n.title", "n.modified_ns", "COALESCE(a.accessed_ns, 0)")
		from += `
		JOIN notes n ON n.id = r.rowid LEFT JOIN access a ON a.path = n.path`
	}
	// The versions in one text column ("text seq concepts"): a ranked
	// row has as many columns as the head, and one rare word's would
	// otherwise carry two NULLs each (at 100,000 notes 200 rows).
	head := []string{"NULL", "v.t || ' ' || v.g || ' ' || v.c"}
	for len(cols) < len(head) {
		cols = append(cols, "NULL")
	}
	for len(head) < len(cols) {
		head = append(head, "NULL")
	}
	query := `SELECT ` + strings.Join(head, ", ") + ` FROM (SELECT
			COALESCE((SELECT text_version FROM search_state WHERE id = 1), -1) AS t,
			COALESCE((SELECT value FROM meta WHERE key = '` + ConceptsVersionKey + `'), '') AS c,
			` + seqSQL + ` AS g) v
		UNION ALL
		SELECT ` + strings.Join(cols, ", ") + ` FROM ` + from + bodyOn
	var concepts string
	var textVersion int64
	var seq int64
	read := false // the versions' row
	var ranks []*textRank
	vals := make([]any, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	err = eachRow(ctx, t.idx.db.rdKept(), query, args, func(r *sql.Rows) error {
		if err := r.Scan(dest...); err != nil {
			return err
		}
		if vals[0] == nil {
			read = true
			var err error
			textVersion, seq, concepts, err = parseVersions(asString(vals[1]))
			return err
		}
		rk := &textRank{id: asInt64(vals[0]), joined: true, every: every == "1"}
		score, ok := vals[1].(float64)
		if !ok {
			return fmt.Errorf("bm25 of note %d is %T, not a float", rk.id, vals[1])
		}
		rk.score = score
		switch {
		case inBodyCol >= 0:
			rk.term = int(asInt64(vals[everyCol]))
			rk.holds, rk.termsRead = 1<<rk.term, true
			if b, _ := vals[inBodyCol].(float64); b != 0 {
				rk.inBody = rk.holds
			}
		case everyCol >= 0:
			rk.every = asInt64(vals[everyCol]) != 0
		}
		if bodyCol >= 0 && vals[bodyCol] != nil {
			rk.body, rk.hasBody = asString(vals[bodyCol]), true
		}
		if noteCol >= 0 {
			v := vals[noteCol:]
			rk.note = noema.SearchNote{ID: rk.id, Path: asString(v[0]), Title: asString(v[1])}
			rk.note.Modified, rk.note.Accessed = noteTimes(asInt64(v[2]), asInt64(v[3]))
		}
		ranks = append(ranks, rk)
		return nil
	})
	if err == nil && !read {
		err = errors.New("the versions' row is missing")
	}
	if rq.terms > 0 {
		var tier int
		ranks, tier = mergeTerms(ranks, rq.terms)
		if rq.tierMoves && tier > limit {
			limit = 0
		}
	}
	if limit > 0 {
		ranks = cut(ranks, limit)
	}
	if err == nil && kept != nil && len(ranks) > 0 && seq != kept.seq {
		kept, err = t.idx.db.currentNoteRows(ctx, seq)
	}
	if err == nil {
		for _, rk := range ranks {
			if kept != nil {
				var ok bool
				if rk.note, ok = kept.get(rk.id); !ok {
					continue
				}
			}
			t.byID[rk.id] = rk
			t.list = append(t.list, rk)
		}
	}
	if versions != nil {
		*versions = noema.IndexVersions{Text: textVersion, Concepts: concepts, Read: err == nil}
	}
	return err
}

// parseVersions reads rankVersioned's versions column: the text
// version, the graph log's position and the concept registry's version,
// separated by spaces (the last may hold spaces of its own).
func parseVersions(s string) (text, seq int64, concepts string, err error) {
	f := strings.SplitN(s, " ", 3)
	if len(f) != 3 {
		return 0, 0, "", fmt.Errorf("the versions' row reads %q", s)
	}
	if text, err = strconv.ParseInt(f[0], 10, 64); err != nil {
		return 0, 0, "", fmt.Errorf("text version: %w", err)
	}
	if seq, err = strconv.ParseInt(f[1], 10, 64); err != nil {
		return 0, 0, "", fmt.Errorf("graph log position: %w", err)
	}
	return text, seq, f[2], nil
}

// asInt64 is an integer column's value as database/sql scanned it into
// an any (0 for NULL).
func asInt64(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	case bool:
		if x {
			return 1
		}
	}
	return 0
}

// asString is a text column's value as database/sql scanned it into an
// any ("" for NULL).
func asString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	}
	return ""
}

// bodySQL reads the indexed body of the ranked note r: notes_fts's body
// column is c1 of its content table.
const bodySQL = `SELECT b.c1 FROM notes_fts_content b WHERE b.id = r.rowid`

// rankOrder is the tail of a ranking query that keeps the best notes, the
// limit written after it: tier, score, then rowid (hits breaks ties by
// path).
const rankOrder = ` ORDER BY every DESC, score, rowid LIMIT `

// everySQL is the SQL of the every-term flag of a ranking query (with one
// term, every note holds every term), and its arguments.
func (t *textSearch) everySQL() (string, []any) {
	if t.q.All != "" {
		return "(rowid IN (SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?))", []any{t.q.All}
	}
	return "1", nil
}

// rankSQL is a ranking query over notes_fts: rowid, score (bm25 with the
// query's weights), every (the SQL given), under the filter, then tail.
func (t *textSearch) rankSQL(every, tail string) string {
	return `SELECT rowid, bm25(notes_fts, ?, ?, ?) AS score, ` + every + ` AS every FROM notes_fts
		WHERE notes_fts MATCH ?` + t.filter + tail
}

// rankArgs are the arguments of rankSQL.
func (t *textSearch) rankArgs(expr string, everyArgs, tailArgs []any) []any {
	args := []any{t.q.Weights[0], t.q.Weights[1], t.q.Weights[2]}
	args = append(args, everyArgs...)
	args = append(args, expr)
	args = append(args, t.fargs...)
	return append(args, tailArgs...)
}

// rankAs is rank with the SQL of the every-term flag given (every, with
// its arguments everyArgs).
func (t *textSearch) rankAs(ctx context.Context, expr, every string, everyArgs []any, tail string, tailArgs []any, add func(id int64, score float64, every bool)) error {
	return eachRow(ctx, t.idx.db.rdKept(), t.rankSQL(every, tail), t.rankArgs(expr, everyArgs, tailArgs), func(r *sql.Rows) error {
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

// terms ranks the notes matching q.Match: by tier, then score. With
// q.EveryFirst the every-term tier is ranked alone first (the AND of the
// terms: FTS5 walks the intersection of their doclists and computes BM25
// there only); when it fills q.Limit that is the answer, the notes holding
// only some terms being all below it. Else (and without q.EveryFirst) one
// query ranks every note matching q.Match, its tier looked up per note.
// (Finding the tier apart and ranking all of q.Match by score alone was
// tried: no faster at 100,000 notes, the tier's notes beyond the cut
// needing a third query as often as not.)
func (t *textSearch) terms(ctx context.Context) error {
	if t.q.Match == "" {
		return nil
	}
	if t.q.EveryFirst && t.q.All != "" {
		var tier []*textRank
		err := t.rankAs(ctx, t.q.All, "1", nil, ` ORDER BY score, rowid LIMIT `+strconv.Itoa(t.q.Limit), nil, func(id int64, score float64, _ bool) {
			tier = append(tier, &textRank{id: id, score: score, every: true})
		})
		if err != nil {
			return err
		}
		if len(tier) >= t.q.Limit {
			for _, r := range tier {
				t.byID[r.id] = r
			}
			t.list = tier
			return nil
		}
	}
	if t.q.Bonus == "" {
		// The answer: joined in the same statement.
		return t.together(ctx)
	}
	return t.rank(ctx, t.q.Match, rankOrder+strconv.Itoa(t.q.Limit), nil, t.keep)
}

// bonus adds the phrase and proximity bonus: a note with both the bonus
// and a term scores bm25 over the phrases of both, the sum searched for
// (the bonus AND the terms); one with the bonus and no term scores the
// bonus alone. With q.BonusHoldsAll every bonus note holds every term: the
// second query would find nothing and the tier needs no lookup.
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
	if q.BonusHoldsAll && q.Match != "" {
		return t.rankAs(ctx, "("+q.Bonus+") AND ("+q.Match+")", "1", nil, "", nil, total)
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
// Only the notes that can be among them are joined: the best q.Limit by
// tier and score, and those tied with the last of them (path breaks the
// tie). The bonus can keep thousands of notes for common words.
func (t *textSearch) hits(ctx context.Context) ([]noema.TextHit, error) {
	list := t.list
	if !slices.ContainsFunc(list, func(r *textRank) bool { return !r.joined }) {
		// Every row read already: one sort, no join.
		out := make([]noema.TextHit, len(list))
		for i, r := range list {
			out[i] = r.hit(r.note)
		}
		sortHits(out)
		return out[:min(len(out), t.q.Limit)], nil
	}
	slices.SortFunc(list, func(a, b *textRank) int {
		if c := tierFirst(a.every, b.every); c != 0 {
			return c
		}
		return cmp.Compare(a.score, b.score)
	})
	all := list
	if n := t.q.Limit; len(list) > n {
		last := list[n-1]
		for n < len(list) && list[n].every == last.every && list[n].score == last.score {
			n++
		}
		list = list[:n]
	}
	join := func(list []*textRank) (map[int64]noema.SearchNote, error) {
		notes := make(map[int64]noema.SearchNote, len(list))
		var ids []int64
		for _, r := range list {
			if r.joined {
				notes[r.id] = r.note
			} else {
				ids = append(ids, r.id)
			}
		}
		if len(ids) == 0 {
			return notes, nil
		}
		more, err := t.idx.SearchNotes(ctx, ids)
		maps.Copy(notes, more)
		return notes, err
	}
	notes, err := join(list)
	if err != nil {
		return nil, err
	}
	if len(notes) < len(list) && len(list) < len(all) {
		// A note went away since the ranking read its row (a write in
		// between): the next ones fill its place.
		list = all
		if notes, err = join(list); err != nil {
			return nil, err
		}
	}
	out := make([]noema.TextHit, 0, len(list))
	for _, r := range list {
		if n, ok := notes[r.id]; ok {
			out = append(out, r.hit(n))
		}
	}
	sortHits(out)
	return out[:min(len(out), t.q.Limit)], nil
}

// hit is the note ranked, its row n.
func (r *textRank) hit(n noema.SearchNote) noema.TextHit {
	return noema.TextHit{ID: r.id, All: r.every, BM25: r.score, Note: n, Body: r.body, HasBody: r.hasBody,
		BodyTerms: r.inBody, TermsRead: r.termsRead}
}

// sortHits sorts hits by tier, score, then path (slices.SortFunc: a third
// of sort.Slice's time for a rare word's ~200 notes, which come unsorted
// with Few).
func sortHits(hits []noema.TextHit) {
	slices.SortFunc(hits, func(a, b noema.TextHit) int {
		if c := tierFirst(a.All, b.All); c != 0 {
			return c
		}
		if a.BM25 != b.BM25 {
			return cmp.Compare(a.BM25, b.BM25)
		}
		return strings.Compare(a.Note.Path, b.Note.Path)
	})
}
