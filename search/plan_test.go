package search_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/internal/corpus"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/search"
	"github.com/noema-mem/noema/sqlite"
)

// planQueries draws queries of every kind the speed benchmark times from
// the vault's own text (seeded): two common words, one or two rare words,
// a pasted paragraph, a quoted phrase, a phrase with stop words, a prefix,
// and concept labels alone and in pairs.
// strided keeps every raceStride-th query (all of them without the race
// detector; see race_test.go).
func strided(qs []string) []string {
	if raceStride == 1 {
		return qs
	}
	var out []string
	for i := 0; i < len(qs); i += raceStride {
		out = append(out, qs[i])
	}
	return out
}

func planQueries(t *testing.T, db *sqlite.DB, seed uint64) []string {
	t.Helper()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(seed, 1))
	ids := make([]int64, 200)
	for i := range ids {
		ids[i] = int64(1 + i*3)
	}
	bodies, err := db.Search().SearchBodies(ctx, ids)
	if err != nil {
		t.Fatal(err)
	}
	df := map[string]int{}
	var texts []string
	for _, id := range ids {
		body, ok := bodies[id]
		if !ok {
			continue
		}
		texts = append(texts, body)
		seen := map[string]bool{}
		for _, w := range strings.FieldsFunc(strings.ToLower(body), func(r rune) bool { return !('a' <= r && r <= 'z') }) {
			if len(w) >= 4 && !seen[w] {
				seen[w] = true
				df[w]++
			}
		}
	}
	var words []string
	for w := range df {
		words = append(words, w)
	}
	sort.Slice(words, func(i, j int) bool {
		return df[words[i]] > df[words[j]] || df[words[i]] == df[words[j]] && words[i] < words[j]
	})
	common := words[:min(30, len(words))]
	var rare []string
	for _, w := range words {
		if df[w] <= 2 {
			rare = append(rare, w)
		}
	}
	if len(common) < 10 || len(rare) < 20 || len(texts) < 20 {
		t.Fatalf("plan queries: %d common words, %d rare, %d bodies", len(common), len(rare), len(texts))
	}
	pick := func(ws []string) string { return ws[rng.IntN(len(ws))] }
	// run returns n consecutive words of a body.
	run := func(n int) string {
		f := strings.Fields(pick(texts))
		if len(f) <= n {
			return strings.Join(f, " ")
		}
		i := rng.IntN(len(f) - n)
		return strings.Join(f[i:i+n], " ")
	}
	var qs []string
	for range 6 {
		qs = append(qs,
			pick(common)+" "+pick(common),
			pick(common)+" "+pick(common)+" "+pick(common),
			pick(rare),
			pick(rare)+" "+pick(rare),
			pick(rare)+" "+pick(common),
			run(3),
			`"`+run(2)+`"`,
			"the "+pick(common)+" of "+pick(common),
			pick(common)[:3]+"* "+pick(common),
		)
	}
	for range 3 {
		body := pick(texts)
		i := rng.IntN(max(1, len(body)-900))
		qs = append(qs, body[i:min(len(body), i+400+rng.IntN(500))])
	}
	noematest.EachRow(t, db.Read(), `SELECT label FROM concepts ORDER BY id LIMIT 8`, func(r *sql.Rows) error {
		var l string
		if err := r.Scan(&l); err != nil {
			return err
		}
		qs = append(qs, l, l+" "+pick(common))
		return nil
	})
	return qs
}

// sameText fails unless got and want agree hit by hit on tier and score
// (1e-9) and hold the same notes, leaving out those tied with the last
// hit (which of them a limit keeps is a tie-break).
func sameText(t *testing.T, label string, got, want []noema.TextHit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d hits, reference %d", label, len(got), len(want))
	}
	if len(want) == 0 {
		return
	}
	near := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
	last := want[len(want)-1]
	ids := map[int64]int{}
	for i := range got {
		g, w := got[i], want[i]
		if g.All != w.All || !near(g.BM25, w.BM25) {
			t.Fatalf("%s, hit %d: %s all=%v %.12f, reference %s all=%v %.12f", label, i, g.Note.Path, g.All, g.BM25, w.Note.Path, w.All, w.BM25)
		}
		for _, h := range []noema.TextHit{g, w} {
			if h.All != last.All || !near(h.BM25, last.BM25) {
				ids[h.ID]++
			}
		}
	}
	for id, n := range ids {
		if n != 2 {
			t.Fatalf("%s: note %d is among the hits of only one way", label, id)
		}
	}
}

