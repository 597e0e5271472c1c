package semantic_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/semantic"
	"github.com/noema-mem/noema/semantic/chunk"
	"github.com/noema-mem/noema/sqlite"
)

var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func openApp(t *testing.T) *app.App {
	t.Helper()
	a := noematest.App(t)
	clock := func() time.Time { return now }
	a.DB.Now, a.Notes.Now, a.Semantic.Now = clock, clock, clock
	return a
}

func write(t *testing.T, a *app.App, title, modified, content string) {
	t.Helper()
	fm := ""
	if modified != "" {
		fm = "---\nmodified: " + modified + "\n---\n"
	}
	noematest.WriteNote(t, a, notes.WriteInput{Title: title, Content: fm + content})
}

func find(t *testing.T, a *app.App, q string, k int) *semantic.SimilarResult {
	t.Helper()
	res, err := a.Semantic.FindSimilar(context.Background(), semantic.SimilarInput{Concept: q, MaxResults: k})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestDecayOrdersEquallySimilarConcepts(t *testing.T) {
	a := openApp(t)
	// "Alpha Widget" and "Widget Alpha" have the same n-grams: equally similar to any query.
	write(t, a, "Old note", "2025-01-01", "About [[Alpha Widget]].")
	write(t, a, "New note", "2026-05-30", "About [[Widget Alpha]].")
	res := find(t, a, "alpha widget design", 10)
	if len(res.Results) != 2 {
		t.Fatalf("results = %+v", res.Results)
	}
	first, second := res.Results[0], res.Results[1]
	if first.Label != "Widget Alpha" || second.Label != "Alpha Widget" {
		t.Fatalf("order = %s, %s; want the recent concept first", first.Label, second.Label)
	}
	if first.Similarity != second.Similarity {
		t.Fatalf("similarities differ: %v vs %v", first.Similarity, second.Similarity)
	}
	if first.Decay != 1 || second.Decay >= 0.01 || second.Score != second.Similarity*second.Decay {
		t.Errorf("decay/score = %+v / %+v", first, second)
	}
	if !strings.HasPrefix(res.Embedder, "builtin/") || !strings.Contains(res.Meaning, "spelling") {
		t.Errorf("embedder = %q meaning %q", res.Embedder, res.Meaning)
	}
	// Reading the old note is an explicit access: it lifts its concept.
	if _, err := a.Notes.Read(context.Background(), "Old note"); err != nil {
		t.Fatal(err)
	}
	res = find(t, a, "alpha widget design", 10)
	if res.Results[0].Decay != 1 || res.Results[1].Decay != 1 || res.Results[0].Label != "Alpha Widget" {
		t.Errorf("after reading the old note: %+v", res.Results)
	}
}

func TestSimilarConceptQueries(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)
	var links []string
	for i := range 30 {
		links = append(links, fmt.Sprintf("[[Gradient Method %d]]", i))
	}
	write(t, a, "Many", "", strings.Join(links, " ")+" [[Gradient Checkpointing]] [[!!!]]")

	res := find(t, a, "gradient checkpointing", 5)
	if res.ConceptID == "" || len(res.Results) != 5 {
		t.Fatalf("bounded results = %d (%+v)", len(res.Results), res)
	}
	for _, r := range res.Results {
		if r.ID == res.ConceptID {
			t.Error("the concept itself is among its neighbours")
		}
		if r.Band == "" || r.Similarity < -1 || r.Similarity > 1.0001 {
			t.Errorf("result %+v", r)
		}
	}
	res = find(t, a, "gradient methods", 100)
	if res.ConceptID != "" || len(res.Results) != 31 {
		t.Errorf("free text: concept %q, %d results; want 31 (the degenerate concept has no vector)", res.ConceptID, len(res.Results))
	}
	if _, err := a.Semantic.FindSimilar(ctx, semantic.SimilarInput{Concept: "  "}); noema.ErrorCode(err) != noema.EINVALID {
		t.Errorf("empty name: %v", err)
	}
	// A name with nothing to embed is reported, not matched.
	res = find(t, a, "???", 10)
	if len(res.Results) != 0 || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "degenerate") {
		t.Errorf("degenerate query: %+v", res)
	}
}

