package recall_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/noema-mem/noema"
	"github.com/noema-mem/noema/app"
	"github.com/noema-mem/noema/concepts"
	"github.com/noema-mem/noema/config"
	"github.com/noema-mem/noema/decay"
	"github.com/noema-mem/noema/internal/noematest"
	"github.com/noema-mem/noema/notes"
	"github.com/noema-mem/noema/recall"
	"github.com/noema-mem/noema/relations"
)

// now is the tests' clock. Notes are dated in whole days before it, so that
// with the default decay (14 days of grace, 30-day half-life) a note 44
// days old weighs exactly 0.5, 74 days 0.25 and 104 days 0.125.
var now = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

func daysAgo(d int) string {
	return now.AddDate(0, 0, -d).Format(time.RFC3339)
}

func openApp(t *testing.T) *app.App {
	t.Helper()
	cfg := config.Default()
	a := noematest.OpenApp(t, "", app.Options{Config: &cfg})
	clock := func() time.Time { return now }
	a.DB.Now, a.Notes.Now, a.Concepts.Now = clock, clock, clock
	return a
}

func service(a *app.App, d decay.Config) *recall.Service {
	s := recall.New(a.DB.Mentions(), a.Concepts, d)
	s.Now = func() time.Time { return now }
	return s
}

// write writes a note modified the given number of days before now.
func write(t *testing.T, a *app.App, folder, title string, age int, body string) {
	t.Helper()
	content := "---\nmodified: " + daysAgo(age) + "\n---\n" + body
	noematest.WriteNote(t, a, notes.WriteInput{Title: title, Folder: folder, Content: content})
}