// TestTextPlansAreExact checks every way SearchText can rank a query
// (TextQuery.EveryFirst: the every-term tier alone first;
// TextQuery.Together: terms and bonus in one expression; TextQuery.Terms:
// each term on its own;
// TextQuery.BonusHoldsAll: the bonus notes found by one query, with no tier
// lookup) against one plain FTS5 query of "terms OR bonus" ordered by tier
// and BM25, hit by hit and score by score, on a generated vault and many
// seeded queries of every kind: common words, rare words, pasted
// paragraphs, phrases, prefixes, labels; at limits that the every-term
// tier fills and that it does not.
func TestTextPlansAreExact(t *testing.T) {
	db := noematest.SyncedCorpus(t, corpus.Options{Seed: 19, Notes: 400})
	ctx := context.Background()
	queries := strided(planQueries(t, db, 19))
	compared, everyFilled, apart, met, tierApart := 0, 0, 0, 0, 0
	for _, q := range queries {
		for _, limit := range []int{5, search.Depth} {
			base := search.TextQueryOf(q, limit)
			if base.Match == "" {
				continue
			}
			ref := base.Match
			if base.Bonus != "" {
				ref = "(" + base.Match + ") OR " + base.Bonus
			}
			want := referenceText(t, db, ref, base.All, limit)
			if base.All != "" && len(want) == limit && want[limit-1].All {
				everyFilled++
			}
			// Together ranks in one query whatever the other flags say;
			// with BonusHoldsAll it ranks the terms first and the bonus
			// of the every-term tier apart.
			for _, mask := range []int{0, 1, 2, 4, 5, 6, 7} {
				tq := base
				tq.EveryFirst = mask&1 != 0
				tq.Together = mask&2 != 0
				tq.BonusHoldsAll = base.BonusHoldsAll && mask&4 != 0
				got, err := db.Search().SearchText(ctx, tq)
				if err != nil {
					t.Fatalf("%q: %v", q, err)
				}
				sameText(t, fmt.Sprintf("%q limit %d, every first %v, together %v, bonus holds all %v", q, limit, tq.EveryFirst, tq.Together, tq.BonusHoldsAll), got, want)
				compared++
				if tq.Together && tq.BonusHoldsAll && every(want) && !want[len(want)-1].All {
					tierApart++
				}
			}
			// Each term ranked on its own (TextQuery.Terms), the every-term
			// tier found from the rows: where no note holds two terms and
			// where some do.
			if base.All == "" || (base.Bonus != "" && !base.BonusHoldsAll) {
				continue
			}
			tq := base
			tq.Terms = search.TermExprs(q)
			got, err := db.Search().SearchText(ctx, tq)
			if err != nil {
				t.Fatalf("%q: %v", q, err)
			}
			sameText(t, fmt.Sprintf("%q limit %d, per term", q, limit), got, want)
			compared++
			if len(want) > 0 && want[0].All {
				met++
			} else {
				apart++
			}
		}
	}
	if compared < 600/raceStride || everyFilled < 15/raceStride || apart < 10/raceStride || met < 10/raceStride || tierApart < 10/raceStride {
		t.Errorf("compared %d rankings, %d with the every-term tier filling the limit, %d per term with terms apart, %d with terms meeting and %d together with the tier's bonus apart: too few to tell", compared, everyFilled, apart, met, tierApart)
	}
	t.Logf("compared %d rankings, %d with the every-term tier filling the limit, %d per term with terms apart, %d with terms meeting and %d together with the tier's bonus apart", compared, everyFilled, apart, met, tierApart)
}