// constant embeds every text to the same vector: a saturated neighbourhood.
type constant struct{ dim int }

func (c constant) Name() string   { return fmt.Sprintf("test/constant-%d", c.dim) }
func (c constant) Dimension() int { return c.dim }
func (c constant) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i := range texts {
		v := make([]float32, c.dim)
		v[0] = 1
		out[i] = v
	}
	return out, nil
}

func TestSwitchingEmbeddersAndSaturation(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)
	var links []string
	for _, w := range []string{"Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliett", "Kilo", "Lima"} {
		links = append(links, "[[Topic "+w+"]]")
	}
	write(t, a, "Topics", "", strings.Join(links, " "))
	if res := find(t, a, "topic", 20); len(res.Results) != 12 || len(res.Warnings) != 0 {
		t.Fatalf("builtin: %+v", res)
	}
	if p := a.Semantic.Progress(); p.Dimension != 384 || p.Embedded != 12 {
		t.Errorf("builtin progress = %+v", p)
	}
	a.Semantic.Embedder = constant{dim: 8}
	res := find(t, a, "Topic Alpha", 20)
	if res.Embedder != "test/constant-8" || len(res.Results) != 11 {
		t.Fatalf("after switching: %+v", res)
	}
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "saturated") {
		t.Errorf("saturation warning missing: %v", res.Warnings)
	}
	var models, dims int
	a.DB.Read().QueryRowContext(ctx, `SELECT COUNT(DISTINCT model), COUNT(DISTINCT dim) FROM embeddings`).Scan(&models, &dims)
	if models != 2 || dims != 2 {
		t.Errorf("embedding cache: %d models, %d dims; want both kept apart", models, dims)
	}
	if p := a.Semantic.Progress(); p.Dimension != 8 || p.Embedded != 12 {
		t.Errorf("progress after switch = %+v", p)
	}
	// Switching back re-uses the cached builtin vectors: nothing is re-embedded.
	a.Semantic.Embedder = builtinAgain(t, a)
	if res := find(t, a, "topic", 20); len(res.Results) != 12 {
		t.Errorf("back to builtin: %+v", res)
	}
}

func TestDecayConfigApplies(t *testing.T) {
	a := openApp(t)
	a.Semantic.Decay = decay.Config{Func: decay.Exponential, GraceDays: 14, HalfLifeDays: 30, FolderGrace: map[string]float64{}, Disabled: true}
	write(t, a, "Old", "2020-01-01", "[[Ancient Thing]]")
	res := find(t, a, "ancient", 5)
	if len(res.Results) != 1 || res.Results[0].Decay != 1 {
		t.Errorf("disabled decay: %+v", res.Results)
	}
}

// unreachable is an embedder whose backend cannot be reached: every Embed
// fails with unavailable and the message msg.
type unreachable struct {
	name string
	dim  int
	msg  string
}

func (u unreachable) Name() string   { return u.name }
func (u unreachable) Dimension() int { return u.dim }
func (u unreachable) Embed(context.Context, []string) ([][]float32, error) {
	return nil, noema.Errorf(noema.EUNAVAILABLE, "%s", u.msg)
}