// fruitVault builds the hand-made vault most tests share:
//
//	note     age (days)  weight  links
//	One      0           1       Apple, Apricot, Banana, Cherry
//	Two      44          0.5     Apple, Banana
//	Three    74          0.25    Apple, Date
//	Four     1           1       Banana, Elder
//	Five     104         0.125   Date, Fig, Elder
//	Six      2           1       Fig, Grape
//	Seven    3           1       Malus (an alias of Apple), apple, Banana
//
// Apple has a page (alias Malus, a description) and an is_a relation to
// Fruit; Banana's page declares grows_with → Apple.
func fruitVault(t *testing.T) *app.App {
	t.Helper()
	a := openApp(t)
	ctx := context.Background()
	if _, err := a.Concepts.Create(ctx, concepts.CreateInput{Label: "Apple", Aliases: []string{"Malus"}, Description: "A pome fruit."}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Concepts.Create(ctx, concepts.CreateInput{Label: "Fruit"}); err != nil {
		t.Fatal(err)
	}
	write(t, a, "", "One", 0, "Fresh [[Apple]] with [[Apricot]].\n\nAlso [[Banana]] and [[Cherry]].\n")
	write(t, a, "", "Two", 44, "[[Apple]] and [[Banana]].\n")
	write(t, a, "", "Three", 74, "[[Apple]] beside [[Date]].\n")
	write(t, a, "", "Four", 1, "[[Banana]] then [[Elder]].\n")
	write(t, a, "", "Five", 104, "[[Date]], [[Fig]] and [[Elder]].\n")
	write(t, a, "", "Six", 2, "[[Fig]] with [[Grape]].\n")
	write(t, a, "", "Seven", 3, "[[Malus]] is [[apple]]; so is not [[Banana]].\n")
	if _, err := a.Relations.Create(ctx, relations.CreateInput{From: "Apple", Type: "is_a", To: "Fruit"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Relations.Create(ctx, relations.CreateInput{From: "Banana", Type: "grows_with", To: "Malus"}); err != nil {
		t.Fatal(err)
	}
	return a
}

func build(t *testing.T, s *recall.Service, in recall.Input) *recall.Result {
	t.Helper()
	res, err := s.BuildContext(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func ptr[T any](v T) *T { return &v }

type rel struct {
	label    string
	count    int
	weight   float64
	distance int
	via      string // label
}

func checkRelated(t *testing.T, cs recall.Concepts, got []recall.Related, want []rel) {
	t.Helper()
	labelOf := map[string]string{}
	for _, r := range got {
		labelOf[r.ID] = r.Label
	}
	if len(got) != len(want) {
		t.Errorf("related has %d entries, want %d: %+v", len(got), len(want), got)
	}
	for i := range min(len(got), len(want)) {
		g, w := got[i], want[i]
		via := labelOf[g.Via]
		if via == "" {
			c, err := cs.Get(context.Background(), g.Via)
			if err != nil {
				t.Fatalf("via %q: %v", g.Via, err)
			}
			via = c.Label
		}
		if g.Label != w.label || g.Count != w.count || math.Abs(g.Weight-w.weight) > 1e-12 || g.Distance != w.distance || via != w.via {
			t.Errorf("related[%d] = %s count %d weight %v distance %d via %s; want %+v", i, g.Label, g.Count, g.Weight, g.Distance, via, w)
		}
	}
}

// Apple's related concepts in fruitVault with the default decay, by
// distance.
var (
	distance1 = []rel{
		{"Banana", 3, 2.5, 1, "Apple"}, // One 1 + Two 0.5 + Seven 1 (Seven links Apple twice, counted once)
		{"Apricot", 1, 1, 1, "Apple"},  // ties with Cherry on weight and count: by label
		{"Cherry", 1, 1, 1, "Apple"},
		{"Date", 1, 0.25, 1, "Apple"},
	}
	// Elder shares Four (1) with Banana and Five (0.125) with Date: it
	// comes through Banana. Fig only through Date.
	distance2 = []rel{
		{"Elder", 1, 1, 2, "Banana"},
		{"Fig", 1, 0.125, 2, "Date"},
	}
	// Grape through Fig; Elder and Fig share Five but both are visited.
	distance3 = []rel{{"Grape", 1, 1, 3, "Fig"}}
)

func TestRelatedCountsWeightsAndDepth(t *testing.T) {
	a := fruitVault(t)
	s := service(a, decay.DefaultConfig())
	for _, tc := range []struct {
		depth int
		want  []rel
	}{
		{0, nil},
		{1, distance1},
		{2, slices.Concat(distance1, distance2)},
		{3, slices.Concat(distance1, distance2, distance3)},
		{4, slices.Concat(distance1, distance2, distance3)},
		{9, slices.Concat(distance1, distance2, distance3)}, // clamped to 4
	} {
		res := build(t, s, recall.Input{Concept: "Apple", Depth: tc.depth})
		checkRelated(t, a.Concepts, res.Related, tc.want)
		if res.Related == nil {
			t.Errorf("depth %d: related is nil, want []", tc.depth)
		}
	}
}

func TestConceptRelationsAndNotes(t *testing.T) {
	a := fruitVault(t)
	s := service(a, decay.DefaultConfig())
	// By alias, case-insensitively.
	res := build(t, s, recall.Input{Concept: "malus", Depth: 0})
	c := res.Concept
	if c.Label != "Apple" || len(c.Aliases) != 1 || c.Aliases[0] != "Malus" || c.Description != "A pome fruit." ||
		!strings.HasPrefix(c.Page, "memory://concepts/") {
		t.Fatalf("concept = %+v", c)
	}
	// By id.
	if byID := build(t, s, recall.Input{Concept: c.ID}); byID.Concept.ID != c.ID {
		t.Fatalf("by id: %+v", byID.Concept)
	}
	fruit, err := a.Concepts.Get(context.Background(), "Fruit")
	if err != nil {
		t.Fatal(err)
	}
	banana, err := a.Concepts.Get(context.Background(), "Banana")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Relations) != 2 {
		t.Fatalf("relations = %+v", res.Relations)
	}
	out, in := res.Relations[0], res.Relations[1]
	if out.Type != "is_a" || out.Direction != "out" || out.Other != fruit.ID || out.ID == "" {
		t.Errorf("out relation = %+v", out)
	}
	if in.Type != "grows_with" || in.Direction != "in" || in.Other != banana.ID || in.ID == "" {
		t.Errorf("in relation = %+v", in)
	}
	// Notes: freshest first; the weight-1 notes by modification time.
	var got []string
	for _, n := range res.Notes {
		got = append(got, n.Title)
		if n.Excerpt != "" {
			t.Errorf("%s has an excerpt without include_content", n.Title)
		}
	}
	if strings.Join(got, ",") != "One,Seven,Two,Three" {
		t.Errorf("notes = %v", got)
	}
	wantDecay := map[string]float64{"One": 1, "Seven": 1, "Two": 0.5, "Three": 0.25}
	for _, n := range res.Notes {
		if math.Abs(n.Decay-wantDecay[n.Title]) > 1e-12 {
			t.Errorf("%s decay = %v, want %v", n.Title, n.Decay, wantDecay[n.Title])
		}
		if !strings.HasPrefix(n.URI, "memory://") || n.Modified.IsZero() {
			t.Errorf("note = %+v", n)
		}
	}
	if len(res.Warnings) != 0 {
		t.Errorf("warnings = %v", res.Warnings)
	}
}

func TestDecayOff(t *testing.T) {
	a := fruitVault(t)
	s := service(a, decay.DefaultConfig())
	res := build(t, s, recall.Input{Concept: "Apple", Depth: 2, Decay: ptr(false)})
	checkRelated(t, a.Concepts, res.Related, []rel{
		{"Banana", 3, 3, 1, "Apple"},
		{"Apricot", 1, 1, 1, "Apple"},
		{"Cherry", 1, 1, 1, "Apple"},
		{"Date", 1, 1, 1, "Apple"},
		// Elder: Banana (Four) and Date (Five) tie at 1 and 1: the
		// concept earlier in the list (Banana) is the via.
		{"Elder", 1, 1, 2, "Banana"},
		{"Fig", 1, 1, 2, "Date"},
	})
	for _, n := range res.Notes {
		if n.Decay != 1 {
			t.Errorf("%s decay = %v with decay off", n.Title, n.Decay)
		}
	}
}

func TestFolderGraceOrdersNotes(t *testing.T) {
	a := openApp(t)
	write(t, a, "journal", "Monday", 10, "Met [[Kiwi]].\n")
	write(t, a, "", "Older", 12, "More [[Kiwi]].\n")
	d := decay.DefaultConfig()
	d.FolderGrace = map[string]float64{"journal/": 3}
	s := service(a, d)
	titles := func(res *recall.Result) string {
		var out []string
		for _, n := range res.Notes {
			out = append(out, n.Title)
		}
		return strings.Join(out, ",")
	}
	// The journal note is fresher but past its 3-day grace.
	on := build(t, s, recall.Input{Concept: "Kiwi"})
	if got := titles(on); got != "Older,Monday" {
		t.Errorf("decay on: notes = %s", got)
	}
	if w := on.Notes[1].Decay; math.Abs(w-math.Exp2(-7.0/30)) > 1e-12 {
		t.Errorf("journal decay = %v", w)
	}
	// Without decay, by last activity.
	if got := titles(build(t, s, recall.Input{Concept: "Kiwi", Decay: ptr(false)})); got != "Monday,Older" {
		t.Errorf("decay off: notes = %s", got)
	}
}

func TestMaxEntities(t *testing.T) {
	a := fruitVault(t)
	s := service(a, decay.DefaultConfig())
	// The five first: distance 1, then Elder.
	res := build(t, s, recall.Input{Concept: "Apple", Depth: 2, MaxEntities: 5})
	checkRelated(t, a.Concepts, res.Related, slices.Concat(distance1, distance2[:1]))
	// Three at distance 1 fill the budget: Date is cut, yet it is visited
	// at distance 1, so it never reappears at distance 2, and nothing is
	// expanded.
	res = build(t, s, recall.Input{Concept: "Apple", Depth: 2, MaxEntities: 3})
	checkRelated(t, a.Concepts, res.Related, distance1[:3])
	if len(res.Notes) != 3 || res.Notes[2].Title != "Two" {
		t.Errorf("notes = %+v", res.Notes)
	}
	if len(res.Warnings) != 3 {
		t.Errorf("warnings = %q, want notes cut, distance 1 cut, depth 2 not reached", res.Warnings)
	}
	// The bound applies to distance 2 too: Fig is cut, not Elder.
	res = build(t, s, recall.Input{Concept: "Apple", Depth: 3, MaxEntities: 5})
	if n := len(res.Related); n != 5 || res.Related[4].Label != "Elder" {
		t.Errorf("related = %+v", res.Related)
	}
}

func TestDistanceTwoViaIsTheHeaviestLink(t *testing.T) {
	a := openApp(t)
	// Root co-occurs with A (twice) and B (once); X shares one note with B
	// and two with A, so it comes through A whatever the label order.
	for i, links := range []string{"[[Root]] [[Zeta]]", "[[Root]] [[Zeta]]", "[[Root]] [[Alpha]]", "[[Alpha]] [[X]]", "[[Zeta]] [[X]]", "[[Zeta]] [[X]]"} {
		write(t, a, "", fmt.Sprintf("n%d", i+1), 0, links+"\n")
	}
	res := build(t, service(a, decay.DefaultConfig()), recall.Input{Concept: "Root", Depth: 2})
	checkRelated(t, a.Concepts, res.Related, []rel{
		{"Zeta", 2, 2, 1, "Root"},
		{"Alpha", 1, 1, 1, "Root"},
		{"X", 2, 2, 2, "Zeta"},
	})
}

func TestIncludeContent(t *testing.T) {
	a := openApp(t)
	long := strings.Repeat("lorem ipsum dolor sit amet ", 30) // 810 characters
	write(t, a, "", "Short", 0, "# Heading\n\nFirst paragraph.\n\nThe `[[Pear]]` in code is not a link.\n\n"+
		"A pear line\nwhere [[pear|pears]] grow\nin rows.\n\nLast [[Pear]] paragraph.\n")
	write(t, a, "", "Long", 1, long+"[[Pear]] "+long+"\n")
	write(t, a, "", "Wide", 2, "日本語の文章。"+strings.Repeat("あ", 500)+"[[Pear]]"+strings.Repeat("い", 500)+"\n")
	write(t, a, "", "Edge", 3, "[[Pear]]"+long+"\n")
	s := service(a, decay.DefaultConfig())
	res := build(t, s, recall.Input{Concept: "Pear", IncludeContent: true})
	got := map[string]string{}
	for _, n := range res.Notes {
		got[n.Title] = n.Excerpt
		if c := utf8.RuneCountInString(n.Excerpt); c > recall.MaxExcerptRunes || c == 0 {
			t.Errorf("%s excerpt has %d characters: %q", n.Title, c, n.Excerpt)
		}
		if !strings.Contains(strings.ToLower(n.Excerpt), "[[pear") {
			t.Errorf("%s excerpt lacks the mention: %q", n.Title, n.Excerpt)
		}
	}
	if want := "A pear line\nwhere [[pear|pears]] grow\nin rows."; got["Short"] != want {
		t.Errorf("Short excerpt = %q, want %q", got["Short"], want)
	}
	if e := got["Long"]; !strings.HasPrefix(e, "…") || !strings.HasSuffix(e, "…") || utf8.RuneCountInString(e) < 300 {
		t.Errorf("Long excerpt = %q", e)
	}
	if e := got["Edge"]; !strings.HasPrefix(e, "[[Pear]]lorem") || !strings.HasSuffix(e, "…") {
		t.Errorf("Edge excerpt = %q", e)
	}
	if e := got["Wide"]; !strings.HasPrefix(e, "…あ") || !strings.HasSuffix(e, "い…") {
		t.Errorf("Wide excerpt = %q", e)
	}
}

func TestNoAccessRecorded(t *testing.T) {
	a := fruitVault(t)
	ctx := context.Background()
	build(t, service(a, decay.DefaultConfig()), recall.Input{Concept: "Apple", Depth: 4, IncludeContent: true})
	if err := a.DB.FlushAccesses(ctx); err != nil {
		t.Fatal(err)
	}
	_, list, err := a.DB.Notes().ListNotes(ctx, noema.NoteQuery{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range list {
		if !n.Accessed.IsZero() {
			t.Errorf("%s was recorded as accessed", n.Path)
		}
	}
}

func TestUnknownConcept(t *testing.T) {
	a := fruitVault(t)
	s := service(a, decay.DefaultConfig())
	_, err := s.BuildContext(context.Background(), recall.Input{Concept: "Banan", Depth: 2})
	var e *noema.Error
	if !errors.As(err, &e) || e.Code != noema.ENOTFOUND {
		t.Fatalf("err = %v, want not_found", err)
	}
	if !strings.Contains(e.Message, `"Banana"`) || !strings.Contains(e.Message, "find_concepts") {
		t.Errorf("message = %q, want the candidates named", e.Message)
	}
	cands, _ := e.Details["candidates"].([]any)
	if len(cands) == 0 || len(cands) > recall.Candidates {
		t.Fatalf("candidates = %v", e.Details)
	}
	if first := cands[0].(map[string]any); first["label"] != "Banana" {
		t.Errorf("first candidate = %v", first)
	}

	// A name find_concepts refuses still answers not_found, saying why
	// there are no candidates.
	_, err = s.BuildContext(context.Background(), recall.Input{Concept: strings.Repeat("x", 1001)})
	if noema.ErrorCode(err) != noema.ENOTFOUND || !strings.Contains(noema.ErrorMessage(err), "no candidates") {
		t.Errorf("long name: %v", err)
	}

	for _, in := range []recall.Input{{Concept: "  "}, {Concept: "Apple", Depth: -1}, {Concept: "Apple", MaxEntities: -1}} {
		if _, err := s.BuildContext(context.Background(), in); noema.ErrorCode(err) != noema.EINVALID {
			t.Errorf("%+v: err = %v, want invalid_argument", in, err)
		}
	}
}

func TestEmptyVault(t *testing.T) {
	a := openApp(t)
	_, err := service(a, decay.DefaultConfig()).BuildContext(context.Background(), recall.Input{Concept: "Anything", Depth: 2})
	if noema.ErrorCode(err) != noema.ENOTFOUND || !strings.Contains(noema.ErrorMessage(err), `no concept "Anything"`) {
		t.Fatalf("err = %v", err)
	}
}

func TestLonelyConcept(t *testing.T) {
	a := openApp(t)
	if _, err := a.Concepts.Create(context.Background(), concepts.CreateInput{Label: "Hermit"}); err != nil {
		t.Fatal(err)
	}
	res := build(t, service(a, decay.DefaultConfig()), recall.Input{Concept: "Hermit", Depth: 2, IncludeContent: true})
	if res.Concept.Label != "Hermit" || len(res.Related) != 0 || len(res.Notes) != 0 || len(res.Relations) != 0 ||
		res.Related == nil || res.Notes == nil || res.Relations == nil || res.Warnings == nil {
		t.Fatalf("result = %+v", res)
	}
}

func TestSeesChangesBetweenCalls(t *testing.T) {
	a := fruitVault(t)
	ctx := context.Background()
	s := service(a, decay.DefaultConfig())
	if err := s.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	before := build(t, s, recall.Input{Concept: "Apple", Depth: 1})
	if before.Notes[len(before.Notes)-1].Title != "Three" {
		t.Fatalf("notes = %+v", before.Notes)
	}
	// A new note: a new co-occurring concept.
	write(t, a, "", "Eight", 0, "[[Apple]] and [[Quince]].\n")
	after := build(t, s, recall.Input{Concept: "Apple", Depth: 1})
	if len(after.Notes) != len(before.Notes)+1 || !slices.ContainsFunc(after.Related, func(r recall.Related) bool { return r.Label == "Quince" }) {
		t.Fatalf("after a write: notes %d, related %+v", len(after.Notes), after.Related)
	}
	// Reading the oldest note is an access (at now): it weighs 1 again and
	// comes before Seven (modified 3 days ago).
	if _, err := a.Notes.Read(ctx, "Three"); err != nil {
		t.Fatal(err)
	}
	if err := a.DB.FlushAccesses(ctx); err != nil {
		t.Fatal(err)
	}
	read := build(t, s, recall.Input{Concept: "Apple", Depth: 1})
	three := slices.IndexFunc(read.Notes, func(n recall.Note) bool { return n.Title == "Three" })
	seven := slices.IndexFunc(read.Notes, func(n recall.Note) bool { return n.Title == "Seven" })
	if three < 0 || three > seven || read.Notes[three].Decay != 1 {
		t.Fatalf("after reading Three: %+v", read.Notes)
	}
	// Date (through Three) weighs 1 now.
	for _, r := range read.Related {
		if r.Label == "Date" && r.Weight != 1 {
			t.Errorf("Date weight = %v after Three was read", r.Weight)
		}
	}
	// A relabelled concept shows its new label.
	if _, err := a.Concepts.Update(ctx, concepts.UpdateInput{Concept: "Cherry", Label: "Sour Cherry"}); err != nil {
		t.Fatal(err)
	}
	relabelled := build(t, s, recall.Input{Concept: "Apple", Depth: 1})
	if !slices.ContainsFunc(relabelled.Related, func(r recall.Related) bool { return r.Label == "Sour Cherry" }) {
		t.Fatalf("after relabelling: %+v", relabelled.Related)
	}
}

func TestConcurrentCallsAndWrites(t *testing.T) {
	a := fruitVault(t)
	ctx := context.Background()
	s := service(a, decay.DefaultConfig())
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Go(func() {
			for range 10 {
				if _, err := s.BuildContext(ctx, recall.Input{Concept: "Apple", Depth: 3}); err != nil {
					t.Error(err)
					return
				}
			}
		})
		wg.Go(func() {
			if _, err := a.Notes.Write(ctx, notes.WriteInput{Title: fmt.Sprintf("Extra %d", i), Content: "[[Apple]] [[Extra]]\n"}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	res := build(t, s, recall.Input{Concept: "Extra", Depth: 1})
	if len(res.Notes) != 4 || res.Related[0].Label != "Apple" || res.Related[0].Count != 4 {
		t.Fatalf("after concurrent writes: notes %+v related %+v", res.Notes, res.Related)
	}
}

func TestSameAfterReindex(t *testing.T) {
	a := fruitVault(t)
	ctx := context.Background()
	s := service(a, decay.DefaultConfig())
	in := recall.Input{Concept: "Apple", Depth: 4, IncludeContent: true}
	before := build(t, s, in)
	if _, err := a.Sync(ctx, true, nil); err != nil {
		t.Fatal(err)
	}
	after := build(t, s, in)
	if fmt.Sprint(before) != fmt.Sprint(after) {
		t.Fatalf("after a reindex:\n%+v\nwant:\n%+v", after, before)
	}
	// A fresh service (a graph read from nothing) agrees.
	if fresh := build(t, service(a, decay.DefaultConfig()), in); fmt.Sprint(fresh) != fmt.Sprint(before) {
		t.Fatalf("fresh service:\n%+v\nwant:\n%+v", fresh, before)
	}
}

// TestLongNoteWindow checks that build_context pairs the concepts of a
// long note only with those linked near them (graph.CooccurrenceWindow),
// as the concept graph does: a list of 300 links relates its first concept
// to the next 32, not to all 299 others, and a concept linked again later
// keeps the place of its first link.
func TestLongNoteWindow(t *testing.T) {
	a := openApp(t)
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "- [[Item %03d]]\n", i)
	}
	b.WriteString("- [[Item 000]] again, at the end\n")
	write(t, a, "", "Long List", 0, b.String())
	s := service(a, decay.Config{})
	off := false
	res, err := s.BuildContext(context.Background(), recall.Input{Concept: "Item 000", Depth: 1, MaxEntities: 200, Decay: &off})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Related {
		got = append(got, r.Label)
	}
	slices.Sort(got)
	var want []string
	for i := 1; i <= 32; i++ {
		want = append(want, fmt.Sprintf("Item %03d", i))
	}
	if !slices.Equal(got, want) {
		t.Fatalf("related to Item 000: %d concepts %v, want the %d linked next to it", len(got), got, len(want))
	}
	res, err = s.BuildContext(context.Background(), recall.Input{Concept: "Item 150", Depth: 1, MaxEntities: 200, Decay: &off})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Related) != 64 {
		t.Errorf("Item 150 has %d related concepts, want 64 (32 on each side)", len(res.Related))
	}
}