// every reports whether some hit holds every term.
func every(hits []noema.TextHit) bool {
	for _, h := range hits {
		if h.All {
			return true
		}
	}
	return false
}

// TestBonusHoldsAll checks TextQuery.BonusHoldsAll, which SearchText
// trusts, where it is claimed: every note the bonus matches holds every
// term of the query.
func TestBonusHoldsAll(t *testing.T) {
	db := noematest.SyncedCorpus(t, corpus.Options{Seed: 23, Notes: 300})
	queries := append(planQueries(t, db, 23), "the data* of it", "to be or not to be", "東京 tower visit", "東京 the tower", "gamma* delta epsilon")
	claimed := 0
	for _, q := range queries {
		tq := search.TextQueryOf(q, 10)
		if !tq.BonusHoldsAll {
			continue
		}
		claimed++
		all := tq.All
		if all == "" {
			all = tq.Match
		}
		var n int
		noematest.EachRow(t, db.Read(), `SELECT COUNT(*) FROM notes_fts WHERE notes_fts MATCH '(`+strings.ReplaceAll(tq.Bonus, "'", "''")+`) NOT (`+strings.ReplaceAll(all, "'", "''")+`)'`, func(r *sql.Rows) error {
			return r.Scan(&n)
		})
		if n != 0 {
			t.Errorf("%q: %d notes match the bonus without every term", q, n)
		}
	}
	if claimed < 40 {
		t.Errorf("only %d queries claim it", claimed)
	}
	// The phrase leaves out a CJK term; the NEAR group leaves out CJK and
	// prefix terms.
	for _, q := range []string{"東京 tower visit", "東京 the tower", "gamma* delta epsilon"} {
		if search.TextQueryOf(q, 10).BonusHoldsAll {
			t.Errorf("%q: claims the bonus holds every term; it leaves a term out", q)
		}
	}
	if !search.TextQueryOf("the data* of it", 10).BonusHoldsAll {
		t.Errorf("%q: the phrase holds the prefix term, yet BonusHoldsAll is false", "the data* of it")
	}
}

// TestTextPlansRankAsBefore checks, through the service (passage lift,
// soft every-term tier, scores relative to the best), that choosing the
// SearchText plan by term counts changes no hit and no score: the same
// queries searched with and without the plans, in hybrid mode (full
// text, its passage lift and the concept lift; no embedder).
// TestPerTermLift adds the words on which the index and the snippets'
// matcher disagree, which the generated corpus does not have.
func TestTextPlansRankAsBefore(t *testing.T) {
	a, _ := noematest.SyncedApp(t, corpus.Options{Seed: 29, Notes: 400}, app.Options{})
	svc := search.New(a.DB.Search(), nil, decay.DefaultConfig())
	ctx := context.Background()
	queries := strided(planQueries(t, a.DB, 29))
	off := false
	run := func(plans string) [][]search.Hit {
		old := search.SetTextPlans(plans)
		defer search.SetTextPlans(old)
		var out [][]search.Hit
		for _, q := range queries {
			for _, mode := range []string{search.ModeHybrid} {
				r, err := svc.Search(ctx, search.Input{Query: q, Mode: mode, Limit: 50, Decay: &off})
				if err != nil {
					t.Fatalf("%q: %v", q, err)
				}
				out = append(out, r.Hits)
			}
		}
		return out
	}
	before := run("none")
	for _, plans := range []string{"counts", "every-first", "together", "per-term"} {
		after := run(plans)
		for i := range before {
			q := queries[i]
			b, a := before[i], after[i]
			if len(b) != len(a) {
				t.Fatalf("%q, plans %s: %d hits, %d without", q, plans, len(a), len(b))
			}
			score := map[string]float64{}
			for j := range b {
				if math.Abs(b[j].Score-a[j].Score) > 1e-6 {
					t.Fatalf("%q, plans %s, hit %d: %s %.6f, without %s %.6f", q, plans, j, a[j].URI, a[j].Score, b[j].URI, b[j].Score)
				}
				score[b[j].URI] = b[j].Score
			}
			// Notes tied (within rounding) may swap; a note only one
			// way finds must be tied with the last hit, cut by the limit.
			for j := range a {
				if _, ok := score[a[j].URI]; !ok && math.Abs(a[j].Score-b[len(b)-1].Score) > 1e-6 {
					t.Fatalf("%q, plans %s: %s (%.6f) is not among the hits without", q, plans, a[j].URI, a[j].Score)
				}
			}
		}
	}
}