func TestUnreachableBackendDegrades(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)
	write(t, a, "N", "", "[[Gradient Checkpointing]] [[Gradient Descent]]")
	a.Semantic.Embedder = unreachable{"ollama/all-minilm", 384, "ollama at http://localhost:11434 is unreachable"}
	_, err := a.Semantic.FindSimilar(ctx, semantic.SimilarInput{Concept: "gradient"})
	if noema.ErrorCode(err) != noema.EUNAVAILABLE || !strings.Contains(err.Error(), "unreachable") {
		t.Fatalf("find_similar with the backend down: %v", err)
	}
	if p := a.Semantic.Progress(); !strings.Contains(p.LastError, "unreachable") {
		t.Errorf("status does not say why: %+v", p)
	}
	// Fuzzy matching and notes keep working.
	res, err := a.Concepts.Find(ctx, concepts.FindInput{Query: "gradient checkpoint"})
	if err != nil || len(res.Candidates) != 2 {
		t.Errorf("find_concepts with the backend down: %+v %v", res, err)
	}
}

func TestOnlyExplicitReadsRefresh(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)
	write(t, a, "Old", "2025-01-01", "[[Stale Topic]]")
	before := find(t, a, "stale topic thing", 5).Results[0].Decay
	// Listing, recent activity, status and finding are not accesses.
	a.Notes.List(ctx, notes.ListInput{})
	a.Notes.Recent(ctx, notes.RecentInput{})
	a.Concepts.Find(ctx, concepts.FindInput{Query: "stale"})
	a.Status(ctx)
	if after := find(t, a, "stale topic thing", 5).Results[0].Decay; after != before || before >= 0.01 {
		t.Errorf("decay %v -> %v without an explicit read", before, after)
	}
	a.Notes.Read(ctx, "Old")
	if after := find(t, a, "stale topic thing", 5).Results[0].Decay; after != 1 {
		t.Errorf("decay after read = %v, want 1", after)
	}
}

// flaky works until it is switched off.
type flaky struct {
	constant
	down *bool
}

func (f flaky) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if *f.down {
		return nil, noema.Errorf(noema.EUNAVAILABLE, "backend unreachable")
	}
	return f.constant.Embed(ctx, texts)
}

func TestBackendDownServesCachedVectors(t *testing.T) {
	a := openApp(t)
	down := false
	a.Semantic.Embedder = flaky{constant{dim: 4}, &down}
	write(t, a, "N", "", "[[Alpha]] [[Beta]] [[Gamma]]")
	if res := find(t, a, "alpha", 5); len(res.Results) != 2 {
		t.Fatalf("backend up: %+v", res)
	}
	down = true
	write(t, a, "M", "", "[[Delta]]")
	res := find(t, a, "alpha", 5)
	if len(res.Results) != 2 || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "unavailable") {
		t.Errorf("backend down, cached vectors: %+v", res)
	}
	down = false
	if res := find(t, a, "alpha", 5); len(res.Results) != 3 {
		t.Errorf("backend back: %+v", res)
	}
}

func TestRefreshChunksReembedsOnlyChangedChunks(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)
	section := func(name, word string) string {
		return "## " + name + "\n" + strings.Repeat(word+" text here. ", 100) + "\n\n"
	}
	body := section("One", "alpha") + section("Two", "bravo") + section("Three", "charlie")
	w := noematest.WriteNote(t, a, notes.WriteInput{Title: "Long", Content: body})
	write(t, a, "Short", "", "just [[One Concept]]")
	if err := a.Semantic.RefreshChunks(ctx); err != nil {
		t.Fatal(err)
	}
	p := a.Semantic.Status(ctx)
	if p.Chunks < 4 || p.ChunksEmbedded != p.Chunks || p.ChunkNotesPending != 0 {
		t.Fatalf("progress = %+v", p)
	}
	count := func() int {
		var n int
		a.DB.Read().QueryRowContext(ctx, `SELECT COUNT(*) FROM embeddings`).Scan(&n)
		return n
	}
	before := count()
	// Edit one section: only its chunk is new.
	if _, err := a.Notes.Edit(ctx, notes.EditInput{URI: w.URI, Op: notes.OpReplaceSection, Section: "Two", Content: strings.Repeat("delta text. ", 100)}); err != nil {
		t.Fatal(err)
	}
	if err := a.Semantic.RefreshChunks(ctx); err != nil {
		t.Fatal(err)
	}
	if added := count() - before; added != 1 {
		t.Errorf("an edit of one section embedded %d new chunks, want 1", added)
	}
	// A no-op refresh embeds nothing.
	before = count()
	if err := a.Semantic.RefreshChunks(ctx); err != nil || count() != before {
		t.Errorf("no-op refresh: %v, %d new", err, count()-before)
	}
	// Another model re-embeds every chunk, without touching the old vectors.
	a.Semantic.Embedder = constant{dim: 8}
	if err := a.Semantic.RefreshChunks(ctx); err != nil {
		t.Fatal(err)
	}
	if p := a.Semantic.Status(ctx); p.ChunksEmbedded != p.Chunks {
		t.Errorf("after switching models: %+v", p)
	}
}

// TestChunkSchemeFollowsTheEmbedder checks that notes are cut by the
// embedder's scheme (chunk.For): sections for the builtin spelling model,
// passages for a meaning model, re-cut when the embedder changes, and
// re-cut when a meaning model's chunks were stored before schemes existed
// (under the model's bare name, as an older noema did).
func TestChunkSchemeFollowsTheEmbedder(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)
	var chat strings.Builder
	for i := range 40 {
		fmt.Fprintf(&chat, "Speaker%d: turn %d of a chat about the weekend and the trip to the lake.\n", i%2, i)
	}
	w := noematest.WriteNote(t, a, notes.WriteInput{Title: "Chat", Content: chat.String()})
	chunks := func() (n int, key string) {
		t.Helper()
		err := a.DB.Read().QueryRowContext(ctx, `SELECT (SELECT COUNT(*) FROM note_chunks c JOIN notes n ON n.id = c.note_id WHERE n.path = ?),
			(SELECT st.model FROM note_chunk_state st JOIN notes n ON n.id = st.note_id WHERE n.path = ?)`, w.Path, w.Path).Scan(&n, &key)
		if err != nil {
			t.Fatal(err)
		}
		return n, key
	}
	refresh := func() {
		t.Helper()
		if err := a.Semantic.RefreshChunks(ctx); err != nil {
			t.Fatal(err)
		}
	}
	spelling := a.Semantic.Embedder
	if !noema.IsSpellingModel(spelling) {
		t.Fatalf("the test app's embedder %s is not the spelling model this test starts from", a.Semantic.Embedder.Name())
	}
	refresh()
	sections, key := chunks()
	if want := len(chunk.Body(chat.String())); sections != want || key != a.Semantic.Embedder.Name() {
		t.Fatalf("spelling model: %d chunks under %q, want %d (sections) under the model's name", sections, key, want)
	}

	// An index written before schemes existed holds a meaning model's
	// sections under the model's bare name: the meaning model's refresh
	// cuts the note again, into passages under its key.
	meaning := constant{dim: 8}
	err := a.DB.Write(ctx, func(tx *sqlite.Tx) error {
		_, err := tx.Exec(`UPDATE note_chunk_state SET model = ?`, meaning.Name())
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	a.Semantic.Embedder = meaning
	refresh()
	passages, key := chunks()
	if want := len(chunk.Passages().Cut(chat.String())); passages != want || passages <= sections || key != chunk.Passages().Key(meaning.Name()) {
		t.Fatalf("meaning model: %d chunks under %q, want %d passages (more than %d sections) under %q", passages, key, want, sections, chunk.Passages().Key(meaning.Name()))
	}

	// Back to the spelling model: sections again, under its name.
	a.Semantic.Embedder = spelling
	refresh()
	if n, key := chunks(); n != sections || key != spelling.Name() {
		t.Errorf("back to the spelling model: %d chunks under %q, want %d under %q", n, key, sections, spelling.Name())
	}
}

// Seed details: saturation is checked on the top min(10, n) once n >= 3,
// its warning names tools that exist, and free text says resolved: false.
func TestSaturationOfFewAndResolved(t *testing.T) {
	a := openApp(t)
	write(t, a, "Topics", "", "[[Topic Alpha]] [[Topic Bravo]] [[Topic Charlie]] [[Topic Delta]] [[Topic Echo]] [[Topic Foxtrot]]")
	a.Semantic.Embedder = constant{dim: 4}
	res := find(t, a, "Topic Alpha", 5)
	if len(res.Results) != 5 || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "saturated") {
		t.Fatalf("five identical results: %+v", res)
	}
	if !strings.Contains(res.Warnings[0], "build_context or search_notes") || !res.Resolved {
		t.Errorf("warning %q, resolved %v", res.Warnings[0], res.Resolved)
	}
	if res := find(t, a, "Topic", 2); len(res.Warnings) != 0 {
		t.Errorf("two results are never saturated: %v", res.Warnings)
	}
	if res := find(t, a, "something else entirely", 3); res.Resolved || res.ConceptID != "" {
		t.Errorf("free text: resolved %v concept %q", res.Resolved, res.ConceptID)
	}
}