// countingIndex counts the index reads a search makes.
type countingIndex struct {
	noema.SearchIndex
	versions, concepts, bodies atomic.Int64
}

func (c *countingIndex) SearchTextVersion(ctx context.Context) (int64, error) {
	c.versions.Add(1)
	return c.SearchIndex.SearchTextVersion(ctx)
}

func (c *countingIndex) SearchConceptsVersion(ctx context.Context) (string, error) {
	c.concepts.Add(1)
	return c.SearchIndex.SearchConceptsVersion(ctx)
}

func (c *countingIndex) SearchBodies(ctx context.Context, ids []int64) (map[int64]string, error) {
	c.bodies.Add(1)
	return c.SearchIndex.SearchBodies(ctx, ids)
}

// TestSearchReadsOnce checks that a search reads the index's text
// version at most once, however many times it counts terms (the plan, the
// passage lift's IDF, the concept typo check), and once its terms' counts
// are cached not at all: the ranking statement reads it, and the concept
// registry's version (TextQuery.Versions), confirming the counts; and the
// bodies once: the terms are rare, so each is ranked on its own
// (TextQuery.Terms), which reads no body, and one statement reads those
// the passage lift needs (bodies holding two terms) with the page's, which
// the snippets then share. After
// a write the cached counts are stale: the search reads the version and
// answers as a new service does.
func TestSearchReadsOnce(t *testing.T) {
	e := newEnv(t)
	e.note("", "Kubernetes memory", "", nil, "Set the memory limit of each pod.\nKubernetes kills a pod over its memory limit.")
	e.note("", "Pods", "", nil, "A pod holds containers; its limit is the sum of theirs.")
	e.note("", "Memory", "", nil, "Memory is what the process uses.")
	idx := &countingIndex{SearchIndex: e.a.DB.Search()}
	svc := search.New(idx, nil, decay.DefaultConfig())
	off := false
	steps := []struct {
		mode               string
		write              bool
		versions, concepts int64
	}{
		{search.ModeFulltext, false, 1, 0}, // counts the terms
		{search.ModeHybrid, false, 0, 0},   // counted already
		{search.ModeHybrid, true, 1, 0},    // stale counts: ranks again
		{search.ModeHybrid, false, 0, 0},
	}
	for i, st := range steps {
		if st.write {
			e.note("", "More pods", "", nil, "Each pod has a memory limit and a pod may hold many containers.")
		}
		idx.versions.Store(0)
		idx.concepts.Store(0)
		idx.bodies.Store(0)
		in := search.Input{Query: "pod memory limitt", Mode: st.mode, Decay: &off}
		r, err := svc.Search(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Hits) < 2 {
			t.Fatalf("step %d, %s: %d hits, want at least 2", i, st.mode, len(r.Hits))
		}
		if v, c, b := idx.versions.Load(), idx.concepts.Load(), idx.bodies.Load(); v != st.versions || c != st.concepts || b != 1 {
			t.Errorf("step %d, %s: read the text version %d times, the concepts' %d and bodies %d times apart from the ranking, want %d, %d and 1", i, st.mode, v, c, b, st.versions, st.concepts)
		}
		fresh, err := search.New(e.a.DB.Search(), nil, decay.DefaultConfig()).Search(context.Background(), in)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.Hits, fresh.Hits) || r.Total != fresh.Total {
			t.Errorf("step %d, %s: %+v, a new service %+v", i, st.mode, r.Hits, fresh.Hits)
		}
	}
}