// With the embedder unreachable and nothing cached, find_similar_concepts
// answers with fuzzy candidates marked as such, and status shows the error.
func TestFuzzyFallback(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)
	write(t, a, "Topics", "", "[[Gradient Descent]] [[Gradient Boosting]] [[Zebra]]")
	a.Semantic.Embedder = unreachable{"test/down", 4, "connection refused"}
	if _, err := a.Semantic.FindSimilar(ctx, semantic.SimilarInput{Concept: "Gradient Descent"}); noema.ErrorCode(err) != noema.EUNAVAILABLE {
		t.Fatalf("without a fallback: %v", err)
	}
	fuzzy := func(ctx context.Context, q string, k int) ([]semantic.Similar, error) {
		return []semantic.Similar{{ID: "x1", Label: "Gradient Descent", Score: 100}, {ID: "x2", Label: "Gradient Boosting", Score: 70}}, nil
	}
	res, err := a.Semantic.FindSimilarOr(ctx, semantic.SimilarInput{Concept: "gradient descnt"}, fuzzy)
	if err != nil {
		t.Fatal(err)
	}
	if res.Fallback != "fuzzy" || len(res.Results) != 2 || res.Results[0].Score != 1 || res.Results[1].Band != "fuzzy fallback" {
		t.Errorf("fallback: %+v", res)
	}
	if len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "connection refused") {
		t.Errorf("warnings: %v", res.Warnings)
	}
	if st := a.Semantic.Status(ctx); !strings.Contains(st.LastError, "connection refused") {
		t.Errorf("status: %+v", st)
	}
}

// countingIndex is the index with its whole-cache calls counted: a full
// count of the chunks, and the cache lookups with how many hashes each.
type countingIndex struct {
	noema.SemanticIndex
	counts, lookups, looked, concepts int
}

func (c *countingIndex) EachConceptSince(ctx context.Context, rev int64, fn func(id, label string, aliases []string, description string)) (int64, int64, error) {
	return c.SemanticIndex.EachConceptSince(ctx, rev, func(id, label string, aliases []string, description string) {
		c.concepts++
		fn(id, label, aliases, description)
	})
}

func (c *countingIndex) CountChunks(ctx context.Context, model string) (int, int, error) {
	c.counts++
	return c.SemanticIndex.CountChunks(ctx, model)
}

func (c *countingIndex) EmbeddedAmong(ctx context.Context, model string, hashes []string) (map[string]bool, error) {
	c.lookups++
	c.looked += len(hashes)
	return c.SemanticIndex.EmbeddedAmong(ctx, model, hashes)
}

// TestRefreshCostsWhatChanged checks issue 21's background work after a
// write: refreshing the chunks of one new note looks up only that note's
// chunk hashes in the embedding cache and never counts every chunk, and
// refreshing concepts after one new concept looks up that concept's text
// only. Status counts the chunks, once per change.
func TestRefreshCostsWhatChanged(t *testing.T) {
	ctx := context.Background()
	a := openApp(t)
	for i := range 30 {
		write(t, a, fmt.Sprintf("Note %d", i), "", fmt.Sprintf("about [[Topic %d]] and [[Shared]]", i))
	}
	ci := &countingIndex{SemanticIndex: a.Semantic.DB}
	a.Semantic.DB = ci
	if err := a.Semantic.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if err := a.Semantic.RefreshChunks(ctx); err != nil {
		t.Fatal(err)
	}
	if ci.counts != 0 {
		t.Errorf("a refresh counted every chunk %d times", ci.counts)
	}
	if p := a.Semantic.Status(ctx); p.Chunks != 30 || p.ChunksEmbedded != 30 || ci.counts != 1 {
		t.Errorf("status: %d of %d chunks embedded after %d counts, want 30 of 30 after 1", p.ChunksEmbedded, p.Chunks, ci.counts)
	}
	a.Semantic.Status(ctx)
	if ci.counts != 1 {
		t.Errorf("a second status with nothing changed counted again (%d counts)", ci.counts)
	}
	write(t, a, "Late", "", "one more about [[Late Topic]]")
	ci.lookups, ci.looked, ci.concepts = 0, 0, 0
	if err := a.Semantic.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if ci.looked != 1 || ci.concepts != 1 {
		t.Errorf("refreshing concepts after one new concept read %d concepts and looked up %d hashes, want 1 and 1", ci.concepts, ci.looked)
	}
	if p := a.Semantic.Progress(); p.Concepts != 32 || p.Embedded != 32 {
		t.Errorf("progress after the new concept: %d of %d embedded, want 32 of 32", p.Embedded, p.Concepts)
	}
	// A new description is embedded again, reading that concept only.
	ci.concepts = 0
	if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Topic 3", Description: ptr("a description that changes the text")}); err != nil {
		t.Fatal(err)
	}
	if err := a.Semantic.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if ci.concepts != 1 {
		t.Errorf("refreshing after a new description read %d concepts, want 1", ci.concepts)
	}
	if res := find(t, a, "a description that changes the text", 1); len(res.Results) != 1 || res.Results[0].Label != "Topic 3" {
		t.Errorf("the new description is not what the index holds: %+v", res.Results)
	}
	ci.lookups, ci.looked = 0, 0
	if err := a.Semantic.RefreshChunks(ctx); err != nil {
		t.Fatal(err)
	}
	if ci.looked != 1 || ci.counts != 1 {
		t.Errorf("refreshing one new note's chunk looked up %d hashes and counted %d times, want 1 and 1", ci.looked, ci.counts)
	}
	if p := a.Semantic.Status(ctx); p.Chunks != 31 || p.ChunksEmbedded != 31 || ci.counts != 2 {
		t.Errorf("status after the write: %d of %d chunks embedded after %d counts, want 31 of 31 after 2", p.ChunksEmbedded, p.Chunks, ci.counts)
	}
	// A deleted concept leaves the index: the whole registry is read.
	if _, err := a.Notes.Delete(ctx, "Late", true); err != nil {
		t.Fatal(err)
	}
	ci.concepts = 0
	if err := a.Semantic.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if p := a.Semantic.Progress(); ci.concepts != 31 || p.Concepts != 31 || p.Embedded != 31 {
		t.Errorf("after a deletion: read %d concepts, %d of %d embedded; want 31, 31 of 31", ci.concepts, p.Embedded, p.Concepts)
	}
	for _, r := range find(t, a, "Late Topic", 40).Results {
		if r.Label == "Late Topic" {
			t.Error("the deleted concept is still found")
		}
	}
}

func ptr[T any](v T) *T { return &v }