// TestTextMergeAndBodies checks two ways SearchText saves work: the
// bodies it reads in its ranking statement (TextQuery.Bodies) are the
// notes' indexed bodies, for the best ones, wherever one statement ranks;
// and merging the full-text index into one segment (sqlite.DB.MergeText,
// after a sync of many notes) changes no ranking: every query of every
// kind, on an index written in many transactions (many segments), ranks
// hit by hit and score by score as before the merge; a merge of a merged
// index without force does nothing.
func TestTextMergeAndBodies(t *testing.T) {
	ctx := context.Background()
	dir, m := noematest.Corpus(t, corpus.Options{Seed: 29, Notes: 300})
	ix := noematest.OpenIndexer(t, dir)
	db := ix.DB
	if _, err := ix.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	// Twelve syncs of ten changed notes each: a segment apiece.
	for round := range 12 {
		for i := range 10 {
			n := m.Notes[(round*10+i)*7%len(m.Notes)]
			path := filepath.Join(dir, filepath.FromSlash(n.Path))
			old, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			extra := fmt.Sprintf("\nRound %d adds quorum lattice words zebrafish%d and the lattice again.\n", round, round)
			if err := os.WriteFile(path, append(old, extra...), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		res, err := ix.Sync(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if res.Updated != 10 {
			t.Fatalf("round %d: %d notes updated, want 10", round, res.Updated)
		}
	}
	queries := append(strided(planQueries(t, db, 29)), "zebrafish3", "zebrafish5 lattice", "quorum lattice")
	type ranked struct {
		label string
		tq    noema.TextQuery
		hits  []noema.TextHit
	}
	var before []ranked
	withBodies := 0
	for _, q := range queries {
		for _, limit := range []int{search.Depth} {
			base := search.TextQueryOf(q, limit)
			if base.Match == "" {
				continue
			}
			for _, together := range []bool{false, true} {
				tq := base
				tq.Together, tq.Bodies = together, search.PassageDepth
				hits, err := db.Search().SearchText(ctx, tq)
				if err != nil {
					t.Fatal(err)
				}
				label := fmt.Sprintf("%q limit %d together %v", q, limit, together)
				oneStatement := tq.Bonus == "" || tq.Together
				ids := make([]int64, len(hits))
				for i, h := range hits {
					ids[i] = h.ID
				}
				bodies, err := db.Search().SearchBodies(ctx, ids)
				if err != nil {
					t.Fatal(err)
				}
				for i, h := range hits {
					if want := oneStatement && i < tq.Bodies; h.HasBody != want {
						t.Fatalf("%s, hit %d: has body %v, want %v", label, i, h.HasBody, want)
					}
					if h.HasBody {
						withBodies++
						if h.Body != bodies[h.ID] {
							t.Fatalf("%s, hit %d: body %q, indexed %q", label, i, h.Body, bodies[h.ID])
						}
					}
				}
				before = append(before, ranked{label, tq, hits})
			}
		}
	}
	merged, err := db.MergeText(ctx, true)
	if err != nil || !merged {
		t.Fatalf("MergeText(force) = %v, %v", merged, err)
	}
	for _, r := range before {
		got, err := db.Search().SearchText(ctx, r.tq)
		if err != nil {
			t.Fatal(err)
		}
		sameText(t, r.label+" after the merge", got, r.hits)
	}
	if merged, err := db.MergeText(ctx, false); err != nil || merged {
		t.Errorf("MergeText on a merged index = %v, %v; want false", merged, err)
	}
	if v, err := db.GetMeta(ctx, sqlite.TextMergedKey); err != nil || v != "1" {
		t.Errorf("after a forced merge: %q merges (%v), want 1", v, err)
	}
	if len(before) < 120/raceStride || withBodies < 1000/raceStride {
		t.Errorf("compared %d rankings, %d bodies: too few to tell", len(before), withBodies)
	}
}

// TestKeptRowsSearchAsJoined checks a warmed service, whose index keeps
// the notes' rows in memory (sqlite.SearchIndex.KeepNoteRows) and which
// has counted its terms, against a new one reading the same index file
// through another handle, which joins the rows in SQL and reads a
// one-word query's bodies apart: every query kind, the whole answer (hits,
// scores, decay, ranks, snippets, total) alike — and again after each
// write between two searches: a note read (its decay moves), renamed,
// added.
func TestKeptRowsSearchAsJoined(t *testing.T) {
	ctx := context.Background()
	a, _ := noematest.SyncedApp(t, corpus.Options{Seed: 31, Notes: 300}, app.Options{})
	other, err := sqlite.Open(ctx, a.DB.Path())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	at := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	kept := search.New(a.DB.Search(), nil, decay.DefaultConfig())
	kept.Now = func() time.Time { return at }
	if err := kept.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	queries := strided(planQueries(t, a.DB, 31))
	compare := func(step string, qs []string) {
		t.Helper()
		for _, q := range qs {
			in := search.Input{Query: q, Limit: 20}
			k, err := kept.Search(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			// A new service each time: no term counted yet, so a
			// one-word query's snippets read their bodies apart.
			joined := search.New(other.Search(), nil, decay.DefaultConfig())
			joined.Now = kept.Now
			j, err := joined.Search(ctx, in)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(k, j) {
				t.Fatalf("%s, %q: rows kept\n%+v\njoined\n%+v", step, q, k, j)
			}
		}
	}
	compare("first", queries)
	compare("again, terms counted", queries)
	// Writes to the notes of the first hits of a few queries.
	for i, q := range queries[:min(6, len(queries))] {
		r, err := kept.Search(ctx, search.Input{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Hits) == 0 {
			continue
		}
		path := strings.TrimPrefix(r.Hits[len(r.Hits)-1].URI, noema.URIScheme) + ".md"
		switch i % 3 {
		case 0:
			a.DB.Notes().LogAccess(ctx, path)
		case 1:
			if err := a.DB.Write(ctx, func(tx *sqlite.Tx) error { return sqlite.RenameNote(tx, path, "renamed/"+path) }); err != nil {
				t.Fatal(err)
			}
			var n int
			if err := other.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM notes WHERE path = ?`, "renamed/"+path).Scan(&n); err != nil || n != 1 {
				t.Fatalf("rename %s: %d notes, %v", path, n, err)
			}
		case 2:
			if _, err := a.Notes.Write(ctx, notes.WriteInput{Title: "Added " + q, Content: q + "\n" + q}); err != nil {
				t.Fatal(err)
			}
		}
		compare(fmt.Sprintf("write %d", i), []string{q})
	}
	compare("last", queries)
}

// TestLiftBodiesApartAsInRanking checks liftApart: once a query's terms
// are counted in more notes than the passage lift reads, the lift reads
// its bodies in a statement of its own instead of the ranking's, and the
// answer is the one the ranking's bodies give (a service made to read
// them in the ranking), hit for hit.
func TestLiftBodiesApartAsInRanking(t *testing.T) {
	e := newEnv(t)
	for i := range 70 {
		body := fmt.Sprintf("Note %d about the harbour.\n", i)
		switch {
		case i%3 == 0:
			body += "The quokka sleeps.\nA lantern burns by the quokka.\n"
		case i%3 == 1:
			body += strings.Repeat("The quokka waits.\n", 1+i%4)
		default:
			body += "A lantern " + strings.Repeat("and more words ", i%7) + "\n"
		}
		e.note("", fmt.Sprintf("Quokka %d", i), "", nil, body)
	}
	for i := range 150 {
		e.note("", fmt.Sprintf("Filler %d", i), "", nil, fmt.Sprintf("Filler note %d of the harbour and the pier.", i))
	}
	off := false
	for _, q := range []string{"quokka lantern", "lantern quokka burns", "quokka"} {
		answer := func(inRanking bool) (*search.Result, int64) {
			idx := &countingIndex{SearchIndex: e.a.DB.Search()}
			svc := search.New(idx, nil, decay.DefaultConfig())
			search.SetLiftInRanking(svc, inRanking)
			var r *search.Result
			for range 2 { // the second with the counts cached
				idx.bodies.Store(0)
				var err error
				if r, err = svc.Search(context.Background(), search.Input{Query: q, Limit: 40, Decay: &off}); err != nil {
					t.Fatal(err)
				}
			}
			return r, idx.bodies.Load()
		}
		want, b1 := answer(true)
		got, b2 := answer(false)
		if strings.Contains(q, " ") && (b1 != 0 || b2 == 0) {
			t.Errorf("%q: bodies read apart from the ranking: %d in the ranking, %d apart; want 0 and some", q, b1, b2)
		}
		if len(want.Hits) < 20 || !reflect.DeepEqual(want.Hits, got.Hits) || want.Total != got.Total {
			t.Errorf("%q: bodies in the ranking: %d hits\n%+v\nbodies apart:\n%+v", q, len(want.Hits), want.Hits, got.Hits)
		}
	}
}

// TestPerTermLift checks that the passage lift answers alike under every
// plan: the per-term plan (TextQuery.Terms), which says which terms each
// body holds, the others, whose hits' body terms SearchBodyTerms reads,
// and a filter (the default plan, counts being the whole index's). The
// index decides which terms a body holds: "cat" does not match in
// "category" (the snippets' matcher would find it at the word's start),
// "pony" does in "ponies" (porter; the matcher would not); a CJK term in a
// title only is in the cjk column, so that body is read.
func TestPerTermLift(t *testing.T) {
	e := newEnv(t)
	all := []string{"all"}
	e.note("", "東京 guide", "", all, "Nothing about it here.")
	e.note("", "Tower visit", "", all, "We saw the 東京 tower at night.")
	e.note("", "Tower list", "", all, "A tower.\nAnother tower.\n東京 far below.")
	e.note("", "Zebra herd", "", all, "The zebra and the pony graze together.")
	e.note("", "Zebra alone", "", all, "A zebra.\nNothing else.\nA pony, later.")
	e.note("", "Pony", "", all, "Only about the pony and its care.")
	e.note("", "Stable", "", all, "Three ponies graze by the fence.")
	e.note("", "Zebra list", "", all, "A category of striped things: the zebra.")
	e.note("", "Cat and zebra", "", all, "The cat watched the zebra. The cat again, the zebra again.")
	for i := range 30 {
		e.note("filler", fmt.Sprintf("Filler %d", i), "", all, "Words of the harbour and the pier.")
	}
	off := false
	search1 := func(plans, q string, f []string) map[string]float64 {
		old := search.SetTextPlans(plans)
		defer search.SetTextPlans(old)
		svc := search.New(e.a.DB.Search(), nil, decay.DefaultConfig())
		r, err := svc.Search(context.Background(), search.Input{Query: q, Mode: search.ModeFulltext, Limit: 50, Decay: &off, Tags: f})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]float64{}
		for _, h := range r.Hits {
			out[h.URI] = h.Score
		}
		return out
	}
	for _, q := range []string{"東京 tower", "zebra striped", "tower guide", "cat zebra", "pony zebra"} {
		want := search1("per-term", q, nil)
		if len(want) < 2 {
			t.Fatalf("%q: %d hits", q, len(want))
		}
		for _, c := range []struct {
			plans string
			tags  []string
		}{{"together", nil}, {"none", nil}, {"every-first", nil}, {"counts", all}} {
			got := search1(c.plans, q, c.tags)
			if len(got) != len(want) {
				t.Fatalf("%q, plans %s, tags %v: %v, per term %v", q, c.plans, c.tags, got, want)
			}
			for uri, s := range want {
				if g, ok := got[uri]; !ok || math.Abs(g-s) > 1e-9 {
					t.Errorf("%q: %s scores %.6f per term, %.6f with plans %s, tags %v", q, uri, s, g, c.plans, c.tags)
				}
			}
		}
	}
}
